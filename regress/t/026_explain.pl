# EXPLAIN of a cached statement with the options whose numbers change from
# run to run (VERBOSE, SUMMARY, timings), and auto_explain: the same tree
# as EXPLAIN, the cache node with the plan a miss runs under it, logged
# once per statement (the child's own executor is not logged apart); and
# in observe mode, an observed hit whose child runs.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('explain');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'sfcache'\nsfcache.admission = off");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION sfcache;
	CREATE TABLE course (id int PRIMARY KEY, title text);
	INSERT INTO course SELECT g, 'course ' || g FROM generate_series(1, 1000) g;
	ANALYZE course;
});

my $plan = $node->safe_psql('postgres',
	'EXPLAIN (ANALYZE, VERBOSE, BUFFERS) SELECT title FROM course WHERE id = 1');
like($plan, qr/^Custom Scan \(sfcache\)  \(cost=0\.28\.\.8\.29 rows=1 width=10\) \(actual time=[\d.]+\.\.[\d.]+ rows=1(?:\.00)? loops=1\)$/m,
	'ANALYZE: the node has its child\'s estimates and its own actual time');
like($plan, qr/^  Cache: leader\n  Cache TTL: 300 s\n  Cache Key: [0-9a-f]{32}\n  Buffers: shared hit=\d+(?: (?:read|dirtied|written)=\d+)*\n  ->  Index Scan using course_pkey on public\.course  \(cost=0\.28\.\.8\.29 rows=1 width=10\) \(actual time=[\d.]+\.\.[\d.]+ rows=1(?:\.00)? loops=1\)\n        Output: title\n        Index Cond: \(course\.id = 1\)\n(?:        Index Searches: \d+\n)?        Buffers: shared hit=\d+(?: (?:read|dirtied|written)=\d+)*$/m,
	'VERBOSE, BUFFERS: the key, and the child with its output columns and buffers');
like($plan, qr/^Planning Time: [\d.]+ ms\nExecution Time: [\d.]+ ms$/m, 'SUMMARY: planning and execution time');
$plan = $node->safe_psql('postgres',
	'EXPLAIN (ANALYZE, VERBOSE) SELECT title FROM course WHERE id = 1');
like($plan, qr/Cache: hit\n  Cache Saved Time: [\d.]+ ms\n.*\n.*\n  ->  Index Scan using course_pkey on public\.course  \(cost=0\.28\.\.8\.29 rows=1 width=10\) \(never executed\)/,
	'a hit: the time its leader ran, saved, and the child never executed');

# auto_explain, loaded in the session, logging every statement: the plans
# it writes to the server log
sub auto_explain
{
	my ($analyze, $sql) = @_;
	my $offset = -s $node->logfile;
	$node->safe_psql('postgres', "LOAD 'auto_explain';
		SET auto_explain.log_min_duration = 0; SET auto_explain.log_analyze = $analyze;
		SET auto_explain.log_timing = off; $sql");
	my $log = slurp_file($node->logfile, $offset);
	return ($log =~ /LOG:  duration: [\d.]+ ms  plan:\n(.*?)(?=\n\d{4}-|\z)/sg);
}

my @plans = auto_explain('on', 'SELECT title FROM course WHERE id = 2; SELECT title FROM course WHERE id = 2');
is(scalar @plans, 2, 'auto_explain logs each statement once');
like($plans[0], qr/Custom Scan \(sfcache\)  \(cost=0\.28\.\.8\.29 rows=1 width=10\) \(actual rows=1(?:\.00)? loops=1\)\n\s+Cache: leader\n\s+Cache TTL: 300 s\n\s+->  Index Scan using course_pkey on course  \(cost=0\.28\.\.8\.29 rows=1 width=10\) \(actual rows=1(?:\.00)? loops=1\)\n\s+Index Cond: \(id = 2\)/,
	'auto_explain, a miss: the node and the child that ran, with its actual rows');
# a hit plans its child only when the log is written, after the node's own
# estimates were printed: those stay the cache plan's
like($plans[1], qr/Custom Scan \(sfcache\)  \(cost=0\.00\.\.0\.01 rows=1 width=0\) \(actual rows=1(?:\.00)? loops=1\)\n\s+Cache: hit\n\s+Cache TTL: 300 s\n\s+->  Index Scan using course_pkey on course  \(cost=0\.28\.\.8\.29 rows=1 width=10\) \(never executed\)\n\s+Index Cond: \(id = 2\)/,
	'auto_explain, a hit: the child never executed');

@plans = auto_explain('off', 'SELECT title FROM course WHERE id = 3; SELECT title FROM course WHERE id = 3');
is(scalar @plans, 2, 'without log_analyze: each statement once');
like($plans[0], qr/Custom Scan \(sfcache\)  \(cost=0\.28\.\.8\.29 rows=1 width=10\)\n\s+Cache: leader\n\s+Cache TTL: 300 s\n\s+->  Index Scan using course_pkey on course  \(cost=0\.28\.\.8\.29 rows=1 width=10\)\n\s+Index Cond: \(id = 3\)/,
	'a miss: the plan that ran under the node');
like($plans[1], qr/Custom Scan \(sfcache\)  \(cost=0\.00\.\.0\.01 rows=1 width=0\)\n\s+Cache: hit\n\s+Cache TTL: 300 s\n\s+->  Index Scan using course_pkey on course  \(cost=0\.28\.\.8\.29 rows=1 width=10\)\n\s+Index Cond: \(id = 3\)/,
	'a hit: the plan a miss would run under the node');

# The cache's own times (ANALYZE with TIMING): a leader's windows after
# its run, what a hit saved (its leader's execution, as sfcache.statements
# adds it up), none without TIMING.
$node->safe_psql('postgres', 'SELECT sfcache.reset()');
$plan = $node->safe_psql('postgres', 'EXPLAIN (ANALYZE) SELECT count(*) FROM course WHERE id <= 500');
like($plan, qr/^  Cache: leader\n  Cache Windows?: .*\n  Cache Window Time: [\d.]+ ms\n  Cache TTL/m,
	'a leader with windows: the time it spent on them');
$plan = $node->safe_psql('postgres', 'EXPLAIN (ANALYZE) SELECT count(*) FROM course WHERE id <= 500');
my ($saved) = $plan =~ /^  Cache Saved Time: ([\d.]+) ms$/m;
like($plan, qr/^  Cache: hit\n  Cache Windows?: .*\n  Cache Saved Time: [\d.]+ ms\n  Cache TTL/m,
	'a hit: the time its leader ran, saved');
is($node->safe_psql('postgres', q{SELECT round(saved_time::numeric, 3) = round(leader_time::numeric, 3)
	FROM sfcache.statements WHERE query ~ '^(EXPLAIN \(ANALYZE\) )?SELECT count\(\*\) FROM course'}),
	't', 'sfcache.statements: one hit saved what its leader spent');
is($node->safe_psql('postgres', q{SELECT round(saved_time::numeric, 3)
	FROM sfcache.statements WHERE query ~ '^(EXPLAIN \(ANALYZE\) )?SELECT count\(\*\) FROM course'}),
	sprintf('%.3f', $saved), 'EXPLAIN shows the time the statement\'s counters add up');
$plan = $node->safe_psql('postgres', 'EXPLAIN (ANALYZE, TIMING OFF) SELECT count(*) FROM course WHERE id <= 502');
unlike($plan, qr/Cache \w+ Time/, 'TIMING OFF: no time of the cache either');

# Observe mode: a stored result is not served, the child runs; a plain
# EXPLAIN says the node observes (BUFFERS OFF: on by default since 18).
$node->safe_psql('postgres', 'SELECT title FROM course WHERE id = 4');
$plan = $node->safe_psql('postgres', 'SET sfcache.cache = observe;
	EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT title FROM course WHERE id = 4');
like($plan, qr/^  Cache: observed hit \(not served\)\n  Cache Mode: observe \(results kept, not served\)\n  Cache TTL: 300 s\n  ->  Index Scan using course_pkey on course  \(cost=[\d.]+\.\.[\d.]+ rows=1 width=10\) \(actual rows=1(?:\.00)? loops=1\)$/m,
	'observe, a stored key: an observed hit, the child executed');
$plan = $node->safe_psql('postgres', 'SET sfcache.cache = observe;
	EXPLAIN (COSTS OFF) SELECT title FROM course WHERE id = 4');
like($plan, qr/^Custom Scan \(sfcache\)\n  Cache: not executed\n  Cache Mode: observe \(results kept, not served\)\n/m,
	'observe, plain EXPLAIN: the cache node, observing');

$node->stop;
done_testing();
