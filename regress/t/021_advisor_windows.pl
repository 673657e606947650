# Window advice in sfcache-advisor: a windowed statement whose result cache
# windows starve for want of an index on its range column (a LIMIT stops
# the leader's scan, so every window is a point) gets the btree index on
# that column in every format, with its evidence; --check counts it; once
# the migration has run, the windows are ranges and nothing is suggested.
# A suggestion of the search that leads with the column absorbs it.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use JSON::PP;
use AdvisorTest;

my $node = PostgreSQL::Test::Cluster->new('windows');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'sfcache'
sfcache.admission = off
sfcache.advice_sample_rate = 0
max_parallel_workers_per_gather = 0
});
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE app');
$node->safe_psql('app', q{
	CREATE EXTENSION sfcache;
	CREATE TABLE feed (id int PRIMARY KEY, created_at timestamptz, kind int);
	INSERT INTO feed SELECT g, '2026-01-01'::timestamptz + g * interval '1 minute', g % 5
	FROM generate_series(1, 20000) g;
	ANALYZE feed;
	SELECT sfcache.advice_reset();
});
my $conn = $node->connstr('app');

# Three leaders, three constants: three point windows (no statement is
# sampled for the index advice: the windows are recorded all the same).
$node->safe_psql('app', join('', map {
	"SELECT id FROM feed WHERE created_at >= '2026-01-0$_ 10:00:01.123+00' LIMIT 5;\n" } (2 .. 4)));
is($node->safe_psql('app', 'SELECT windows_starved FROM sfcache.window_advice'), '3',
	'three windows starved');

my $create = qr/^CREATE INDEX CONCURRENTLY IF NOT EXISTS "feed_created_at_idx" ON "public"\."feed" USING btree \("created_at"\);$/m;
command_checks_all(valgrind_advisor('--no-cache-settings', $conn),
	0,
	[
		qr/^-- migration: 1 index\b/m,
		qr/^-- index feed_created_at_idx on public\.feed \(window advice\)\n-- result cache windows starved for want of it: 3 on created_at \(each a point: no later execution with another constant was served from it\)\n-- statements: 1, 0 calls \(sampled\)\n-- {3}query id -?\d+ \(result cache: 3 calls, 0 hits\): SELECT id FROM feed WHERE created_at >= \$1 LIMIT \$2\n-- rows scanned on created_at by the sampled calls: 0 in 0\.0 ms\n-- estimated size: [\d.]+ kB\n-- key columns: "?created_at"? \(n_distinct -1\)\n/m,
		$create,
	],
	[qr/^sfcache-advisor: 1 index and 0 cache settings suggested/m],
	'sql format: the btree index on the range column with its evidence (valgrind)');

command_checks_all(advisor('--check', '-q', '--no-cache-settings', $conn),
	1, [$create], [qr/^$/], '--check: exit 1 for a window suggestion');

command_checks_all(advisor('--down', '-q', '--no-cache-settings', $conn),
	0, [qr/^DROP INDEX CONCURRENTLY IF EXISTS "public"\."feed_created_at_idx";$/m],
	[qr/^$/], '--down drops it');

command_checks_all(advisor('--min-calls=4', '-q', '--no-cache-settings', $conn),
	0, [qr/^-- nothing to suggest$/m], [qr/^$/],
	'--min-calls counts the windows starved');

my ($json) = run_command(advisor('--format=json', '-q', '--no-cache-settings', $conn));
my $doc = decode_json($json);
is(scalar(@{ $doc->{indexes} }), 1, 'json: one index');
my $ix = $doc->{indexes}[0];
is($ix->{kind}, 'window', 'json: kind window');
is($ix->{windows_starved}, 3, 'json: windows starved');
is($ix->{window_column}, 'created_at', 'json: the column');
is_deeply($ix->{keys}, ['created_at'], 'json: its key');
is($ix->{method}, 'btree', 'json: btree');
like($ix->{up}[0], $create, 'json: up');

my ($django) = run_command(advisor('--format=django', '-q', '--no-cache-settings', $conn));
like($django, qr/migrations\.RunSQL\(\n\s+sql=\[\n?\s*'CREATE INDEX CONCURRENTLY IF NOT EXISTS "feed_created_at_idx"/,
	'django: a RunSQL for it') or diag($django);

# Applied: the windows are index probes now, nothing is recorded or shown.
my ($sql) = run_command(advisor('-q', '--no-cache-settings', $conn));
$node->command_ok([ 'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-d', $conn, '-c', $sql ],
	'the migration runs');
$node->safe_psql('app', "SELECT id FROM feed WHERE created_at >= '2026-01-05 10:00:01.123+00' LIMIT 5");
is($node->safe_psql('app', "SELECT count(*) FROM sfcache.window_advice"), '0',
	'with the index: no window advice');
command_checks_all(advisor('--check', '-q', '--no-cache-settings', $conn),
	0, [qr/^-- nothing to suggest$/m], [qr/^$/], '--check: exit 0 once applied');

# The statements sampled for the index advice too. Filtering on kind, the
# search suggests a partial index on created_at, which serves no window
# (a predicate): the window suggestion, which serves its statement too,
# absorbs it.
$node->safe_psql('app', q{
	DROP INDEX feed_created_at_idx;
	SELECT sfcache.advice_reset();
	SELECT sfcache.flush();
});
$node->safe_psql('app', "SET sfcache.advice_sample_rate = 1;\n" . join('', map {
	"SELECT id FROM feed WHERE created_at >= '2026-01-0$_ 10:00:01.123+00' AND created_at < '2026-01-0$_ 12:00:00+00' AND kind = 3 ORDER BY id LIMIT 5;\n" } (2 .. 4)));
my ($merged) = run_command(advisor('-q', '--no-cache-settings', $conn));
my @creates = ($merged =~ /^CREATE INDEX .*$/mg);
is_deeply(\@creates, [
	'CREATE INDEX CONCURRENTLY IF NOT EXISTS "feed_created_at_idx" ON "public"."feed" USING btree ("created_at");' ],
	'a partial suggestion: one index, the window one') or diag($merged);
like($merged, qr/^-- index feed_created_at_idx on public\.feed \(window advice\)\n-- result cache windows starved for want of it: 6 on created_at .*\n-- statements: 1, 3 calls \(sampled\)\n.*\n-- rows scanned on created_at by the sampled calls: \d+ in [\d.]+ ms\n(?:.*\n){2}-- also serves the statements of the suggestion feed_created_at_partial_idx \(a prefix of this one\)$/m,
	'its evidence: two windows per execution, the statement, the partial suggestion merged') or diag($merged);

# On a table ten times larger, where an index saves most of the LIMIT's
# scan, the search suggests an index led by created_at itself: it stays,
# with the windows in its evidence, and absorbs the window suggestion.
$node->safe_psql('app', q{
	CREATE TABLE events (id int PRIMARY KEY, created_at timestamptz, kind int);
	INSERT INTO events SELECT g, '2026-01-01'::timestamptz + g * interval '1 minute', g % 5
	FROM generate_series(1, 200000) g;
	ANALYZE events;
	SELECT sfcache.advice_reset();
	SELECT sfcache.flush();
});
$node->safe_psql('app', "SET sfcache.advice_sample_rate = 1;\n" . join('', map {
	"SELECT id FROM events WHERE created_at >= '2026-04-0$_ 10:00:01.123+00' AND created_at < '2026-04-0$_ 12:00:00+00' LIMIT 5;\n" } (2 .. 4)));
($merged) = run_command(advisor('-q', '--no-cache-settings', '--table=events', $conn));
@creates = ($merged =~ /^CREATE INDEX .*$/mg);
is(scalar(@creates), 1, 'the same index from both: one') or diag($merged);
like($creates[0] // '', qr/ON "public"\."events" USING btree \("created_at"\)/, 'led by created_at');
like($merged, qr/^-- index events_created_at\S*_idx on public\.events\n(?:.*\n)*-- estimated cost before → after: (?:.*\n)*-- result cache windows starved for want of it: 6 on created_at .*\n-- also serves the statements of the suggestion events_created_at_idx /m,
	'the search suggestion, with the windows in its evidence') or diag($merged);

$node->stop;
done_testing();
