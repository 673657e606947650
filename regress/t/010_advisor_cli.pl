# sfcache-advisor's command line: help, version, the manual page,
# connection errors, the refusal of a missing or mismatched extension, the
# warning for a role that cannot see other roles' statements (an error
# with --check), --check and its default minimum of calls, -q, and
# getopt_long's messages, with their exit codes (0 done, 1 --check with
# suggestions, 2 usage, 3 extension, 4 connection, 5 query or output,
# 6 --check by a role that sees only its own statements).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use AdvisorTest;

my $version = `sfcache-advisor --version`;
like($version, qr/^sfcache-advisor \d+\.\d+/, '--version prints the version');
$version =~ s/^sfcache-advisor (\S+)\s*$/$1/;

command_checks_all([ 'sfcache-advisor', '--help' ],
	0, [ qr/Usage:/, qr/--dbname/, qr/--no-cache-settings/, qr/--check/,
		qr/Exit status:\n  0  done: the output was written, with or without suggestions\n  1  --check only: there is something to suggest\n  2  bad command line\n  3  sfcache is not installed in the database, or is of another version\n  4  could not connect\n  5  a query failed.*\n.*\n  6  --check only: the role sees only its own statements/ ],
	[qr/^$/], '--help lists every exit code');

# The manual page is installed beside the program's share of PostgreSQL, and renders.
my $mandir = `pg_config --mandir`;
chomp $mandir;
my $page = "$mandir/man1/sfcache-advisor.1";
ok(-f $page, "make install put the manual page in $page");
SKIP:
{
	skip 'man is not installed', 3 if system('man --version >/dev/null 2>&1') != 0;
	my $text = `MANWIDTH=80 man -l '$page' 2>&1`;
	like($text, qr/sfcache-advisor - turn sfcache's index advice into migration SQL/, 'man -l renders the page');
	like($text, qr/EXIT STATUS.*\b5\s+A\s+query\s+failed.*\b6\s+With\s+--check\s+only:\s+the\s+role/s, 'the page lists the exit codes');
	like($text, qr/--check/, 'and --check');
}

command_checks_all([ 'sfcache-advisor', '--no-such-option' ],
	2, [qr/^$/], [qr/Try "sfcache-advisor --help"/], 'unknown option');

# getopt_long's own messages name the program as the others do, however
# it was started (here by its full path).
my $bindir = `pg_config --bindir`;
chomp $bindir;
command_checks_all([ "$bindir/sfcache-advisor", '--no-such-option' ],
	2, [qr/^$/],
	[ qr/\Asfcache-advisor: unrecognized option '--no-such-option'\nsfcache-advisor: hint: Try "sfcache-advisor --help"/ ],
	'getopt_long: the short name, by its full path too');
command_checks_all([ "$bindir/sfcache-advisor", '--min-calls' ],
	2, [qr/^$/], [qr/\Asfcache-advisor: option '--min-calls' requires an argument\n/],
	'getopt_long: a missing argument, the short name');

command_checks_all([ 'sfcache-advisor', 'dbname=a', 'dbname=b' ],
	2, [qr/^$/], [qr/too many command-line arguments/], 'two connection strings');

command_checks_all([ 'sfcache-advisor', 'host=/nonexistent-socket-dir port=1' ],
	4, [qr/^$/], [qr/could not connect/], 'unreachable server: exit 4');

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

# --check: 0 when there is nothing to suggest, 1 when there is (the output
# is written either way), as git diff --exit-code; a suggestion seen in
# fewer calls than --min-calls (2 by default) is not one: a single ad-hoc
# query does not fail --check.
command_checks_all([ 'sfcache-advisor', '--check', $node->connstr('app') ],
	0, [qr/^-- nothing to suggest$/m], [qr/nothing to suggest/], '--check, nothing to suggest: exit 0');
$node->safe_psql('app', q{
	SET sfcache.advice_sample_rate = 1;
	CREATE TABLE doc (id serial PRIMARY KEY, body jsonb NOT NULL);
	INSERT INTO doc (body) SELECT jsonb_build_object('tag', g % 1000) FROM generate_series(1, 20000) g;
	ANALYZE doc;
	SELECT sfcache.advice_reset();
});
my $doc_query = q{SET sfcache.advice_sample_rate = 1; SELECT count(*) FROM doc WHERE body @> '{"tag": 7}'};
$node->safe_psql('app', $doc_query);
is($node->safe_psql('app', 'SELECT calls FROM sfcache.index_advice'), '1',
	'one call: the view suggests an index');
command_checks_all([ 'sfcache-advisor', '--check', $node->connstr('app') ],
	0, [ qr/^-- options: --format=sql --min-calls=2$/m, qr/^-- nothing to suggest$/m ],
	[qr/nothing to suggest \(0 merged into another, 0 left out by the budget, 1 left out by the filters\)/],
	'--check after one call: below the default --min-calls of 2, exit 0');
command_checks_all([ 'sfcache-advisor', '--check', '--min-calls=1', $node->connstr('app') ],
	1, [ qr/^-- options: --format=sql --min-calls=1$/m, qr/^CREATE INDEX CONCURRENTLY IF NOT EXISTS "doc_body_gin_idx"/m ],
	[qr/1 index and 0 cache settings suggested/], '--check --min-calls=1 after one call: exit 1');
$node->safe_psql('app', $doc_query);
my $view_name = $node->safe_psql('app', 'SELECT index_name FROM sfcache.index_advice');
like($view_name, qr/^doc_body_gin_idx$/, 'the view suggests an index');
command_checks_all([ 'sfcache-advisor', '--check', $node->connstr('app') ],
	1, [qr/^CREATE INDEX CONCURRENTLY IF NOT EXISTS "\Q$view_name\E" ON "public"\."doc"/m],
	[qr/1 index and 0 cache settings suggested/], '--check with something to suggest: exit 1, output written');
command_checks_all([ 'sfcache-advisor', $node->connstr('app') ],
	0, [qr/"\Q$view_name\E"/], [qr/suggested/],
	'without --check, suggestions: exit 0 (set -e and CI)');

# The name in the view is the name the advisor writes, also when it was taken.
$node->safe_psql('app', "CREATE TABLE $view_name (x int)");
my $taken = $node->safe_psql('app', 'SELECT index_name FROM sfcache.index_advice');
is($taken, "${view_name}_2", 'a name taken by a relation: the view adds _2');
command_checks_all([ 'sfcache-advisor', '-q', $node->connstr('app') ],
	0, [qr/^CREATE INDEX CONCURRENTLY IF NOT EXISTS "\Q$taken\E" ON/m], [qr/^$/],
	'and the advisor writes the same name');
$node->safe_psql('app', "DROP TABLE $view_name");

# A role that is not a member of pg_read_all_stats sees only its own
# statements: a warning with a hint, and the advisor goes on (exit 0);
# -q leaves errors only. --check cannot vouch for the statements it does
# not see: an error, exit 6, nothing written, unless
# --allow-partial-visibility.
$node->safe_psql('app', 'CREATE ROLE plain LOGIN');
my $plain = $node->connstr('app') . ' user=plain';
command_checks_all([ 'sfcache-advisor', $plain ],
	0, [qr/^-- nothing to suggest$/m],
	[ qr/^sfcache-advisor: warning: role "plain" sees only its own statements: other roles' recorded statements are left out of the advice$/m,
	  qr/^sfcache-advisor: hint: Grant it pg_read_all_stats \(GRANT pg_read_all_stats TO plain\)/m ],
	'a role without pg_read_all_stats: warning naming pg_read_all_stats, exit 0');
command_checks_all([ 'sfcache-advisor', '-q', $plain ],
	0, [qr/nothing to suggest/], [qr/\A\z/],
	'-q: no warning either (nothing but errors)');
command_checks_all(valgrind_advisor('--check', $plain),
	6, [qr/\A\z/],
	[ qr/^sfcache-advisor: error: role "plain" sees only its own statements: --check cannot vouch for other roles' statements$/m,
	  qr/^sfcache-advisor: detail: The sfcache extension shows other roles' recorded statements only to members of pg_read_all_stats\.$/m,
	  qr/^sfcache-advisor: hint: Grant it pg_read_all_stats \(GRANT pg_read_all_stats TO plain\), run the advisor as a member of pg_read_all_stats, or pass --allow-partial-visibility/m ],
	'--check by a role without pg_read_all_stats: exit 6, says why and how to fix it, writes nothing (valgrind)');
command_checks_all([ 'sfcache-advisor', '--check', '-q', '--format=json', $plain ],
	6, [qr/\A\z/], [qr/\Asfcache-advisor: error: role "plain" sees only its own statements/],
	'--check -q: the error still');
command_checks_all([ 'sfcache-advisor', '--check', '--allow-partial-visibility', $plain ],
	0, [qr/^-- nothing to suggest$/m], [qr/^sfcache-advisor: warning: role "plain" sees only its own statements/m],
	'--check --allow-partial-visibility: the warning, and its own statements checked (exit 0)');
$node->safe_psql('app', 'GRANT pg_read_all_stats TO plain');
command_checks_all([ 'sfcache-advisor', '-q', $plain ],
	0, [qr/"\Q$view_name\E"/], [qr/^$/], 'a member of pg_read_all_stats: no warning, every statement');
command_checks_all([ 'sfcache-advisor', '--check', '-q', $plain ],
	1, [qr/"\Q$view_name\E"/], [qr/\A\z/], 'and --check sees them: exit 1');

# A role without the privileges the advisor needs: exit 5, the hint says which.
$node->safe_psql('app', 'CREATE ROLE denied LOGIN; REVOKE USAGE ON SCHEMA sfcache FROM PUBLIC');
command_checks_all([ 'sfcache-advisor', $node->connstr('app') . ' user=denied' ],
	5, [qr/^$/],
	[ qr/^sfcache-advisor: error: could not .*permission denied for schema sfcache/m,
	  qr/^sfcache-advisor: hint: Role "denied" lacks a privilege on sfcache's objects/m ],
	'a role without privileges: a clear message, exit 5');
$node->safe_psql('app', 'GRANT USAGE ON SCHEMA sfcache TO PUBLIC');

my $outfile = $node->basedir . '/advice.sql';
command_checks_all([ 'sfcache-advisor', '-q', '-o', $outfile, $node->connstr('app') ],
	0, [qr/^$/], [qr/^$/], '-o writes to a file, -q says nothing');
like(slurp_file($outfile), qr/^-- sfcache-advisor/, 'the file holds the output');

# An old extension (0.3, not updated): exit 3, with the hint to update.
$node->safe_psql('postgres', 'CREATE DATABASE old');
$node->safe_psql('old', "CREATE EXTENSION sfcache VERSION '0.3'");
command_checks_all([ 'sfcache-advisor', $node->connstr('old') ],
	3, [qr/^$/],
	[ qr/extension "sfcache" is at version 0\.3 but this advisor is version \Q$version\E/,
	  qr/hint: Run ALTER EXTENSION sfcache UPDATE TO '\Q$version\E'/ ],
	'an old extension: exit 3, hint to update');

# Pretend the SQL objects are of another version than the advisor.
$node->safe_psql('app',
	"UPDATE pg_extension SET extversion = '0.0' WHERE extname = 'sfcache'");
command_checks_all([ 'sfcache-advisor', $node->connstr('app') ],
	3, [qr/^$/], [qr/is at version 0\.0 but this advisor is version \Q$version\E/],
	'version mismatch');

$node->stop;
done_testing();
