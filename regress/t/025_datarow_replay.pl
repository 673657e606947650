# Hits replayed from stored DataRow messages (cache_replay.c) are byte for
# byte what PostgreSQL sends without the cache: text, binary and mixed
# result formats, NULLs, zero and many rows, settings-dependent text,
# a result that spills, Execute messages with a row limit (a portal fetched
# in batches), the simple protocol, EXECUTE of a prepared statement, and a
# client encoding other than the database's. replay_client.py speaks the
# protocol itself (libpq cannot send an Execute with a row limit) and runs
# each case with the cache off, then on twice (a miss, then a hit).
use strict;
use warnings;
use File::Basename;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('replay');
$node->init(extra => [ '--encoding=UTF8', '--locale=C' ]);
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'sfcache'\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION sfcache;
	CREATE TABLE t (id int PRIMARY KEY, name text, score numeric, b bool,
					u uuid, k "char", f float8, ts timestamptz);
	INSERT INTO t
	SELECT g, CASE WHEN g % 7 = 0 THEN NULL ELSE 'name ' || g END,
		   CASE WHEN g % 11 = 0 THEN NULL ELSE g * 1.5 END, g % 2 = 0,
		   md5(g::text)::uuid, chr(97 + g % 26)::"char", g / 3.0,
		   '2024-01-01'::timestamptz + g * interval '1 hour'
	FROM generate_series(1, 999) g;
	INSERT INTO t (id, name) VALUES (1000, 'élève'), (1001, 'Zoë');
});

my $client = dirname(__FILE__) . '/replay_client.py';
my ($stdout, $stderr);
my $ok = IPC::Run::run [ 'python3', $client, $node->host, $node->port, 'postgres',
	scalar(getpwuid($<)) ], '>', \$stdout, '2>', \$stderr;
note $stderr if $stderr;
ok($ok, 'the protocol client ran to the end');

my %hits = map { /^ok (.*) hits=(\d+)$/ ? ($1 => $2) : () } split /\n/, $stdout;
for my $line (split /\n/, $stdout)
{
	ok($line =~ /^ok /, $line);
}

# Each case's second cached run was served from the cache (or, for the
# result that spills, could not be).
for my $case (
	'text columns, NULLs, 20 rows',
	'binary columns',
	'mixed formats',
	'zero rows',
	'many rows',
	'settings-dependent text (float8, timestamptz)',
	'Execute with a row limit of 3',
	'Execute with a row limit of 7 on binary columns',
	'row limit past the end',
	'simple protocol',
	'client encoding other than the database\'s')
{
	is($hits{$case}, 1, "$case: a hit");
}
is($hits{'EXECUTE of a prepared statement'}, 2, 'EXECUTE twice: two hits');
is($hits{'a result that spills (not stored)'}, 0, 'a result that spills is not stored');

done_testing();
