# A prepared statement's miss plans nothing (cache_child_plan.c): the plan
# a miss runs is kept with the generic cache plan, as PostgreSQL keeps a
# generic plan. Counted with pg_stat_statements' plans (track = all, so
# that the planning of the plan a miss runs, nested in the executor, is
# counted too).
#
# - plan_cache_mode = auto: after the plan cache's five custom plans, a
#   generic plan; then ten misses plan nothing more;
# - force_custom_plan: each miss plans (the counter counts);
# - the kept plan goes with the cache plan: after DROP INDEX of the index
#   it used, or ALTER TABLE, the next misses still run and return the rows;
# - a cold statement of the simple protocol (cache_cold.c) is planned once
#   per execution, as PostgreSQL plans it, not as a cache plan and then
#   its child;
# - a cold prepared statement bound with the extended protocol, with a
#   parameter or without, is still a cache plan after DDL on its table
#   makes the plan cache plan it again: its executions are counted.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use File::Basename qw(dirname);

my $node = PostgreSQL::Test::Cluster->new('plans');
$node->init;
$node->append_conf('postgresql.conf',
	"shared_preload_libraries = 'sfcache, pg_stat_statements'\n"
	  . "pg_stat_statements.track = all\n"
	  . "pg_stat_statements.track_planning = on\n"
	  # results are kept from their first miss (admission: cache_admission.sql)
	  . "sfcache.admission = off\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION sfcache;
	CREATE EXTENSION pg_stat_statements;
	CREATE TABLE t (id int PRIMARY KEY, v int, w int);
	INSERT INTO t SELECT g, g * 10, g % 7 FROM generate_series(1, 5000) g;
	CREATE INDEX t_w ON t (w);
	ANALYZE t;
});

# Every planning of the statement, at any level.
my $plans = q{SELECT coalesce(sum(plans), 0) FROM pg_stat_statements
	WHERE query LIKE '%FROM t WHERE id = $1%'};

# EXECUTE q(first) ... q(last), one miss each; the sum of v, as a check of
# the rows.
sub executes
{
	my ($first, $last) = @_;
	return join('', map { "EXECUTE q($_);\n" } ($first .. $last));
}

sub run_session
{
	my ($mode, $ddl) = @_;
	$node->safe_psql('postgres', 'SELECT pg_stat_statements_reset(); SELECT sfcache.flush()');
	return $node->safe_psql(
		'postgres', qq{
		SET plan_cache_mode = $mode;
		PREPARE q(int) AS SELECT v FROM t WHERE id = \$1;
		} . executes(1, 10) . qq{
		SELECT ($plans) AS before \\gset
		$ddl
		} . executes(11, 20) . qq{
		SELECT ($plans) - :before;
		});
}

# auto: five custom plans (each miss plans the plan it runs with the
# values), then the generic one, whose child is planned once: the ten
# misses after the tenth execution plan nothing (without the kept plan:
# ten plannings)
my $out = run_session('auto', '');
my @lines = split /\n/, $out;
is($lines[-1], '0', 'auto: ten misses of a generic plan plan nothing');
is(join(',', @lines[0 .. 9]), join(',', map { $_ * 10 } 1 .. 10),
	'auto: the first ten misses return their rows');
is(join(',', @lines[10 .. 19]), join(',', map { $_ * 10 } 11 .. 20),
	'auto: the next ten misses return their rows');

# force_custom_plan: each miss plans (the counter sees the child's planning)
$out = run_session('force_custom_plan', '');
@lines = split /\n/, $out;
cmp_ok($lines[-1], '>=', 10, 'force_custom_plan: each miss plans');

# The kept plan goes when the cache plan goes: an index it reads dropped
$node->safe_psql('postgres', 'SELECT pg_stat_statements_reset(); SELECT sfcache.flush()');
$out = $node->safe_psql(
	'postgres', q{
	SET plan_cache_mode = force_generic_plan;
	PREPARE r(int, int) AS SELECT count(*) FROM t WHERE w = $1 AND id <= $2;
	EXECUTE r(3, 100);
	EXECUTE r(3, 200);
	DROP INDEX t_w;
	EXECUTE r(3, 300);
	ALTER TABLE t ADD COLUMN x int;
	EXECUTE r(3, 400);
	CREATE INDEX t_w ON t (w);
	EXECUTE r(3, 500);
});
is( $out,
	join("\n", map { my $n = $_; scalar(grep { $_ % 7 == 3 } 1 .. $n) } (100, 200, 300, 400, 500)),
	'the kept plan is dropped with its cache plan: DROP INDEX, ALTER TABLE, CREATE INDEX');

# A cold statement sent with the simple protocol: a window of 20 distinct
# keys served 0 times makes it cold; its next 30 executions (no sample
# among them: one in 64) plan once each, where a cache plan and its child
# would plan twice.
$node->safe_psql('postgres', 'SELECT pg_stat_statements_reset(); SELECT sfcache.flush()');
$out = $node->safe_psql(
	'postgres', q{SET sfcache.cold_after = 20;}
	  . join('', map { "SELECT w FROM t WHERE id = $_;\n" } (1 .. 20))
	  . qq{SELECT calls, plans FROM pg_stat_statements WHERE query LIKE 'SELECT w FROM t WHERE id = \$1' \\gset
	  }
	  . join('', map { "SELECT w FROM t WHERE id = $_;\n" } (21 .. 50))
	  . qq{SELECT calls - :calls, plans - :plans FROM pg_stat_statements WHERE query LIKE 'SELECT w FROM t WHERE id = \$1';
	  SELECT bypasses FROM sfcache.statements WHERE query LIKE 'SELECT w FROM t WHERE id =%';});
@lines = split /\n/, $out;
is(join(',', @lines[20 .. 49]), join(',', map { $_ % 7 } 21 .. 50),
	'simple protocol, cold: the rows');
is($lines[50], '30|30', 'simple protocol, cold: 30 executions planned once each');
is($lines[51], '30', 'simple protocol, cold: counted as 30 bypasses');

# Cold prepared statements bound with the extended protocol, then DDL
my $client = dirname(__FILE__) . '/cold_bind_client.py';
my ($stdout, $stderr);
$node->safe_psql('postgres', 'SELECT sfcache.reset(); SELECT sfcache.flush()');
my $ok = IPC::Run::run [ 'python3', $client, $node->host, $node->port, 'postgres',
	scalar(getpwuid($<)) ], '>', \$stdout, '2>', \$stderr;
note $stderr if $stderr;
ok($ok, 'extended protocol, cold: the client ran to the end');
@lines = split /\n/, $stdout;
is(join(',', @lines[0 .. 23]), join(',', map { $_ % 7 } 101 .. 124),
	'extended protocol, cold: the rows of the statement with a parameter');
is(join(',', @lines[24 .. 48]), join(',', ('100') x 25),
	'extended protocol, cold: the rows of the statement without parameters');
# 20 leaders make the window, then cold: the 21st and the 3 after the DDL
is($lines[49], '24|4', 'extended protocol, cold, a parameter: counted after DDL');
is($lines[50], '25|5', 'extended protocol, cold, no parameters: counted after DDL');

$node->stop;
done_testing();
