# Tracked columns are catalog state (a trigger per table): they survive a
# restart, and pg_dump and pg_restore carry them to another database,
# where the restored table's writes invalidate by value again. The
# restore's CREATE EXTENSION is what turns the cache on in that database. (A logical
# replication subscriber's commits drop every result: 004_logical_subscriber.pl.)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('tracking');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'sfcache'\nsfcache.cache = on\nsfcache.admission = off");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION sfcache;
	CREATE TABLE notif (id int PRIMARY KEY, user_id int, body text);
	INSERT INTO notif SELECT g, g % 10, 'n' FROM generate_series(1, 100) g;
	CREATE TABLE event (id int, user_id int, kind text) PARTITION BY LIST (kind);
	CREATE TABLE event_a PARTITION OF event FOR VALUES IN ('a');
	SELECT sfcache.track('notif', 'user_id');
	SELECT sfcache.track('event', 'user_id');
});

# The outcome of the next execution: hit (kept) or leader (recomputed).
sub outcome
{
	my ($db, $query) = @_;
	my $plan = $node->safe_psql($db,
		"EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) $query");
	return $plan =~ /Cache: (\w+)/ ? $1 : $plan;
}

# Reads user 7, writes user 5: user 7's result is kept, user 5's dropped.
sub check_by_value
{
	my ($db, $label) = @_;
	my $r7 = 'SELECT count(*) FROM notif WHERE user_id = 7';
	my $r5 = 'SELECT count(*) FROM notif WHERE user_id = 5';
	$node->safe_psql($db, $r7);
	$node->safe_psql($db, $r5);
	my $before = $node->safe_psql($db, $r5);
	$node->safe_psql($db, "INSERT INTO notif VALUES ((SELECT max(id) + 1 FROM notif), 5, 'x')");
	is(outcome($db, $r7), 'hit', "$label: a write for user 5 keeps user 7's result");
	is(outcome($db, $r5), 'leader', "$label: and drops user 5's");
	is($node->safe_psql($db, $r5), $before + 1, "$label: which sees the write");
}

check_by_value('postgres', 'before restart');

$node->restart;
is($node->safe_psql('postgres', 'SELECT relation || ' . "'.'" . ' || column_name || active FROM sfcache.tracked_columns ORDER BY 1'),
	"event.user_idtrue\nevent_a.user_idtrue\nnotif.user_idtrue", 'tracking survives a restart');
check_by_value('postgres', 'after restart');

# pg_dump | pg_restore into a new database
my $dump = $node->basedir . '/tracked.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $node->connstr('postgres') ], 'pg_dump');
$node->safe_psql('postgres', 'CREATE DATABASE restored');
$node->safe_psql('restored', 'CREATE TABLE before_restore (id int); INSERT INTO before_restore VALUES (1)');
unlike($node->safe_psql('restored', 'EXPLAIN SELECT id FROM before_restore WHERE id = 1'),
	qr/sfcache/, 'before the restore, the database has no extension: no cache node');
$node->command_ok([ 'pg_restore', '-d', $node->connstr('restored'), $dump ], 'pg_restore');
# the dump's CREATE EXTENSION turned the cache on there, for a new session
$node->safe_psql('restored', 'SELECT id FROM before_restore WHERE id = 1');
is(outcome('restored', 'SELECT id FROM before_restore WHERE id = 1'), 'hit',
	'pg_restore of a database that had the extension turns the cache on');
is($node->safe_psql('restored', 'SELECT relation || ' . "'.'" . ' || column_name || active FROM sfcache.tracked_columns ORDER BY 1'),
	"event.user_idtrue\nevent_a.user_idtrue\nnotif.user_idtrue", 'tracking is restored, active');
is($node->safe_psql('restored', 'SELECT count(*) FROM notif'),
	$node->safe_psql('postgres', 'SELECT count(*) FROM notif'), 'rows restored');
check_by_value('restored', 'restored');

$node->stop;
done_testing();
