# sfcache-advisor on a recorded workload: the sql, json and django formats
# (each under valgrind), the evidence and the cache settings, --replace, the
# budget and filter options; the sql output applies cleanly with psql, the
# recorded statements then use the new indexes, and --down undoes it all.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use JSON::PP;
use AdvisorTest;

my $node = advisor_node('output');
load_lms($node);
my $conn = $node->connstr('app');

command_checks_all(valgrind_advisor($conn),
	0, [qr/^-- sfcache-advisor .*\n-- generated .* UTC\n-- options: --format=sql --min-calls=2\n-- nothing to suggest$/m],
	[qr/^sfcache-advisor: nothing to suggest/], 'nothing recorded: exit 0 (valgrind)');

# The dashboard, and the tables of the cache settings: lms_receipt gets
# user_id tracked, lms_event_log excluded (AdvisorTest.pm).
run_workload($node, 0);
run_cache_workload($node);

my $gin = qr/CREATE INDEX CONCURRENTLY IF NOT EXISTS "lms_announcement_scope_ids_gin_idx" ON "public"\."lms_announcement" USING gin \("scope_ids" jsonb_path_ops\);/;
my $unread = qr/CREATE INDEX CONCURRENTLY IF NOT EXISTS "lms_notification_user_id_status_is_deleted_idx" ON "public"\."lms_notification" USING btree \("user_id", "status", "is_deleted"\);/;
command_checks_all(valgrind_advisor($conn),
	0,
	[
		qr/^-- sfcache-advisor \S+, database "app", extension \S+\n-- generated \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\n-- options: --format=sql --min-calls=2\n-- migration: 4 indexes, 2 cache settings\n/,
		$gin, $unread,
		qr/USING gin \("tags" jsonb_ops\);/,
		qr/USING btree \("university_id", "display_time"\) WHERE \(NOT is_deleted\);/,
		qr/^-- index lms_notification_user_id_status_is_deleted_idx on public\.lms_notification\n-- statements: 1, 2 calls \(sampled\)\n-- {3}query id -?\d+ \(result cache: \d+ calls, \d+ hits\): SELECT count\(\*\) FROM "lms_notification"/m,
		qr/^-- rows scanned → returned: \d+ → \d+$/m,
		qr/^-- estimated cost before → after: [\d.]+ → [\d.]+ \(\d+% less\)$/m,
		qr/^-- estimated size: [\d.]+ (bytes|kB|MB)$/m,
		qr/^-- key columns: "?user_id"? \(n_distinct 200\), "?status"? \(n_distinct 3\)/m,
		qr/^-- makes redundant: existing index lms_notification_user_id_d774485f \(btree \(user_id\)\), owned by no constraint or migration the advisor knows of: run with --replace to drop it$/m,
		qr/^-- Cache settings: .*\n.*\nSELECT EXISTS \(SELECT FROM pg_catalog\.pg_extension WHERE extname OPERATOR\(pg_catalog\.=\) 'sfcache'\) AS sfcache_installed \\gset\n\\if :sfcache_installed\n\n-- exclude public\.lms_event_log: the table is written [\d.]+ times a minute \(600 writes\) and no statement compares a column that can be tracked with = to varying values\n-- statements: 1, 2 calls \(sampled\)\n-- {3}query id -?\d+ \(result cache: \d+ calls, \d+ hits\): SELECT count\(\*\) FROM lms_event_log WHERE id > \$1\n-- result cache: no result of these statements stored \(sfcache\.statements\): this rests on the write rate alone\nSELECT sfcache\.exclude\('"public"\."lms_event_log"'::regclass\);\n\n-- track public\.lms_receipt\.user_id: the table is written [\d.]+ times a minute \(20 writes\); statements compare the column with = to varying values\n-- statements: 1, 20 calls \(sampled\)\n-- {3}query id -?\d+ \(result cache: \d+ calls, \d+ hits\): SELECT count\(\*\) FROM lms_receipt WHERE user_id = \$1\nSELECT sfcache\.track\('"public"\."lms_receipt"'::regclass, 'user_id'\);\n\\endif\n\z/m,
	],
	[qr/^sfcache-advisor: 4 indexes and 2 cache settings suggested/],
	'sql format: header, evidence, CREATE statements, cache settings (valgrind)');

my ($stdout) = run_command(advisor($conn));
unlike($stdout, qr/DROP INDEX/, 'no DROP without --replace');

# Budget and filters. Estimated sizes: scope_ids ~250 kB, tags ~180 kB,
# the partial btree ~570 kB, the notification btree ~1.5 MB.
sub creates
{
	my ($out) = run_command(advisor(@_, '--no-ttl', '-q', $conn));
	return join(' ', map { /IF NOT EXISTS "([^"]+)"/ } grep { /^CREATE/ } split /\n/, $out);
}
is(creates('--max-indexes=1'), 'lms_announcement_scope_ids_gin_idx',
	'--max-indexes=1 keeps the most benefit per byte');
is(creates('--max-size=450kB'), 'lms_announcement_scope_ids_gin_idx lms_announcement_tags_gin_idx',
	'--max-size spends the budget greedily by benefit per byte');
is(creates('--min-benefit=0.9'), 'lms_announcement_university_id_display_time_partial_idx',
	'--min-benefit');
is(creates('--table=lms_notif*'), 'lms_notification_user_id_status_is_deleted_idx',
	'--table pattern');
is(creates('--table=public.lms_notification'), 'lms_notification_user_id_status_is_deleted_idx',
	'--table schema.table');
command_checks_all(advisor('--min-calls=3', '--no-ttl', $conn),
	0, [qr/nothing to suggest/], [qr/4 left out by the filters/],
	'--min-calls above every suggestion: exit 0');
command_checks_all(advisor('--max-size=1kB', '--no-ttl', $conn),
	0, [qr/^-- 4 more suggestions left out by --max-indexes or --max-size$/m],
	[qr/4 left out by the budget/], '--max-size below every index: exit 0');

# JSON: the same data.
my $json_file = $node->basedir . '/advice.json';
command_checks_all(valgrind_advisor('--format=json', '--replace', '-o', $json_file, $conn),
	0, [qr/^$/], [qr/4 indexes and 2 cache settings suggested/], 'json format (valgrind)');
my $json_text = slurp_file($json_file);
like($json_text, qr/^\}\n\z/m, 'json: ends with a newline');
my $doc = decode_json($json_text);
is($doc->{database}, 'app', 'json: database');
is(scalar @{ $doc->{indexes} }, 4, 'json: four indexes');
my ($n) = grep { $_->{table} eq 'lms_notification' } @{ $doc->{indexes} };
is_deeply($n->{keys}, [ 'user_id', 'status', 'is_deleted' ], 'json: keys');
is($n->{makes_redundant}[0]{name}, 'lms_notification_user_id_d774485f', 'json: made redundant');
is($n->{makes_redundant}[0]{owner}, 'owned by no constraint or migration the advisor knows of', 'json: its owner');
ok(!$n->{makes_redundant}[0]{kept}, 'json: not kept');
is(scalar @{ $n->{up} }, 2, 'json: CREATE and DROP with --replace');
like($n->{up}[1], qr/^DROP INDEX CONCURRENTLY IF EXISTS "public"\."lms_notification_user_id_d774485f";$/, 'json: DROP after CREATE');
ok($n->{rows_scanned} > $n->{rows_returned} && $n->{cost_after} < $n->{cost_before} && $n->{estimated_size} > 0,
	'json: evidence');
is_deeply([ map { "$_->{action} $_->{table} " . ($_->{column} // 'null') } @{ $doc->{cache_settings} } ],
	[ 'exclude lms_event_log null', 'track lms_receipt user_id' ], 'json: cache settings');
my ($track) = grep { $_->{action} eq 'track' } @{ $doc->{cache_settings} };
is($track->{writes}, 20, 'json: track: writes');
is($track->{calls}, 20, 'json: track: sampled calls');
is(scalar @{ $track->{query_ids} }, 1, 'json: track: the statement');
is($track->{up}, q{SELECT sfcache.track('"public"."lms_receipt"'::regclass, 'user_id');}, 'json: track up');
is($track->{down}, q{SELECT sfcache.untrack('"public"."lms_receipt"'::regclass, 'user_id');}, 'json: track down');
is($doc->{cache_settings}[0]{down}, q{SELECT sfcache.include('"public"."lms_event_log"'::regclass);}, 'json: exclude down');

# Django: a migration module depending on the app's latest migration.
$node->safe_psql('app', q{
CREATE TABLE django_migrations (id serial PRIMARY KEY, app varchar(255), name varchar(255), applied timestamptz);
INSERT INTO django_migrations (app, name, applied) VALUES ('lms', '0001_initial', now());
});
my $dir = $node->basedir . '/migrations';
mkdir $dir;
command_checks_all(valgrind_advisor('--format=django', '--app=lms', '--replace', '-o', $dir, $conn),
	0, [qr/^$/], [qr/suggested/], 'django format into a directory (valgrind)');
my $py = slurp_file("$dir/0002_sfcache_indexes.py");
like($py, qr/^# Django migration lms\.0002_sfcache_indexes$/m, 'django: named after the latest migration');
like($py, qr/^from django\.db import migrations\n\n\nclass Migration\(migrations\.Migration\):\n    atomic = False\n/m,
	'django: atomic = False');
like($py, qr/^        \('lms', '0001_initial'\),$/m, 'django: depends on the latest migration');
like($py, qr/migrations\.RunSQL\(\n            sql=\[\n                'CREATE INDEX CONCURRENTLY IF NOT EXISTS "lms_notification_user_id_status_is_deleted_idx" [^\n]+',\n            \],\n            reverse_sql=\[\n                'DROP INDEX CONCURRENTLY IF EXISTS "public"\."lms_notification_user_id_status_is_deleted_idx";',\n            \],\n        \),/,
	'django: RunSQL with sql and reverse_sql; --replace keeps the db_index index Django created');
like($py, qr/^        # makes redundant: existing index lms_notification_user_id_d774485f \(btree \(user_id\)\), created by Django's migrations of app lms: db_index=True on field user_id of model lms\.notification: kept; to drop it, set db_index=False on that field and run makemigrations, or pass --replace-owned$/m,
	'django: names the owner and says how to change the model');
command_checks_all(advisor('--format=django', '--app=lms', '--replace-owned', $conn),
	0, [qr/^                'DROP INDEX CONCURRENTLY IF EXISTS "public"\."lms_notification_user_id_d774485f";',$/m,
		qr/created by Django's migrations of app lms: db_index=True on field user_id of model lms\.notification: dropped after the CREATE$/m],
	[qr/suggested/], 'django: --replace-owned drops it, naming its owner');
like($py, qr/\n        # track public\.lms_receipt\.user_id: [^\n]+\n(        # [^\n]+\n)+        migrations\.RunSQL\(\n            sql=\[\n                'DO \\'BEGIN IF EXISTS \(SELECT FROM pg_catalog\.pg_extension WHERE extname OPERATOR\(pg_catalog\.=\) \\'\\'sfcache\\'\\'\) THEN PERFORM sfcache\.track\(\\'\\'"public"\."lms_receipt"\\'\\'::regclass, \\'\\'user_id\\'\\'\); END IF; END\\';',\n            \],\n            reverse_sql=\[\n                'DO \\'BEGIN IF EXISTS [^\n]+ THEN PERFORM sfcache\.untrack\(\\'\\'"public"\."lms_receipt"\\'\\'::regclass, \\'\\'user_id\\'\\'\); END IF; END\\';',\n            \],\n        \),/,
	'django: track with its evidence and its reverse, quotes escaped');
like($py, qr/THEN PERFORM sfcache\.exclude\(\\'\\'"public"\."lms_event_log"\\'\\'::regclass\); END IF; END\\';'/,
	'django: exclude');
command_checks_all(advisor('--format=django', '--app=lms', '--name=0005_custom', $conn),
	0, [qr/^# Django migration lms\.0005_custom$/m], [qr/suggested/], 'django: --name');

# Up, then down, with psql.
my $up = $node->basedir . '/up.sql';
my $down = $node->basedir . '/down.sql';
command_exit_is(advisor('--replace', '-q', '-o', $up, $conn), 0, 'write up');
command_checks_all(valgrind_advisor('--replace', '--down', '-o', $down, $conn),
	0, [qr/^$/], [qr/suggested/], 'write down (valgrind)');
like(slurp_file($down), qr/^-- options: --format=sql --down --replace --min-calls=2$/m, 'down header');

sub psql_file
{
	my ($file) = @_;
	my ($ret, $out, $err) = $node->psql('app', undef,
		extra_params => [ '-v', 'ON_ERROR_STOP=1', '-f', $file ]);
	return ($ret, $err);
}
my ($ret, $err) = psql_file($up);
is($ret, 0, 'the up migration applies with psql');
is($err, '', 'without errors or notices');
my $indexes = q{SELECT string_agg(indexname, ' ' ORDER BY indexname) FROM pg_indexes
	WHERE tablename IN ('lms_announcement', 'lms_notification') AND indexname NOT LIKE '%pkey'};
is($node->safe_psql('app', $indexes),
	'lms_announcement_scope_ids_gin_idx lms_announcement_tags_gin_idx lms_announcement_university_id_display_time_partial_idx lms_notification_user_id_status_is_deleted_idx',
	'the four indexes exist, the redundant one is gone');
is($node->safe_psql('app', q{SELECT bool_and(indisvalid) FROM pg_index}), 't', 'all valid');
my %uses = (
	scope => 'lms_announcement_scope_ids_gin_idx',
	tags => 'lms_announcement_tags_gin_idx',
	feed => 'lms_announcement_university_id_display_time_partial_idx',
	unread => 'lms_notification_user_id_status_is_deleted_idx');
for my $s (sort keys %uses)
{
	like($node->safe_psql('app', "EXPLAIN (COSTS OFF) $AdvisorTest::STATEMENTS{$s}"),
		qr/Index .*(on|using) $uses{$s}\b/, "the recorded statement \"$s\" uses $uses{$s}");
}
is($node->safe_psql('app', 'SELECT relation::text, column_name, active FROM sfcache.tracked_columns'),
	'lms_receipt|user_id|t', 'user_id tracked');
is($node->safe_psql('app', 'SELECT relid::text FROM sfcache.relation_settings WHERE excluded'),
	'lms_event_log', 'lms_event_log excluded');
command_checks_all(advisor($conn),
	0, [qr/nothing to suggest/], [qr/nothing to suggest/], 'after up: nothing to suggest');

($ret, $err) = psql_file($down);
is($ret, 0, 'the down migration applies with psql');
is($node->safe_psql('app', $indexes), 'lms_notification_user_id_d774485f',
	'down drops the new indexes and recreates the replaced one');
is($node->safe_psql('app', 'SELECT count(*) FROM sfcache.tracked_columns'), '0', 'user_id untracked');
is($node->safe_psql('app', 'SELECT count(*) FROM sfcache.relation_settings WHERE excluded'), '0',
	'lms_event_log included');
like(slurp_file($down), qr/SELECT sfcache\.untrack\([^\n]+\n(--[^\n]*\n|\n)*SELECT sfcache\.include\([^\n]+\n\\endif\n\n-- index /,
	'down: the cache settings reversed, in reverse order');
command_checks_all(advisor('--no-cache-settings', $conn),
	0, [$gin, $unread], [qr/4 indexes/], 'after down: the same advice again');

$node->stop;
done_testing();
