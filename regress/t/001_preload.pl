# sfcache refuses to load unless preloaded, and its shared memory is created
# anew on restart and after a backend crash.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('preload');
$node->init;
$node->start;

my ($ret, $stdout, $stderr) =
  $node->psql('postgres', 'CREATE EXTENSION sfcache');
isnt($ret, 0, 'CREATE EXTENSION fails without preloading');
like($stderr, qr/sfcache must be loaded via "shared_preload_libraries"/,
	'the error names the reason');
like($stderr, qr/HINT:.*shared_preload_libraries/, 'the hint says what to do');

$node->append_conf('postgresql.conf',
	"shared_preload_libraries = 'sfcache'\nrestart_after_crash = on");
$node->restart;
$node->safe_psql('postgres', 'CREATE EXTENSION sfcache');
is($node->safe_psql('postgres', 'SELECT sfcache.version()'),
	$node->safe_psql('postgres',
		"SELECT extversion FROM pg_extension WHERE extname = 'sfcache'"),
	'library and SQL script agree on the version');

my $started = $node->safe_psql('postgres', 'SELECT sfcache.started_at()');
$node->restart;
my $after_restart = $node->safe_psql('postgres', 'SELECT sfcache.started_at()');
isnt($after_restart, $started, 'a restart creates shared memory anew');

# kill -9 of a backend makes the postmaster reinitialise shared memory.
my $victim = $node->background_psql('postgres');
my $victim_pid = $victim->query_safe('SELECT pg_backend_pid()');
kill 'KILL', $victim_pid;
$victim->quit;
$node->poll_query_until('postgres',
	"SELECT sfcache.started_at() <> '$after_restart'::timestamptz")
  or die 'server did not come back after the crash';
pass('the server restarts clean after a backend is killed');
is($node->safe_psql('postgres', 'SELECT sfcache.version()'),
	$node->safe_psql('postgres',
		"SELECT extversion FROM pg_extension WHERE extname = 'sfcache'"),
	'sfcache works after the crash restart');

# The isolation tests' pause points are refused on a server not started
# for sfcache's tests (sfcache.enable_test_holds), and hidden from SHOW ALL.
my ($out, $err);
($ret, $out, $err) = $node->psql('postgres', 'SET sfcache.test_hold_leader_lock = 42');
isnt($ret, 0, 'sfcache.test_hold_* is refused outside the test configuration');
like($err, qr/ERROR:  the sfcache.test_hold_\* settings are for sfcache's own tests\nHINT:  They need sfcache.enable_test_holds = on at server start/,
	'with a message that says why');
is($node->safe_psql('postgres', 'SET sfcache.test_hold_leader_lock = 0; SHOW sfcache.test_hold_leader_lock'),
	'0', '0 (no hold) is accepted');
($ret, $out, $err) = $node->psql('postgres', "SET sfcache.test_activity_age = '61s'");
isnt($ret, 0, 'sfcache.test_activity_age is refused outside the test configuration');
like($err, qr/ERROR:  sfcache.test_activity_age is for sfcache's own tests/,
	'with a message that says why');
($ret, $out, $err) = $node->psql('postgres', "SET sfcache.test_added_cache_time = '1s'");
isnt($ret, 0, 'sfcache.test_added_cache_time is refused outside the test configuration');
like($err, qr/ERROR:  sfcache.test_added_cache_time is for sfcache's own tests\nHINT:  It needs sfcache.enable_test_holds = on/,
	'with a message that says why');
unlike($node->safe_psql('postgres', 'SHOW ALL'), qr/test_hold|enable_test_holds|test_activity_age|test_added_cache_time/,
	'SHOW ALL does not list the test-only settings');

# A misspelt sfcache.* name in postgresql.conf is warned about at start,
# with the setting it most likely meant, and the server runs on.
my $typo_offset = -s $node->logfile;
$node->append_conf('postgresql.conf', "sfcache.memroy = 128\nsfcache.no_such_thing = on");
$node->restart;
my $typo_log = slurp_file($node->logfile, $typo_offset);
like($typo_log, qr/WARNING:  sfcache has no setting "sfcache\.memroy": it is ignored\n(?:.*\n)?.*DETAIL:  The server runs with the default value of "sfcache\.memory" unless it is set elsewhere\.\n(?:.*\n)?.*HINT:  Did you mean "sfcache\.memory"\?/,
	'a misspelt setting: a warning naming the setting it meant');
like($typo_log, qr/WARNING:  sfcache has no setting "sfcache\.no_such_thing": it is ignored/,
	'a name like no setting: a warning too');
is($node->safe_psql('postgres', 'SHOW sfcache.memory'), '64MB', 'the server runs with the default');
$node->adjust_conf('postgresql.conf', 'sfcache.memroy', undef);
$node->adjust_conf('postgresql.conf', 'sfcache.no_such_thing', undef);

# More sfcache.memory than the machine has: the server does not start, and
# says which setting to lower.
$node->append_conf('postgresql.conf', "sfcache.memory = '1TB'");
$node->stop;
my $memory_offset = -s $node->logfile;
ok(!$node->start(fail_ok => 1), 'sfcache.memory = 1TB: the server refuses to start');
like(slurp_file($node->logfile, $memory_offset),
	qr/FATAL:  sfcache\.memory \(1048576 MB\) is more than this machine's memory \(\d+ MB\)\n(?:.*\n)?.*DETAIL:  .*\n(?:.*\n)?.*HINT:  Lower sfcache\.memory in postgresql\.conf/,
	'the message names sfcache.memory and the machine\'s memory');
$node->adjust_conf('postgresql.conf', 'sfcache.memory', undef);
$node->start;

# The bus worker stops on SIGTERM with exit code 1, as PostgreSQL's own
# logical replication launcher does (no FATAL): after a SIGTERM that is not
# a shutdown (pg_terminate_backend() cannot reach it: it has no database)
# the postmaster starts it again.
my $bus_pid = $node->safe_psql('postgres', 'SELECT worker_pid FROM sfcache.bus');
like($bus_pid, qr/^\d+$/, 'the bus worker runs, without Redis');
kill 'TERM', $bus_pid;
ok($node->poll_query_until('postgres',
	"SELECT worker_pid IS NOT NULL AND worker_pid <> $bus_pid FROM sfcache.bus"),
	'a terminated bus worker is started again');

# A clean shutdown logs no FATAL nor ERROR of sfcache's (its bus worker
# runs even without Redis, and stops at the shutdown request). A client
# backend that has yet to read its psql's goodbye when the fast shutdown
# comes (a loaded machine) logs PostgreSQL's own "terminating connection
# due to administrator command": not sfcache's, so not counted.
my $log_offset = -s $node->logfile;
$node->restart;
$node->stop;
my $shutdown_log = slurp_file($node->logfile, $log_offset);
like($shutdown_log, qr/database system is shut down/, 'the server was shut down cleanly');
my @bad_lines = grep { !/FATAL:  terminating connection due to administrator command$/ }
  grep { /(?:FATAL|ERROR|PANIC):/ } split /\n/, $shutdown_log;
is(join("\n", @bad_lines), '', 'a clean start and shutdown log no FATAL or ERROR');

done_testing();
