# sfcache-advisor's cache setting recommendations (advisor/cache_settings.c)
# on a recorded workload: a table written often and read with "=" (or IN)
# against varying values gets its two most used such columns tracked; an
# already tracked column, a constant that never varies, a table written once
# and the third column get nothing; a partitioned table, whose quals are
# recorded on its partitions, gets its root tracked; a table written over 60 times a minute
# whose results are stored and never read, and one whose only equality
# column cannot be tracked (money: no hash opclass), get excluded, but not
# one whose results are read several times between writes. Identifiers
# needing quotes are quoted; --down reverses in reverse order; psql applies
# both; --no-cache-settings (and the old --no-ttl) and --table.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use JSON::PP;
use IPC::Run;
use AdvisorTest;

# Exit status, standard output and standard error of a command.
sub run_advisor
{
	my ($cmd) = @_;
	my ($out, $err) = ('', '');
	IPC::Run::run($cmd, '>', \$out, '2>', \$err);
	return ($? >> 8, $out, $err);
}

my $node = advisor_node('cache_settings');
my $conn = $node->connstr('app');
# (a partition's DDL counts as an invalidation of its root: recorded as a
# minute ago too, with the first half of the writes)
$node->safe_psql('app', a_minute_ago() . q{
CREATE TABLE notif (id serial PRIMARY KEY, user_id int NOT NULL, course_id int NOT NULL,
	kind int NOT NULL, status text NOT NULL);
CREATE TABLE tracked (id serial PRIMARY KEY, user_id int NOT NULL);
CREATE SCHEMA "My Schema";
CREATE TABLE "My Schema"."Odd ""Table""" (id serial PRIMARY KEY, "User Id" int NOT NULL, "it's" int NOT NULL);
CREATE TABLE feed (id serial PRIMARY KEY, at int NOT NULL);
CREATE TABLE popular (id serial PRIMARY KEY, at int NOT NULL);
CREATE TABLE ledger (id serial PRIMARY KEY, amount money NOT NULL);
CREATE TABLE quiet (id serial PRIMARY KEY, user_id int NOT NULL);
CREATE TABLE ev (id int NOT NULL, user_id int NOT NULL) PARTITION BY RANGE (id);
CREATE TABLE ev_1 PARTITION OF ev FOR VALUES FROM (0) TO (1000);
CREATE TABLE ev_2 PARTITION OF ev FOR VALUES FROM (1000) TO (2000);
-- written with a varying "=" of its own (no index: the qual is recorded),
-- never read: neither tracked nor excluded
CREATE TABLE outbox (msg int NOT NULL, tries int NOT NULL);
SELECT sfcache.track('tracked', 'user_id');
});

# Each statement on its own, each write its own transaction; the cache is
# on in this session, so sfcache.statements counts stores and hits (and
# never cold: a statement never served would otherwise run its own plan
# after 100 executions, and store only its samples). Half
# the writes recorded as a minute ago, the other half now: sustained
# traffic, which alone gets a write rate (sfcache.table_activity).
my @sql = ("SET sfcache.cache = on; SET sfcache.cold_after = 0;\n") x 2;
for my $i (1 .. 30)
{
	my $u = 1 + $i % 3;
	my $c = $i % 2;
	$sql[$i > 15] .= qq{INSERT INTO notif (user_id, course_id, kind, status) VALUES ($u, $c, $i % 4, 'unread');
SELECT count(*) FROM notif WHERE user_id = $u AND status = 'unread';
SELECT count(*) FROM notif WHERE course_id IN ($c, 5);
INSERT INTO tracked (user_id) VALUES ($u);
SELECT count(*) FROM tracked WHERE user_id = $u;
INSERT INTO "My Schema"."Odd ""Table""" ("User Id", "it's") VALUES ($u, $c);
SELECT count(*) FROM "My Schema"."Odd ""Table""" WHERE "User Id" = $u;
SELECT count(*) FROM "My Schema"."Odd ""Table""" WHERE "it's" = $c;
INSERT INTO ev VALUES ($i * 60, $u);
SELECT count(*) FROM ev WHERE user_id = $u;
INSERT INTO outbox VALUES ($i, 0);
UPDATE outbox SET tries = tries + 1 WHERE msg = $i;
};
	$sql[$i > 15] .= "SELECT count(*) FROM notif WHERE kind = $i % 4;\n" if $i <= 10;
}
# 600 writes: over 60 a minute for the next 10 minutes, valgrind runs included.
for my $i (1 .. 600)
{
	$sql[$i > 300] .= qq{INSERT INTO feed (at) VALUES ($i);
SELECT count(*) FROM feed WHERE at > 0;
INSERT INTO popular (at) VALUES ($i);
INSERT INTO ledger (amount) VALUES ('@{[ $i % 3 ]}');
SELECT count(*) FROM ledger WHERE amount = '@{[ $i % 3 ]}'::money;
} . "SELECT count(*) FROM popular WHERE at > 0;\n" x 3;
}
$sql[1] .= q{INSERT INTO quiet (user_id) VALUES (1);
SELECT count(*) FROM quiet WHERE user_id = 1;
SELECT count(*) FROM quiet WHERE user_id = 2;
};
$node->safe_psql('app', a_minute_ago() . $sql[0]);
$node->safe_psql('app', $sql[1]);

my $odd = q{'"My Schema"."Odd ""Table"""'::regclass};
my ($ret, $stdout, $stderr) = run_advisor(valgrind_advisor('--max-indexes=0', $conn));
is($ret, 0, 'cache settings alone: exit 0 (valgrind)');
like($stderr, qr/^sfcache-advisor: 0 indexes and 7 cache settings suggested/m, 'summary');
like($stdout, qr/^-- migration: 0 indexes, 7 cache settings$/m, 'header');
my @stmts = grep { /^SELECT sfcache\./ } split /\n/, $stdout;
is_deeply(\@stmts, [
	qq{SELECT sfcache.track($odd, 'User Id');},
	qq{SELECT sfcache.track($odd, 'it''s');},
	q{SELECT sfcache.track('"public"."ev"'::regclass, 'user_id');},
	q{SELECT sfcache.exclude('"public"."feed"'::regclass);},
	q{SELECT sfcache.exclude('"public"."ledger"'::regclass);},
	q{SELECT sfcache.track('"public"."notif"'::regclass, 'course_id');},
	q{SELECT sfcache.track('"public"."notif"'::regclass, 'user_id');},
], 'track the two best varying "=" columns (a partitioned table: its root), exclude unread or untrackable tables, quoted; nothing for tracked, popular, quiet, status, kind, nor for outbox (only its own UPDATE filters it)');
like($stdout, qr/^-- track public\.notif\.user_id: the table is written [\d.]+ times a minute \(30 writes\); statements compare the column with = to varying values\n-- statements: 1, 30 calls \(sampled\)\n-- {3}query id -?\d+ \(result cache: \d+ calls, \d+ hits\): SELECT count\(\*\) FROM notif WHERE user_id = \$1 AND status = \$2\nSELECT/m,
	'track evidence: writes, rate, statements, calls and text');
like($stdout, qr/^-- exclude public\.feed: the table is written [\d.]+ times a minute \(600 writes\) and no statement compares a column that can be tracked with = to varying values\n-- statements: 1, 600 calls \(sampled\)\n-- {3}query id -?\d+ \(result cache: \d+ calls, 0 hits\): SELECT count\(\*\) FROM feed WHERE at > \$1\n-- result cache: [1-9]\d* results stored, 0 hits: cached results die before they are read\nSELECT/m,
	'exclude evidence: stores and hits of the statements reading it');
like($stdout, qr/^-- exclude public\.ledger: .*\n.*\n.*amount = \$1::money\n-- result cache: [1-9]\d* results stored/m,
	'a money column cannot be tracked: its table is excluded');

# JSON
($ret, $stdout) = run_advisor(valgrind_advisor('--format=json', '--max-indexes=0', '-q', $conn));
is($ret, 0, 'json (valgrind)');
my $doc = decode_json($stdout);
is(scalar @{ $doc->{cache_settings} }, 7, 'json: seven cache settings');
my ($feed) = grep { $_->{table} eq 'feed' } @{ $doc->{cache_settings} };
# admission keeps a result from its key's second miss on: one fewer store
is_deeply([ @$feed{qw(action column writes hits calls)} ], [ 'exclude', undef, 600, 0, 600 ],
	'json: exclude with its evidence');
cmp_ok($feed->{stores}, '>=', 599, 'json: the stores that died unread');
my ($user) = grep { ($_->{column} // '') eq 'User Id' } @{ $doc->{cache_settings} };
is($user->{schema} . '|' . $user->{table}, 'My Schema|Odd "Table"', 'json: names as they are');
is($user->{down}, qq{SELECT sfcache.untrack($odd, 'User Id');}, 'json: down');

# Django: one RunSQL per setting.
($ret, $stdout) = run_advisor(valgrind_advisor('--format=django', '--max-indexes=0', '-q', $conn));
is($ret, 0, 'django (valgrind)');
is(scalar(() = $stdout =~ /migrations\.RunSQL\(/g), 7, 'django: seven RunSQL');
like($stdout, qr/^        # exclude public\.feed: .*\n(        # .*\n)+        migrations\.RunSQL\(\n            sql=\[\n                'DO \\'BEGIN IF EXISTS \(SELECT FROM pg_catalog\.pg_extension WHERE extname OPERATOR\(pg_catalog\.=\) \\'\\'sfcache\\'\\'\) THEN PERFORM sfcache\.exclude\(\\'\\'"public"\."feed"\\'\\'::regclass\); END IF; END\\';',\n            \],\n            reverse_sql=\[\n                'DO \\'BEGIN IF EXISTS [^\n]+ THEN PERFORM sfcache\.include\(\\'\\'"public"\."feed"\\'\\'::regclass\); END IF; END\\';',/m,
	'django: exclude and include, each only where sfcache is installed');

# Options
for my $opt ('--no-cache-settings', '--no-ttl')
{
	command_checks_all(advisor('--max-indexes=0', $opt, $conn), 0,
		[ qr/^-- options: --format=sql --no-cache-settings --max-indexes=0 --min-calls=2$/m, qr/^(?!.*SELECT sfcache\.)/s ],
		[qr/nothing to suggest/], "$opt: no cache settings, exit 0");
}
($ret, $stdout) = run_advisor(advisor('--max-indexes=0', '--table=notif', $conn));
is(scalar(() = $stdout =~ /^SELECT sfcache\./mg), 2, '--table: only that table');

# Up and down with psql.
my $up = $node->basedir . '/up.sql';
my $down = $node->basedir . '/down.sql';
command_exit_is(advisor('--max-indexes=0', '-q', '-o', $up, $conn), 0, 'write up');
command_exit_is(valgrind_advisor('--max-indexes=0', '-q', '--down', '-o', $down, $conn), 0,
	'write down (valgrind)');
@stmts = grep { /^SELECT sfcache\./ } split /\n/, slurp_file($down);
is_deeply(\@stmts, [
	q{SELECT sfcache.untrack('"public"."notif"'::regclass, 'user_id');},
	q{SELECT sfcache.untrack('"public"."notif"'::regclass, 'course_id');},
	q{SELECT sfcache.include('"public"."ledger"'::regclass);},
	q{SELECT sfcache.include('"public"."feed"'::regclass);},
	q{SELECT sfcache.untrack('"public"."ev"'::regclass, 'user_id');},
	qq{SELECT sfcache.untrack($odd, 'it''s');},
	qq{SELECT sfcache.untrack($odd, 'User Id');},
], 'down: the reverse statements in reverse order');

my $state = q{SELECT (SELECT string_agg(relation::text || '.' || column_name || ':' || active, ' '
		ORDER BY relation::text, column_name) FROM sfcache.tracked_columns)
	|| ' / ' || COALESCE((SELECT string_agg(relid::text, ' ' ORDER BY relid::text)
		FROM sfcache.relation_settings WHERE excluded), '')};
sub psql_file
{
	my ($file) = @_;
	my ($r, $out, $err) = $node->psql('app', undef,
		extra_params => [ '-v', 'ON_ERROR_STOP=1', '-f', $file ]);
	return ($r, $err);
}
my ($r, $err) = psql_file($up);
is("$r $err", '0 ', 'the up migration applies with psql, without errors or notices');
is($node->safe_psql('app', $state),
	q{"My Schema"."Odd ""Table""".User Id:true "My Schema"."Odd ""Table""".it's:true ev.user_id:true ev_1.user_id:true ev_2.user_id:true notif.course_id:true notif.user_id:true tracked.user_id:true / feed ledger},
	'after up: the columns tracked and active, the tables excluded');
command_checks_all(advisor('--max-indexes=0', $conn), 0, [qr/^-- nothing to suggest$/m],
	[qr/nothing to suggest/], 'after up: no cache setting left to suggest');
($r, $err) = psql_file($down);
is("$r $err", '0 ', 'the down migration applies with psql');
is($node->safe_psql('app', $state), 'tracked.user_id:true / ',
	'after down: only what was tracked before, nothing excluded');

# A column with few distinct values is not tracked when a more selective
# candidate is compared by every statement that compares it: the cache
# depends on user_id only for WHERE user_id = .. AND status = ..
# (cache_tags.c). Without statistics both would be (the rule needs
# pg_stats).
# a write rate needs writes a minute apart (sustained traffic, not one load)
$node->safe_psql('app', a_minute_ago() . q{
CREATE TABLE inbox (id serial PRIMARY KEY, user_id int NOT NULL, status text NOT NULL);
INSERT INTO inbox (user_id, status) SELECT g % 100, (ARRAY['unread', 'read'])[g % 2 + 1]
FROM generate_series(1, 500) g;
ANALYZE inbox;
});
my $sql = "SET sfcache.cache = on;\n";
for my $i (1 .. 30)
{
	my $u = $i % 7;
	my $st = $i % 2 ? 'unread' : 'read';
	$sql .= qq{INSERT INTO inbox (user_id, status) VALUES ($u, '$st');
SELECT count(*) FROM inbox WHERE user_id = $u AND status = '$st';
};
}
$node->safe_psql('app', $sql);
($ret, $stdout) = run_advisor(advisor('--max-indexes=0', '--table=inbox', $conn));
is_deeply(
	[ grep { /^SELECT sfcache\./ } split /\n/, $stdout ],
	[q{SELECT sfcache.track('"public"."inbox"'::regclass, 'user_id');}],
	'user_id (100 distinct values) is tracked, status (2), compared by the same statement, is not');

$node->stop;
done_testing();
