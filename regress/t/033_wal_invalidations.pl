# Invalidations carried in the WAL (sfcache.wal_invalidations = on on the
# primary, no Redis): a streaming hot standby caches and bumps its counters
# in replay order.
#  - before any sfcache record is replayed the standby does not cache;
#  - once replayed past a write it never returns the result from before it;
#  - per value: a write for student 5 keeps student 7's hit on the standby;
#  - no blind window: WAL that touches nothing cached (another table, a
#    checkpoint, a VACUUM) leaves the standby's hits;
#  - a writer whose record was replayed and whose commit record was not
#    yet: the standby computes the old value but does not store it;
#  - replay that begins between a writer's record and its commit record
#    (a restartpoint between them, the standby restarted): the standby does
#    not store until that writer ended, so it never serves the old value;
#  - a standby without the library stops at the first record, loudly, and
#    replays once the library is loaded.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use CacheStats;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf',
	"shared_preload_libraries = 'sfcache'\n"
	  . "sfcache.admission = off\n"    # every result kept from its first miss
	  . "sfcache.wal_invalidations = on\n"
	  . "sfcache.enable_test_holds = on\n"
	  . "wal_writer_delay = 10ms\n");
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION sfcache;
	CREATE TABLE course (id int PRIMARY KEY, title text);
	INSERT INTO course VALUES (1, 'v0');
	CREATE TABLE lesson (id int PRIMARY KEY, title text);
	INSERT INTO lesson VALUES (1, 'l0');
	CREATE TABLE enrollment (student_id int, course_id int);
	INSERT INTO enrollment SELECT s, c FROM generate_series(1, 9) s, generate_series(1, 3) c;
	SELECT sfcache.track('enrollment', 'student_id');
});
$primary->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'b', has_streaming => 1);
$standby->start;

my $q_course = 'SELECT title FROM course WHERE id = 1';
my $q_lesson = 'SELECT title FROM lesson WHERE id = 1';

# Run $q on the standby once it has replayed everything the primary wrote.
sub read_replayed
{
	my ($q) = @_;
	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
	return $standby->safe_psql('postgres', $q);
}

# Does $q hit on the standby (one more hit than before)?
sub hits_on_standby
{
	my ($q) = @_;
	my $hits = cstat($standby, 'hits');
	$standby->safe_psql('postgres', $q);
	return cstat($standby, 'hits') == $hits + 1;
}

# ---- no record replayed yet: the standby does not cache
my $without = bypassed($standby, 'standby without bus');
is(read_replayed($q_course), 'v0', 'standby reads');
cmp_ok(bypassed($standby, 'standby without bus'), '>', $without,
	'before any sfcache record it bypasses: nothing says the primary writes them');

# ---- a write's record: from now on the standby caches
$primary->safe_psql('postgres', "UPDATE lesson SET title = 'l1' WHERE id = 1");
is(read_replayed($q_course), 'v0', 'standby reads after the first record');
ok(hits_on_standby($q_course), 'and caches: the record is replayed');

my $stale = 0;
for my $i (1 .. 30)
{
	$standby->safe_psql('postgres', $q_course) for 1 .. 2;
	$primary->safe_psql('postgres', "UPDATE course SET title = 'v$i' WHERE id = 1");
	my $got = read_replayed($q_course);
	$stale++ if $got ne "v$i";
	diag("write $i: the standby returned $got once replayed") if $got ne "v$i";
}
is($stale, 0, 'no read on the standby returned the result from before a replayed write');
ok(hits_on_standby($q_course), 'and it hits between writes');

# ---- one commit that wrote two relations: both are invalidated (the
# record carried only the first, and a zero, when it took a List's cells
# for an array of OIDs)

# Cache both on the standby, then set their titles in one commit on the
# primary, in the order given: ([table, title], ...)
sub commit_both
{
	$standby->safe_psql('postgres', $_) for ($q_course, $q_course, $q_lesson, $q_lesson);
	$primary->safe_psql('postgres',
		join("\n", 'BEGIN;', (map { "UPDATE $_->[0] SET title = '$_->[1]' WHERE id = 1;" } @_),
			'COMMIT;'));
}
commit_both([ 'course', 'both' ], [ 'lesson', 'both' ]);
is(read_replayed($q_course) . ' ' . read_replayed($q_lesson), 'both both',
	'a commit of two relations: both changed on the standby');
commit_both([ 'lesson', 'l1' ], [ 'course', 'v30' ]);
is(read_replayed($q_lesson) . ' ' . read_replayed($q_course), 'l1 v30',
	'a commit of two relations, written the other way round: both changed on the standby');

# ---- exact: a write to course leaves lesson; per value on enrollment
$standby->safe_psql('postgres', $q_lesson) for 1 .. 2;
$primary->safe_psql('postgres', "UPDATE course SET title = 'exact' WHERE id = 1");
is(read_replayed($q_course), 'exact', 'course changed on the standby');
ok(hits_on_standby($q_lesson), 'lesson is still a hit: only course was invalidated');

my $q_student5 = 'SELECT count(*) FROM enrollment WHERE student_id = 5';
my $q_student7 = 'SELECT count(*) FROM enrollment WHERE student_id = 7';
$standby->safe_psql('postgres', $_) for ($q_student5, $q_student5, $q_student7, $q_student7);
$primary->safe_psql('postgres', 'INSERT INTO enrollment VALUES (5, 4)');
is(read_replayed($q_student5), '4', 'student 5 changed on the standby');
ok(hits_on_standby($q_student7),
	'student 7 is still a hit: the record carried only student 5\'s tag');

$standby->safe_psql('postgres', $q_student7);
$primary->safe_psql('postgres',
	'INSERT INTO enrollment SELECT s, 1 FROM generate_series(100, 170) s');
my $misses = cstat($standby, 'misses');
is(read_replayed($q_student7), '3', 'student 7 after a write of 71 values');
is(cstat($standby, 'misses'), $misses + 1,
	'a miss: more tags than a record carries drop the whole relation');

# ---- no blind window: WAL that touches nothing cached leaves the hits
$standby->safe_psql('postgres', $q_course) for 1 .. 2;
$primary->safe_psql('postgres', 'CREATE TABLE scratch (x int)');
$primary->safe_psql('postgres', 'INSERT INTO scratch SELECT generate_series(1, 1000)');
$primary->safe_psql('postgres', 'VACUUM scratch');
$primary->safe_psql('postgres', 'CHECKPOINT');
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
my $behind = bypassed($standby, 'standby behind');
ok(hits_on_standby($q_course),
	'after replaying writes of another table, a VACUUM and a checkpoint: still a hit');
is(bypassed($standby, 'standby behind'), $behind, 'no bypass for being behind');

# ---- a writer between its record and its commit record

# Start a writer that stops inside its commit, after its record; return
# once the standby has replayed that record.
sub hold_writer
{
	my ($writer, $title) = @_;
	$writer->query_until(qr/held/, qq{
	BEGIN;
	UPDATE course SET title = '$title' WHERE id = 1;
	\\echo held
	COMMIT;
});
	$primary->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query = 'COMMIT;'")
	  or die 'the writer does not wait inside its commit';
	my $lsn = $primary->lsn('insert');
	# the walwriter flushes the record (the commit record is not written yet)
	$primary->poll_query_until('postgres',
		"SELECT pg_current_wal_flush_lsn() >= '$lsn'::pg_lsn")
	  or die 'the record is not flushed';
	$standby->poll_query_until('postgres',
		"SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn")
	  or die 'the standby did not replay the record';
}

my $holder = $primary->background_psql('postgres');
$holder->query_safe('SELECT pg_advisory_lock(4244)');
my $writer = $primary->background_psql('postgres');
$writer->query_safe('SET sfcache.test_hold_commit_lock = 4244');
$standby->safe_psql('postgres', $q_course) for 1 .. 2;
hold_writer($writer, 'held');
pass('the standby replayed the record of a writer inside its commit');
my $in_flight = bypassed($standby, 'commit in flight');
is($standby->safe_psql('postgres', $q_course), 'exact',
	'the commit is not visible on the standby: the old value');
is($standby->safe_psql('postgres', $q_course), 'exact', 'again');
cmp_ok(bypassed($standby, 'commit in flight'), '>=', $in_flight + 2,
	'computed, not stored: its writer is in flight');
$holder->query_safe('SELECT pg_advisory_unlock(4244)');
$writer->query_safe('SELECT 1');
is(read_replayed($q_course), 'held', 'once the commit is replayed: the new value');
ok(hits_on_standby($q_course), 'and it is stored again');

# ---- replay begins between a writer's record and its commit record
$holder->query_safe('SELECT pg_advisory_lock(4244)');
hold_writer($writer, 'restarted');
pass('a second writer waits inside its commit, its record replayed');
# a checkpoint after the record, a restartpoint on it, an immediate restart:
# replay begins past the record
$primary->safe_psql('postgres', 'CHECKPOINT');
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
$standby->safe_psql('postgres', 'CHECKPOINT');
$standby->stop('immediate');
$standby->start;
# another writer's record: the standby trusts the stream again
$primary->safe_psql('postgres', "UPDATE lesson SET title = 'l2' WHERE id = 1");
is(read_replayed($q_lesson), 'l2', 'the restarted standby replays');
$in_flight = bypassed($standby, 'commit in flight');
is($standby->safe_psql('postgres', $q_course), 'held', 'the held commit is not visible');
is($standby->safe_psql('postgres', $q_course), 'held', 'again');
cmp_ok(bypassed($standby, 'commit in flight'), '>=', $in_flight + 2,
	'not stored: a transaction older than where replay began is still running');
$holder->query_safe('SELECT pg_advisory_unlock(4244)');
$writer->query_safe('SELECT 1');
is(read_replayed($q_course), 'restarted',
	'once its commit is replayed: the new value, never the one computed before');
$writer->quit;
$holder->quit;

# ---- a standby without the library stops at the first record, loudly
$primary->backup('b2');
my $bare = PostgreSQL::Test::Cluster->new('bare');
$bare->init_from_backup($primary, 'b2', has_streaming => 1);
$bare->append_conf('postgresql.conf', "shared_preload_libraries = ''\n");
$bare->start;
$primary->safe_psql('postgres', "UPDATE course SET title = 'bare' WHERE id = 1");
my $log_offset = 0;
ok( $bare->wait_for_log(qr/resource manager with ID 128 not registered/, $log_offset),
	'a standby without sfcache stops replaying at its record, with PostgreSQL\'s message');
ok( $bare->log_contains(qr/Include the extension module that implements this resource manager in "?shared_preload_libraries"?/),
	'and says what to do');
ok( $bare->wait_for_log(qr/startup process \(PID \d+\) exited with exit code 1/, $log_offset),
	'and stops: it never shows a write it could not replay');
$bare->stop('immediate', fail_ok => 1);
$bare->append_conf('postgresql.conf', "shared_preload_libraries = 'sfcache'\n");
$bare->start;
$primary->wait_for_catchup($bare, 'replay', $primary->lsn('insert'));
is($bare->safe_psql('postgres', "SELECT title FROM course WHERE id = 1"), 'bare',
	'with the library loaded it replays on');

done_testing();
