# A portal of a cached statement fetched in batches, with what its first
# fetch saw changing before the next one: the client encoding (both ways),
# the row limit, the result formats (an SQL FETCH of the portal in binary,
# two portals of one statement in text and binary), the receiver (a FETCH
# from PL/pgSQL goes to SPI, a MOVE nowhere). Whether a run sends stored
# DataRows is decided again at every ExecutorRun (cache_replay.c), and a
# portal that may run again keeps its result's tuples too (cache_scan.c):
# each case is byte for byte what PostgreSQL sends without the cache, as
# the leader and on a hit (portal_client.py speaks the protocol).
use strict;
use warnings;
use File::Basename;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('portal');
$node->init(extra => [ '--encoding=UTF8', '--locale=C' ]);
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'sfcache'\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION sfcache;
	CREATE TABLE t (id int PRIMARY KEY, name text);
	INSERT INTO t SELECT g, CASE WHEN g % 4 = 0 THEN NULL ELSE 'name ' || g END
	FROM generate_series(1, 20) g;
	INSERT INTO t VALUES (1000, 'élève'), (1001, 'Zoë');
	CREATE FUNCTION fetch_names(c refcursor, n int) RETURNS text LANGUAGE plpgsql AS $$
	DECLARE
		r record;
		s text := '';
	BEGIN
		FOR i IN 1..n LOOP
			FETCH c INTO r;
			EXIT WHEN NOT FOUND;
			s := s || r.id || ':' || coalesce(r.name, '-') || ';';
		END LOOP;
		RETURN s;
	END $$;
});

my $client = dirname(__FILE__) . '/portal_client.py';
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
for my $case (
	'client encoding changed between fetches',
	'client encoding back to the database\'s between fetches',
	'row limit, then the rest',
	'binary result formats of an SQL FETCH between fetches',
	'text fetches after a binary first fetch',
	'a FETCH from PL/pgSQL between fetches (another receiver)',
	'a MOVE between fetches')
{
	is($hits{$case}, 1, "$case: a hit");
}
is($hits{'two portals, text and binary, fetched in turn'}, 2, 'two portals: two hits');

done_testing();
