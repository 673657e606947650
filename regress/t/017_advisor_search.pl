# The advisor and the extension's configuration search: the search's work
# in the header, each index's marginal benefit (its share of the
# configuration's saving) and upkeep in the evidence and in JSON, budgets
# spent by the search, and an INCLUDE index written, applied and reversed
# (ranges of distinct posts in no order of the heap: each row a heap fetch
# without INCLUDE, and an int4 INCLUDE column that fills an int4 key's
# padding costs no bytes, so the covering variant is the one that pays).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use AdvisorTest;

my $node = PostgreSQL::Test::Cluster->new('search');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'sfcache'\nsfcache.advice_sample_rate = 1");
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE app');
$node->safe_psql('app', q{
	CREATE EXTENSION sfcache;
	CREATE TABLE vote (id bigserial PRIMARY KEY, post_id int NOT NULL, kind text NOT NULL,
		weight int NOT NULL, body text NOT NULL);
	INSERT INTO vote (post_id, kind, weight, body)
	SELECT (g * 7919) % 30000, CASE WHEN g % 3 = 0 THEN 'down' ELSE 'up' END, g % 5, repeat('x', 100)
	FROM generate_series(1, 30000) g;
	CREATE TABLE post (id bigserial PRIMARY KEY, tags jsonb NOT NULL);
	INSERT INTO post (tags) SELECT jsonb_build_array(g % 400) FROM generate_series(1, 20000) g;
	VACUUM ANALYZE vote, post;
	SELECT sfcache.advice_reset();
});
my $sql = "SET sfcache.cache = off;\n";
foreach my $p (1 .. 4)
{
	$sql .= "SELECT sum(weight) FROM vote WHERE post_id BETWEEN ${p}000 AND ${p}300 AND kind = 'up';\n";
	$sql .= "SELECT count(*) FROM post WHERE tags \@> '[$p]';\n";
}
$node->safe_psql('app', $sql);
my $conn = $node->connstr('app');

my ($out) = run_command(advisor('--no-ttl', $conn));
like($out, qr/^-- configuration search: 2 statements, \d+ candidates, \d+ plannings \(bound 10000\); workload cost \d+ -> \d+$/m,
	'the header shows the search\'s work');
my @shares = ($out =~ /^-- marginal benefit in the chosen configuration: [\d.]+ \((\d+)% of the configuration's saving\); upkeep under the recorded writes: [\d.]+$/mg);
is(scalar(@shares), 2, 'each index shows its marginal benefit and upkeep') or diag($out);
my $sum = 0;
$sum += $_ foreach @shares;
cmp_ok(abs($sum - 100), '<=', 1, 'the shares add up to the configuration\'s saving');
like($out, qr/^CREATE INDEX CONCURRENTLY IF NOT EXISTS "vote_post_id_partial_idx" ON "public"\."vote" USING btree \("post_id"\) INCLUDE \("weight"\) WHERE \(kind = 'up'::text\);$/m,
	'an INCLUDE index where an index-only scan follows');

my ($json) = run_command(advisor('--no-ttl', '--format=json', $conn));
like($json, qr/"marginal_benefit": [\d.]+,\n\s*"upkeep": [\d.]+,/, 'json: marginal benefit and upkeep');

my ($one) = run_command(valgrind_advisor('--no-ttl', '--max-indexes=1', $conn));
my @creates = ($one =~ /^CREATE INDEX .*$/mg);
is(scalar(@creates), 1, '--max-indexes=1: one index');
like($one, qr/^-- 1 more suggestion left out by --max-indexes or --max-size$/m,
	'the header says what the budget left out');

my ($none) = run_command(advisor('--no-ttl', '--max-size=8kB', $conn));
unlike($none, qr/^CREATE INDEX/m, '--max-size below every index: none');

# The reverse, then applied: the INCLUDE index is the one created, and
# nothing is left to suggest.
my ($down) = run_command(advisor('--no-ttl', '--down', $conn));
like($down, qr/^DROP INDEX CONCURRENTLY IF EXISTS "public"\."vote_post_id_partial_idx";$/m,
	'--down drops the INCLUDE index');
command_checks_all(advisor('--no-ttl', '-q', '--apply', $conn), 0, [qr/INCLUDE/], [qr/^$/],
	'--apply: suggestions written and applied (exit 0)');
is($node->safe_psql('app', q{SELECT pg_get_indexdef('vote_post_id_partial_idx'::regclass)}),
	q{CREATE INDEX vote_post_id_partial_idx ON public.vote USING btree (post_id) INCLUDE (weight) WHERE (kind = 'up'::text)},
	'the INCLUDE index as written');
command_checks_all(advisor('--no-ttl', $conn), 0, [qr/nothing to suggest/], [qr/nothing to suggest/],
	'once applied, nothing left to suggest');

$node->stop;
done_testing();
