# The Redis invalidation bus with a real redis-server on a private Unix
# socket: a primary and its streaming hot standby, and a second primary
# (another cluster) on the same channel.
#  - the standby caches, and once it has replayed a write's LSN never
#    returns the result from before the write;
#  - a write invalidates the standby's results over that table only, and
#    with a tracked column only those for the values it wrote;
#  - two primaries invalidate each other;
#  - Redis killed: no query fails, the standby bypasses, the primary keeps
#    caching; Redis back: the bus resumes with a flush;
#  - Redis stopped (SIGSTOP): a commit does not wait;
#  - a gap in a sender's sequence flushes; a duplicate is skipped;
#  - a node whose worker is stopped (SIGSTOP) loses its liveness key and
#    its peers say so; the standby bypasses while its primary is gone.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use CacheStats;
use Time::HiRes qw(usleep);
use RedisTest;

my $redis = RedisTest->new;

sub bus_conf
{
	my ($name) = @_;
	return "shared_preload_libraries = 'sfcache'\n"
	  . "sfcache.admission = off\n"   # every result kept from its first miss
	  . "sfcache.redis_url = '" . $redis->url . "'\n"
	  . "sfcache.node_name = '$name'\n"
	  . "sfcache.redis_liveness_s = 2\n";
}

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf',
	bus_conf('primary') . "max_prepared_transactions = 5\n");
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION sfcache;
	CREATE TABLE course (id int PRIMARY KEY, title text);
	INSERT INTO course VALUES (1, 'v0');
	CREATE TABLE lesson (id int PRIMARY KEY, title text);
	INSERT INTO lesson VALUES (1, 'l0');
});
$primary->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'b', has_streaming => 1);
$standby->append_conf('postgresql.conf',
	"sfcache.node_name = 'standby'\n");
$standby->start;

# An independent primary sharing the channel (another system identifier).
my $other = PostgreSQL::Test::Cluster->new('other');
$other->init;
$other->append_conf('postgresql.conf', bus_conf('other'));
$other->start;
$other->safe_psql('postgres', q{
	CREATE EXTENSION sfcache;
	CREATE TABLE course (id int PRIMARY KEY, title text);
	INSERT INTO course VALUES (1, 'elsewhere');
});

my $q_course = 'SELECT title FROM course WHERE id = 1';
my $q_lesson = 'SELECT title FROM lesson WHERE id = 1';

sub bus
{
	my ($node, $col) = @_;
	return $node->safe_psql('postgres', "SELECT $col FROM sfcache.bus");
}

sub wait_caching
{
	my ($what) = @_;
	ok( $standby->poll_query_until('postgres',
			'SELECT state = \'connected\' AND standby_caching FROM sfcache.bus'),
		"standby caches again: $what");
}

# Read on the standby once it has replayed past $lsn.
sub read_after
{
	my ($lsn, $q) = @_;
	$standby->poll_query_until('postgres',
		"SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn")
	  or die "standby did not replay $lsn";
	return $standby->safe_psql('postgres', $q);
}

$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
is(bus($standby, 'role'), 'standby', 'the standby knows it is one');
wait_caching('at start');

# ---- the standby caches, and never serves a result older than its replay
is($standby->safe_psql('postgres', $q_course), 'v0', 'standby reads');
my $hits = cstat($standby, 'hits');
is($standby->safe_psql('postgres', $q_course), 'v0', 'standby reads again');
cmp_ok(cstat($standby, 'hits'), '>', $hits, 'from its cache');

my $stale = 0;
for my $i (1 .. 40)
{
	# cache the current value on the standby, then write on the primary
	$standby->safe_psql('postgres', $q_course) for 1 .. 2;
	$primary->safe_psql('postgres', "UPDATE course SET title = 'v$i' WHERE id = 1");
	my $lsn = $primary->lsn('insert');
	my $got = read_after($lsn, $q_course);
	$stale++ if $got ne "v$i";
	diag("write $i: standby returned $got once replayed past $lsn")
	  if $got ne "v$i";
}
is($stale, 0, 'no read on the standby returned the result from before a replayed write');
cmp_ok(cstat($standby, 'hits'), '>', $hits + 40, 'and the standby served hits between writes');

# ---- one commit that wrote two relations: the message invalidates both
# (it carried only the first, and a zero, when it took a List's cells for
# an array of OIDs)

# Cache both on the standby, then set their titles in one commit on the
# primary, in the order given: ([table, title], ...); returns its LSN.
sub commit_both
{
	wait_caching('before a commit of two relations');
	$standby->safe_psql('postgres', $_) for ($q_course, $q_course, $q_lesson, $q_lesson);
	$primary->safe_psql('postgres',
		join("\n", 'BEGIN;', (map { "UPDATE $_->[0] SET title = '$_->[1]' WHERE id = 1;" } @_),
			'COMMIT;'));
	return $primary->lsn('insert');
}
my $both_lsn = commit_both([ 'course', 'both' ], [ 'lesson', 'both' ]);
is(read_after($both_lsn, $q_course) . ' ' . read_after($both_lsn, $q_lesson), 'both both',
	'a commit of two relations: both changed');
$both_lsn = commit_both([ 'lesson', 'l0' ], [ 'course', 'v40' ]);
is(read_after($both_lsn, $q_lesson) . ' ' . read_after($both_lsn, $q_course), 'l0 v40',
	'a commit of two relations, written the other way round: both changed');

# ---- exact: a write to course leaves the standby's lesson results alone
wait_caching('before the exactness check');
$standby->safe_psql('postgres', $q_lesson) for 1 .. 2;
$primary->safe_psql('postgres', "UPDATE course SET title = 'exact' WHERE id = 1");
is(read_after($primary->lsn('insert'), $q_course), 'exact', 'course changed');
wait_caching('after the write');
$hits = cstat($standby, 'hits');
is($standby->safe_psql('postgres', $q_lesson), 'l0', 'lesson read');
is(cstat($standby, 'hits'), $hits + 1, 'lesson is still a hit: only course was invalidated');

# ---- per value on the standby too: with student_id tracked, a write for
# student 5 leaves the standby's results for student 7 (the commit's tags
# travel in an sfc2 message)
$primary->safe_psql('postgres', q{
	CREATE TABLE enrollment (student_id int, course_id int);
	INSERT INTO enrollment SELECT s, c FROM generate_series(1, 9) s, generate_series(1, 3) c;
	SELECT sfcache.track('enrollment', 'student_id');
});
my $q_student5 = 'SELECT count(*) FROM enrollment WHERE student_id = 5';
my $q_student7 = 'SELECT count(*) FROM enrollment WHERE student_id = 7';
is(read_after($primary->lsn('insert'), $q_student5), '3', 'student 5 read on the standby');
wait_caching('before the per-value check');
$standby->safe_psql('postgres', $_) for ($q_student5, $q_student5, $q_student7, $q_student7);
my $rows_before = bus($standby, 'received');
$primary->safe_psql('postgres', 'INSERT INTO enrollment VALUES (5, 4)');
ok(wait_counter($standby, 'received', $rows_before), 'the write reached the standby');
is(read_after($primary->lsn('insert'), $q_student5), '4', 'student 5 changed on the standby');
wait_caching('after the per-value write');
$hits = cstat($standby, 'hits');
is($standby->safe_psql('postgres', $q_student7), '3', 'student 7 read on the standby');
is(cstat($standby, 'hits'), $hits + 1, 'student 7 is still a hit: only student 5\'s tag was invalidated');
is($standby->safe_psql('postgres', $q_student5), '4', 'student 5 read again');
$hits = cstat($standby, 'hits');
is($standby->safe_psql('postgres', $q_student5), '4', 'and again');
is(cstat($standby, 'hits'), $hits + 1, 'its new result is stored and served');

# ---- more tags than a message carries (64): the relation travels whole,
# and student 7's result drops too
$standby->safe_psql('postgres', $q_student7) for 1 .. 2;
$rows_before = bus($standby, 'received');
$primary->safe_psql('postgres',
	'INSERT INTO enrollment SELECT s, 1 FROM generate_series(100, 170) s');
my $big_lsn = $primary->lsn('insert');
ok(wait_counter($standby, 'received', $rows_before), 'the big write reached the standby');
ok( $standby->poll_query_until('postgres',
		"SELECT pg_last_wal_replay_lsn() >= '$big_lsn'::pg_lsn"),
	'the standby replayed it');
wait_caching('after the big write');
my $misses = cstat($standby, 'misses');
is($standby->safe_psql('postgres', $q_student7), '3', 'student 7 read after it');
is(cstat($standby, 'misses'), $misses + 1,
	'a miss: a commit with more tags than a message carries drops the whole relation');

# ---- the message arrives before the standby replays its commit: a result
# computed meanwhile (the old value, right for its snapshot) is not stored
wait_caching('before pausing replay');
$standby->safe_psql('postgres', $q_course) for 1 .. 2;
$standby->safe_psql('postgres', 'SELECT pg_wal_replay_pause()');
ok( $standby->poll_query_until('postgres',
		"SELECT pg_get_wal_replay_pause_state() = 'paused'"),
	'standby replay paused');
$primary->safe_psql('postgres', "UPDATE course SET title = 'paused' WHERE id = 1");
my $paused_lsn = $primary->lsn('insert');
ok($standby->poll_query_until('postgres', 'SELECT pending_relations > 0 FROM sfcache.bus'),
	'the invalidation arrived before its commit was replayed');
my $behind = bypassed($standby, 'standby behind');
is($standby->safe_psql('postgres', $q_course), 'exact', 'before replay: the old value');
is($standby->safe_psql('postgres', $q_course), 'exact', 'again');
cmp_ok(bypassed($standby, 'standby behind'), '>=', $behind + 2, 'computed, not stored');
$standby->safe_psql('postgres', 'SELECT pg_wal_replay_resume()');
is(read_after($paused_lsn, $q_course), 'paused', 'once replayed: the new value');

# ---- the standby replays a commit before its message arrives (the
# primary's worker is stopped): the cached result is not served
wait_caching('before stopping the primary\'s worker');
$standby->safe_psql('postgres', $q_course) for 1 .. 2;
my $worker = bus($primary, 'worker_pid');
like($worker, qr/^\d+$/, 'the primary runs one bus worker');
kill 'STOP', $worker;
$primary->safe_psql('postgres', "UPDATE course SET title = 'unpublished' WHERE id = 1");
is(read_after($primary->lsn('insert'), $q_course), 'unpublished',
	'replayed before its invalidation arrived: not the old result');
kill 'CONT', $worker;

# ---- PREPARE TRANSACTION publishes nothing; COMMIT PREPARED invalidates
wait_caching('before a prepared transaction');
$standby->safe_psql('postgres', $q_course) for 1 .. 2;
$primary->safe_psql('postgres', "BEGIN; UPDATE course SET title = 'prepared' WHERE id = 1;
	PREPARE TRANSACTION 'bus'");
is(read_after($primary->lsn('insert'), $q_course), 'unpublished',
	'a prepared transaction is not visible on the standby');
wait_caching('after PREPARE TRANSACTION');
$primary->safe_psql('postgres', "COMMIT PREPARED 'bus'");
is(read_after($primary->lsn('insert'), $q_course), 'prepared',
	'COMMIT PREPARED reaches the standby\'s cache');

# ---- two primaries sharing the channel invalidate each other
sub invalidates
{
	my ($writer, $reader, $what) = @_;
	$reader->safe_psql('postgres', $q_course) for 1 .. 2;
	my $misses = cstat($reader, 'misses');
	my $flushes = bus($reader, 'flushes');
	$writer->safe_psql('postgres', "UPDATE course SET title = title WHERE id = 1");
	# another cluster's relation OIDs are not ours: its commits flush
	ok($reader->poll_query_until('postgres',
			"SELECT flushes > $flushes FROM sfcache.bus"), "$what: message applied");
	$reader->safe_psql('postgres', $q_course);
	is(cstat($reader, 'misses'), $misses + 1, "$what: the result was dropped");
}
invalidates($primary, $other, 'primary -> other');
invalidates($other, $primary, 'other -> primary');
is( $primary->safe_psql('postgres',
		"SELECT count(*) FROM sfcache.bus_peers WHERE node IN ('other', 'standby') AND alive"),
	'2', 'the primary sees both peers alive');

# Ten commits on the primary in one session, the last setting $table's
# title to $title; how long they took by the server's clock (psql's start
# and connection, most of what a loaded machine adds, are outside it), or
# undef if psql did not finish. A commit that waited for the bus would wait
# for its Redis calls, which time out after one second (bus_redis.c), or for
# a stopped worker forever: ten seconds or more, where ten commits that only
# queue their message take milliseconds.
sub ten_commits
{
	my ($table, $title) = @_;
	my $sql = "SELECT clock_timestamp() AS t0 \\gset\n";
	$sql .= "UPDATE $table SET title = '$title $_' WHERE id = 1;\n" for 1 .. 9;
	$sql .= "UPDATE $table SET title = '$title' WHERE id = 1;\n";
	$sql .= "SELECT extract(epoch FROM clock_timestamp() - :'t0'::timestamptz);\n";
	my ($out, $err, $timed_out);
	my $rc = $primary->psql('postgres', $sql, stdout => \$out, stderr => \$err,
		timeout => $PostgreSQL::Test::Utils::timeout_default, timed_out => \$timed_out);
	diag("ten commits: psql exited with $rc: $err") if $rc != 0 || $timed_out;
	return ($rc == 0 && !$timed_out) ? $out : undef;
}

# ---- Redis stopped: a commit does not wait for it
$redis->signal('STOP');
my $took = ten_commits('lesson', 'while stopped');
ok(defined $took && $took < 5, 'commits with Redis stopped do not wait for it')
  or diag('ten commits took ' . ($took // 'forever') . ' s');
$redis->signal('CONT');

# ---- Redis killed: no query fails, the standby bypasses, the primary caches
$redis->kill9;
ok($standby->poll_query_until('postgres', "SELECT state <> 'connected' FROM sfcache.bus"),
	'the standby notices Redis is gone');
ok($primary->poll_query_until('postgres', "SELECT state <> 'connected' FROM sfcache.bus"),
	'the primary notices Redis is gone');
like(bus($primary, 'last_error'), qr/\S/, 'and says why');
my $without = bypassed($standby, 'standby without bus');
$primary->safe_psql('postgres', "UPDATE course SET title = 'no bus' WHERE id = 1");
is(read_after($primary->lsn('insert'), $q_course), 'no bus', 'the standby reads without the bus');
cmp_ok(bypassed($standby, 'standby without bus'), '>', $without, 'by bypassing the cache');
$primary->safe_psql('postgres', $q_course);
$hits = cstat($primary, 'hits');
is($primary->safe_psql('postgres', $q_course), 'no bus', 'the primary reads');
is(cstat($primary, 'hits'), $hits + 1, 'and still caches');
$primary->safe_psql('postgres', "UPDATE course SET title = 'primary alone' WHERE id = 1");
is($primary->safe_psql('postgres', $q_course), 'primary alone',
	'its own writes still invalidate it');

# ---- Redis back: the bus resumes with a flush
my $flushes = bus($primary, 'flushes');
$redis->start;
ok($primary->poll_query_until('postgres', "SELECT state = 'connected' FROM sfcache.bus"),
	'the primary reconnects');
cmp_ok(bus($primary, 'flushes'), '>', $flushes, 'and flushed its results');
wait_caching('after Redis came back');
$primary->safe_psql('postgres', "UPDATE course SET title = 'resumed' WHERE id = 1");
is(read_after($primary->lsn('insert'), $q_course), 'resumed', 'the standby reads the new value');
# Replayed is not yet cached: the standby bypasses until the primary's
# watermark covers its replay position (a loaded primary's worker may
# publish it after the reads above).
wait_caching('after the write it resumed with');
$standby->safe_psql('postgres', $q_course);
$hits = cstat($standby, 'hits');
$standby->safe_psql('postgres', $q_course);
is(cstat($standby, 'hits'), $hits + 1, 'and caches it');

# ---- a gap in a sender's sequence flushes; a duplicate is skipped
my $sysid = $primary->safe_psql('postgres',
	'SELECT upper(to_hex(system_identifier)) FROM pg_control_system()');
my $dbid = $primary->safe_psql('postgres',
	"SELECT oid FROM pg_database WHERE datname = 'postgres'");
my $relid = $primary->safe_psql('postgres', "SELECT 'course'::regclass::oid");

sub ghost
{
	my ($seq, $kind, $rels) = @_;
	# a primary of our cluster (it has no liveness key: soon reported gone)
	my $lsn = $primary->lsn('insert');
	$redis->cli('PUBLISH', 'sfcache',
		"sfc1 ghost 42 $sysid p $seq $lsn 0/1 $kind $dbid 0/1 $rels");
}

sub wait_counter
{
	my ($node, $col, $above) = @_;
	return $node->poll_query_until('postgres', "SELECT $col > $above FROM sfcache.bus");
}

sub ghost_seq
{
	my ($seq) = @_;
	return $primary->poll_query_until('postgres',
		"SELECT last_seq = $seq FROM sfcache.bus_peers WHERE node = 'ghost'");
}

ghost(1, 'H', '-');    # first contact: a flush
ok(ghost_seq(1), 'ghost heard');
$primary->safe_psql('postgres', $q_course) for 1 .. 2;
my $gaps = bus($primary, 'gaps');
$misses = cstat($primary, 'misses');
ghost(3, 'H', '-');    # seq 2 was lost
ok(wait_counter($primary, 'gaps', $gaps), 'a gap in the sequence is detected');
$primary->safe_psql('postgres', $q_course);
is(cstat($primary, 'misses'), $misses + 1, 'and flushed the results');

ghost(4, 'R', $relid);
ok(ghost_seq(4), 'an invalidation of course');
$primary->safe_psql('postgres', $q_course) for 1 .. 2;
my $dups = bus($primary, 'duplicates');
$hits = cstat($primary, 'hits');
ghost(4, 'R', $relid);    # delivered twice
ok(wait_counter($primary, 'duplicates', $dups), 'a duplicate is recognised');
$primary->safe_psql('postgres', $q_course);
is(cstat($primary, 'hits'), $hits + 1, 'and is harmless: the result is still served');
$redis->cli('PUBLISH', 'sfcache', 'not a message');
ok(wait_counter($primary, 'malformed', 0), 'a malformed message is counted, not applied');

# ---- a stopped node loses its liveness; the standby bypasses meanwhile
kill 'STOP', $worker;
ok( $standby->poll_query_until('postgres',
		"SELECT NOT alive FROM sfcache.bus_peers WHERE node = 'primary'"),
	'the stopped primary\'s liveness expires and the standby says so');
ok($other->poll_query_until('postgres',
		"SELECT NOT alive FROM sfcache.bus_peers WHERE node = 'primary'"),
	'and so does the other primary');
$took = ten_commits('course', 'worker stopped');
ok(defined $took && $took < 5, 'commits do not wait for a stopped worker')
  or diag('ten commits took ' . ($took // 'forever') . ' s');
$without = bypassed($standby, 'standby without bus');
is(read_after($primary->lsn('insert'), $q_course), 'worker stopped',
	'the standby reads the new value');
cmp_ok(bypassed($standby, 'standby without bus'), '>', $without,
	'bypassing while its primary is gone');
kill 'CONT', $worker;
ok( $standby->poll_query_until('postgres',
		"SELECT alive FROM sfcache.bus_peers WHERE node = 'primary'"),
	'the primary is alive again');
wait_caching('after the primary came back');

# ---- nothing in the logs but masked URLs, and no query failed
for my $node ($primary, $standby, $other)
{
	my $log = slurp_file($node->logfile);
	unlike($log, qr/ERROR:.*sfcache|PANIC|server process .* was terminated/,
		$node->name . ': no error, no crash');
}

$standby->stop;
$primary->stop;
$other->stop;
done_testing();
