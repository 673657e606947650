# Late joiners of the shared result tier (doc/DESIGN.md, "Late joiners"):
# a standby that joined the primary's stream of commits after an entry was
# put checks that entry against the changes the primary publishes in Redis
# (a hash per cluster and timeline: k, r, w and a field per counter).
# A primary and its streaming hot standby, on a private redis-server.
#  - the primary keeps the hash: r is this Redis's run id, k its knowledge
#    start;
#  - a restarted standby is served an entry the primary put before it
#    restarted;
#  - it is refused after a write the standby was not told of (it was down);
#  - it is refused after DEL of the hash, which the primary's next message
#    creates again with k past every commit before it;
#  - the primary with the tier off deletes the hash: refused; turned on
#    again, it raises k past the entries at its connection;
#  - Redis restarted on its old data (a SAVE, then a write published, then
#    the restart): the hash has lost the write's raise, but the primary's
#    connection raises k, so the older entry is refused, not served stale
#    to a standby restarted after;
#  - a hash written on another Redis run (r is not this Redis's run id):
#    refused, where the same entry was served a moment before;
#  - the same under the WAL's rule (sfcache.wal_invalidations): served after
#    the standby's join, refused after a write it replayed before a
#    restartpoint and restarted past (only the hash knows of it).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use CacheStats;
use RedisTest;
use Time::HiRes qw(usleep);

my $redis = RedisTest->new;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', $redis->tier_conf('primary'));
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION sfcache;
	CREATE TABLE course (id int PRIMARY KEY, title text);
	CREATE TABLE other (id int);
	INSERT INTO course SELECT i, 'c' || i || ' v0' FROM generate_series(1, 20) i;
});
$primary->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'b', has_streaming => 1);
$standby->append_conf('postgresql.conf', "sfcache.node_name = 'standby'\n");
$standby->start;

sub q_course { my ($id) = @_; return "SELECT title FROM course WHERE id = $id"; }

sub catch_up
{
	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
}

sub wait_caching
{
	my ($what) = @_;
	ok( $primary->poll_query_until('postgres',
			"SELECT state = 'connected' FROM sfcache.bus"),
		"the primary is on the bus: $what");
	catch_up();
	ok( $standby->poll_query_until('postgres',
			"SELECT state = 'connected' AND standby_caching FROM sfcache.bus"),
		"the standby caches: $what");
}

sub restart_standby
{
	my ($what) = @_;
	$standby->restart;
	wait_caching($what);
}

# The primary's entries for these courses, put into the tier; then a
# commit to another table, so that a standby joining after it joins past
# the entries (an entry complete at the join itself needs no hash).
sub primary_computes
{
	my (@ids) = @_;
	my $stores = cstat($primary, 'shared_stores');
	$primary->safe_psql('postgres', q_course($_)) for @ids;
	is(cstat($primary, 'shared_stores'), $stores + @ids,
		'the primary puts course ' . join(', ', @ids) . ' into the tier');
	$primary->safe_psql('postgres', 'INSERT INTO other VALUES (1)');
}

# The standby reads course $id: $value, and served from the tier or not.
sub standby_reads
{
	my ($id, $value, $served, $what) = @_;
	my ($shared, $refusals) = split /\|/,
	  cstat($standby, 'shared_hits || \'|\' || shared_refusals');
	is($standby->safe_psql('postgres', q_course($id)), $value, "course $id on the standby: $value");
	if ($served)
	{
		is(cstat($standby, 'shared_hits'), $shared + 1, "served from the tier: $what");
	}
	else
	{
		is(cstat($standby, 'shared_hits'), $shared, "not served: $what");
		is(cstat($standby, 'shared_refusals'), $refusals + 1, "refused: $what");
	}
}

sub hash_name { return $redis->cli('--scan', '--pattern', 'sfc:*:c:*'); }

# Wait until the hash exists ($want 1) or is gone (0); true if it did.
sub wait_for_hash
{
	my ($want) = @_;
	for (1 .. 400)
	{
		return 1 if (hash_name() ne '') == ($want == 1);
		usleep(50_000);
	}
	return 0;
}

# an LSN as the hash writes it (16 hex digits), to compare as strings
sub lsn_hex
{
	my ($lsn) = @_;
	my ($hi, $lo) = split m{/}, $lsn;
	return sprintf('%08X%08X', hex $hi, hex $lo);
}

sub insert_hex { return lsn_hex($primary->lsn('insert')); }

# Under the WAL's rule nothing orders the hash with replay: a reader wants
# w (raised by the primary's heartbeats) at or past what it replayed.
sub wait_w
{
	my ($what) = @_;
	my $want = insert_hex();
	for (1 .. 400)
	{
		return pass("w covers the primary's WAL: $what")
		  if $redis->cli('HGET', hash_name(), 'w') ge $want;
		usleep(50_000);
	}
	fail("w covers the primary's WAL: $what");
}

wait_caching('at start');
my $hash = hash_name();
like($hash, qr/^sfc:[0-9a-f]{16}:00000001:c:[0-9a-f]{8}$/,
	'the primary keeps the late joiners\' hash of its cluster and timeline');
is($redis->cli('HGET', $hash, 'r'), $redis->run_id, 'r: the run id of this Redis');
like($redis->cli('HGET', $hash, 'k'), qr/^[0-9A-F]{16}$/, 'k: its knowledge start');
like($redis->cli('HGET', $hash, 'w'), qr/^[0-9A-F]{16}$/, 'w: its last watermark');

# ---- served: nothing changed since the entry, the standby restarted after
primary_computes(1);
restart_standby('restarted after the primary put course 1');
standby_reads(1, 'c1 v0', 1, 'an entry put before the standby joined');

# ---- refused after a write the standby was not told of
primary_computes(2);
$standby->stop;
$primary->safe_psql('postgres', "UPDATE course SET title = 'c2 v1' WHERE id = 2");
$standby->start;
wait_caching('started after a write it was not told of');
standby_reads(2, 'c2 v1', 0, 'a write after the entry raised its table\'s fields');

# ---- refused after DEL of the hash; the next message creates it again
# (with k past the entry, so refused either way: the case where the hash
# stays absent is the tier-off one below)
primary_computes(3);
restart_standby('restarted after the primary put course 3');
my $before_del = insert_hex();
$redis->cli('DEL', $hash);
standby_reads(3, 'c3 v0', 0, 'the hash was deleted');
ok(wait_for_hash(1), 'the next message creates the hash again');
my $k = $redis->cli('HGET', $hash, 'k');
cmp_ok($k, 'ge', $before_del, 'with k past every commit before');

# ---- the primary's tier off: no hash; on again: k raised at its connection
# (the standby restarts after each, so that it joins: the primary's new
# incarnation would otherwise flush it, and refuse for that)
primary_computes(4, 5);
$primary->append_conf('postgresql.conf', "sfcache.redis_results = off\n");
$primary->reload;
ok(wait_for_hash(0), 'the primary with the tier off deletes the hash');
restart_standby('restarted after the primary turned the tier off');
standby_reads(4, 'c4 v0', 0, 'there is no hash');
my $before_on = insert_hex();
$primary->append_conf('postgresql.conf', "sfcache.redis_results = on\n");
$primary->reload;
ok(wait_for_hash(1), 'the tier on again: the primary creates the hash');
cmp_ok($redis->cli('HGET', $hash, 'k'), 'ge', $before_on, 'with k past every commit before');
restart_standby('restarted after the primary turned the tier on');
standby_reads(5, 'c5 v0', 0, 'older than the knowledge start of the hash');

# ---- Redis restarted on its old data: the write's raise is lost
primary_computes(6);
$redis->cli('SAVE');
my $old_run = $redis->run_id;
$primary->safe_psql('postgres', "UPDATE course SET title = 'c6 v1' WHERE id = 6");
my $before_restart = insert_hex();
# the write's message is out (its raise is in the hash, not in the dump) once
# a watermark past it is
my $published = 0;
for (1 .. 400)
{
	$published = 1, last if $redis->cli('HGET', $hash, 'w') ge $before_restart;
	usleep(50_000);
}
ok($published, 'the write was published');
$redis->kill9;
$redis->start;
isnt($redis->run_id, $old_run, 'Redis restarted, with a new run id');
isnt($redis->cli('--scan', '--pattern', 'sfc:*:r:*'), '',
	'on its old data: the entries are back');
# restarted, the standby knows nothing of the write but what the hash says
restart_standby('restarted after Redis restarted');
is($redis->cli('HGET', $hash, 'r'), $redis->run_id, 'the primary wrote r again at its connection');
cmp_ok($redis->cli('HGET', $hash, 'k'), 'ge', $before_restart, 'and k past every commit before');
standby_reads(6, 'c6 v1', 0, 'the entry from before the lost write');

# ---- a hash written on another Redis run: refused
primary_computes(7, 8);
restart_standby('restarted after the primary put courses 7 and 8');
standby_reads(7, 'c7 v0', 1, 'the same hash, this Redis\'s run id');
$redis->cli('HSET', $hash, 'r', 'another-run');
standby_reads(8, 'c8 v0', 0, 'r is not this Redis\'s run id');

# ---- under the WAL's rule (sfcache.wal_invalidations on the primary): the
# standby trusts its WAL from the first sfcache record of its new stream,
# its join; the hash is read the same way, its w covering the replay
$primary->append_conf('postgresql.conf', "sfcache.wal_invalidations = on\n");
$primary->restart;
wait_caching('the primary restarted with the WAL\'s invalidations');
primary_computes(9, 10);
restart_standby('restarted after the primary put courses 9 and 10');
# the first record of the new stream: the standby trusts its WAL from here
$primary->safe_psql('postgres', 'INSERT INTO other VALUES (2)');
catch_up();
wait_w('after the standby\'s join');
standby_reads(9, 'c9 v0', 1, 'under the WAL\'s rule, an entry put before the join');
# a write the standby replays before a restartpoint, then restarts past it:
# its counters do not know the write, only the hash does
primary_computes(11);
$primary->safe_psql('postgres', "UPDATE course SET title = 'c11 v1' WHERE id = 11");
$primary->safe_psql('postgres', 'CHECKPOINT');
catch_up();
$standby->safe_psql('postgres', 'CHECKPOINT');
$standby->restart;
$primary->safe_psql('postgres', 'INSERT INTO other VALUES (3)');
wait_caching('restarted past a write, under the WAL\'s rule');
wait_w('after the restart');
standby_reads(11, 'c11 v1', 0, 'under the WAL\'s rule, after a write it replayed before restarting');

done_testing();
