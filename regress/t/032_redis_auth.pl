# The Redis bus against a Redis that requires a password: the password from
# sfcache.redis_password_file or the URL connects; a wrong one is refused
# without any query failing; the password never appears in SHOW,
# pg_settings, sfcache.bus or sfcache's log lines; an invalid URL is
# rejected with a hint.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use RedisTest;

my $secret = 'Sfc-S3cret-Pw';
my $redis = RedisTest->new;
$redis->cli('CONFIG', 'SET', 'requirepass', $secret);
my $url = $redis->url;

my $dir = PostgreSQL::Test::Utils::tempdir();
my $pwfile = "$dir/redis.pass";
PostgreSQL::Test::Utils::append_to_file($pwfile, "$secret\n");

my $node = PostgreSQL::Test::Cluster->new('auth');
$node->init;
$node->append_conf('postgresql.conf',
	"shared_preload_libraries = 'sfcache'\n"
	  . "sfcache.admission = off\n"   # every result kept from its first miss
	  . "sfcache.redis_url = '$url'\n"
	  . "sfcache.redis_password_file = '$pwfile'\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION sfcache;
	CREATE TABLE course (id int PRIMARY KEY, title text);
	INSERT INTO course VALUES (1, 'one');
});

sub bus { return $node->safe_psql('postgres', "SELECT $_[0] FROM sfcache.bus"); }

ok($node->poll_query_until('postgres', "SELECT state = 'connected' FROM sfcache.bus"),
	'the password from sfcache.redis_password_file connects');

# An unreachable Redis, its URL holding a password: masked everywhere.
$node->append_conf('postgresql.conf', "sfcache.redis_password_file = '$dir/missing'\n"
	  . "sfcache.redis_url = 'redis://wrong\@localhost:1/0'\n");
$node->reload;
ok($node->poll_query_until('postgres', "SELECT state = 'connecting' FROM sfcache.bus"),
	'an unreachable Redis leaves the bus connecting');
is(bus('redis_url'), 'redis://***@localhost:1/0', 'sfcache.bus masks the password');
is($node->safe_psql('postgres', 'SHOW sfcache.redis_url'), 'redis://***@localhost:1/0',
	'SHOW masks it');
is( $node->safe_psql('postgres',
		"SELECT setting || ' ' || reset_val FROM pg_settings WHERE name = 'sfcache.redis_url'"),
	'redis://***@localhost:1/0 redis://***@localhost:1/0',
	'pg_settings masks setting and reset_val');

# A wrong password (from the file, so that no configuration line holds it).
PostgreSQL::Test::Utils::append_to_file("$dir/wrong.pass", "wrong-pw\n");
$node->append_conf('postgresql.conf', "sfcache.redis_password_file = '$dir/wrong.pass'\n"
	  . "sfcache.redis_url = '$url'\n");
$node->reload;
ok( $node->poll_query_until('postgres',
		"SELECT state = 'connecting' AND last_error LIKE 'AUTH%' FROM sfcache.bus"),
	'a wrong password is refused by AUTH');
for (1 .. 3)
{
	is($node->safe_psql('postgres', 'SELECT title FROM course WHERE id = 1'), 'one',
		'queries work while Redis refuses AUTH');
}
$node->safe_psql('postgres', "UPDATE course SET title = 'two' WHERE id = 1");
is($node->safe_psql('postgres', 'SELECT title FROM course WHERE id = 1'), 'two',
	'and commits, whose invalidation stays exact locally');

# Back to the right password: connected again.
$node->append_conf('postgresql.conf', "sfcache.redis_password_file = '$pwfile'\n");
$node->reload;
ok($node->poll_query_until('postgres', "SELECT state = 'connected' FROM sfcache.bus"),
	'the right password connects again');

# An invalid URL is rejected by the setting's check.
my ($ret, $out, $err) = $node->psql('postgres',
	"ALTER SYSTEM SET sfcache.redis_url = 'http://localhost'");
isnt($ret, 0, 'ALTER SYSTEM refuses an invalid URL');
like($err, qr/invalid sfcache.redis_url: it must start with redis:\/\/ or unix:\/\//,
	'saying why');
like($err, qr/HINT:  Use redis:\/\//, 'with a hint');

my $log = slurp_file($node->logfile);
unlike($log, qr/\Q$secret\E/, 'the password is never in the log');
unlike($log, qr/wrong-pw/, 'nor the wrong one');
like($log, qr/sfcache bus: cannot connect to Redis/, 'the refusal is logged');
my $count = () = $log =~ /cannot connect to Redis at "\Q$url\E"/g;
is($count, 1, 'once per change of state, not per attempt');

$node->stop;
done_testing();
