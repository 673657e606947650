# sfcache-advisor's command line: help, version, connection errors, and the
# refusal of a missing or mismatched extension, with their exit codes.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $version = `sfcache-advisor --version`;
like($version, qr/^sfcache-advisor \d+\.\d+/, '--version prints the version');
$version =~ s/^sfcache-advisor (\S+)\s*$/$1/;

command_checks_all([ 'sfcache-advisor', '--help' ],
	0, [ qr/Usage:/, qr/--dbname/, qr/--no-cache-settings/, qr/Exit status/ ], [qr/^$/], '--help');

command_checks_all([ 'sfcache-advisor', '--no-such-option' ],
	2, [qr/^$/], [qr/Try "sfcache-advisor --help"/], 'unknown option');

command_checks_all([ 'sfcache-advisor', 'dbname=a', 'dbname=b' ],
	2, [qr/^$/], [qr/too many command-line arguments/], 'two connection strings');

command_checks_all([ 'sfcache-advisor', 'host=/nonexistent-socket-dir port=1' ],
	2, [qr/^$/], [qr/could not connect/], 'unreachable server');

my $node = PostgreSQL::Test::Cluster->new('advisor');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'sfcache'");
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE app');

command_checks_all([ 'sfcache-advisor', '-d', $node->connstr('app') ],
	3, [qr/^$/], [qr/extension "sfcache" is not installed in database "app"/],
	'extension missing');

$node->safe_psql('app', 'CREATE EXTENSION sfcache');

# Connection parameters come from PG* variables like psql's.
{
	local $ENV{PGHOST} = $node->host;
	local $ENV{PGPORT} = $node->port;
	local $ENV{PGDATABASE} = 'app';
	command_checks_all([ 'sfcache-advisor' ],
		0, [qr/^-- sfcache-advisor \Q$version\E, database "app", extension \Q$version\E/],
		[qr/^sfcache-advisor: nothing to suggest/], 'matching extension, PG* variables');
}

command_checks_all(
	[ 'sfcache-advisor', '-h', $node->host, '-p', $node->port, '-d', 'app',
		'-U', scalar(getpwuid($<)) ],
	0, [qr/database "app"/], [qr/nothing to suggest/], '-h -p -d -U options');

my $outfile = $node->basedir . '/advice.sql';
command_checks_all([ 'sfcache-advisor', '-q', '-o', $outfile, $node->connstr('app') ],
	0, [qr/^$/], [qr/^$/], '-o writes to a file, -q says nothing');
like(slurp_file($outfile), qr/^-- sfcache-advisor/, 'the file holds the output');

# Pretend the SQL objects are of another version than the advisor.
$node->safe_psql('app',
	"UPDATE pg_extension SET extversion = '0.0' WHERE extname = 'sfcache'");
command_checks_all([ 'sfcache-advisor', $node->connstr('app') ],
	3, [qr/^$/], [qr/is at version 0\.0 but this advisor is version \Q$version\E/],
	'version mismatch');

$node->stop;
done_testing();
