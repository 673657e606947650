# The README's uninstall, followed literally, leaves nothing behind:
# DROP EXTENSION sfcache without CASCADE in a database with tracked tables
# (plain and partitioned) and recorded advice, then sfcache out of
# shared_preload_libraries and a restart: no schema, trigger, function or
# advice file of sfcache's is left.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('uninstall');
$node->init;
$node->append_conf('postgresql.conf',
	"shared_preload_libraries = 'sfcache'\nsfcache.advice_sample_rate = 1");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION sfcache;
	CREATE TABLE note (id int PRIMARY KEY, user_id int, tags jsonb);
	INSERT INTO note SELECT g, g % 50, jsonb_build_array(g % 7) FROM generate_series(1, 2000) g;
	CREATE TABLE event (id int, at date) PARTITION BY RANGE (at);
	CREATE TABLE event_2026 PARTITION OF event FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
	SELECT sfcache.track('note', 'user_id');
	SELECT sfcache.track('event', 'id');
	ANALYZE note;
});
# statements cached, and advice recorded (a jsonb containment with no GIN index)
$node->safe_psql('postgres', q{SELECT count(*) FROM note WHERE tags @> '[3]'}) for 1 .. 3;
$node->safe_psql('postgres', 'SELECT count(*) FROM note WHERE user_id = 7');
ok($node->safe_psql('postgres', 'SELECT count(*) FROM sfcache.advice_quals') > 0,
	'advice was recorded before the uninstall');
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_trigger WHERE tgname = 'sfcache_capture'}),
	'3', 'capture triggers on the tracked table, the partitioned one and its partition');

# A DROP rolled back to a savepoint drops nothing, nor forgets anything.
my $statements = $node->safe_psql('postgres', 'SELECT count(*) FROM sfcache.statements');
$node->safe_psql('postgres', 'BEGIN; SAVEPOINT a; DROP EXTENSION sfcache; ROLLBACK TO a; COMMIT;');
is($node->safe_psql('postgres', "SELECT count(*) >= $statements FROM sfcache.statements"),
	't', 'DROP EXTENSION rolled back to a savepoint: the statements are kept');
ok($node->safe_psql('postgres', 'SELECT count(*) FROM sfcache.advice_quals') > 0,
	'and the advice');

# README, "Uninstall": the statement as written
my ($ret, $out, $err) = $node->psql('postgres', 'DROP EXTENSION sfcache;');
is($ret, 0, 'DROP EXTENSION sfcache works without CASCADE in a database with tracked tables');
is($err, '', 'and says nothing');
is($node->safe_psql('postgres', q{
	SELECT (SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'sfcache%')
		 + (SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'sfcache%')
		 + (SELECT count(*) FROM pg_proc WHERE proname LIKE 'sfcache%')
		 + (SELECT count(*) FROM pg_event_trigger WHERE evtname LIKE 'sfcache%')}),
	'0', 'no schema, trigger, function or event trigger of sfcache is left');
is($node->safe_psql('postgres', 'SELECT count(*) FROM note WHERE user_id = 7'), '40',
	'the tables are untouched');
$node->safe_psql('postgres', 'INSERT INTO note VALUES (3000, 7, NULL); INSERT INTO event VALUES (1, DATE \'2026-05-01\')');
pass('writes to the formerly tracked tables work');

# DROP EXTENSION IF EXISTS without sfcache leaves a schema of that name alone
$node->safe_psql('postgres', 'CREATE SCHEMA sfcache');
$node->safe_psql('postgres', 'DROP EXTENSION IF EXISTS sfcache');
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_namespace WHERE nspname = 'sfcache'}),
	'1', 'DROP EXTENSION IF EXISTS with no sfcache drops no schema');
$node->safe_psql('postgres', 'DROP SCHEMA sfcache');

# "then remove sfcache from shared_preload_libraries, restart"
$node->adjust_conf('postgresql.conf', 'shared_preload_libraries', "''");
$node->restart;
ok(!-e $node->data_dir . '/pg_stat/sfcache_advice.stat',
	'no advice file is left in the data directory');
is($node->safe_psql('postgres', 'SELECT count(*) FROM note'), '2001', 'the server runs without sfcache');

# The extension dropped in one database of two: the other's advice is kept.
$node->adjust_conf('postgresql.conf', 'shared_preload_libraries', "'sfcache'");
$node->restart;
$node->safe_psql('postgres', 'CREATE DATABASE other');
for my $db ('postgres', 'other')
{
	$node->safe_psql($db, q{
		CREATE EXTENSION sfcache;
		CREATE TABLE IF NOT EXISTS doc (id int, tags jsonb);
		INSERT INTO doc SELECT g, jsonb_build_array(g % 7) FROM generate_series(1, 2000) g;
		ANALYZE doc;
		SELECT count(*) FROM doc WHERE tags @> '[3]';
		SELECT count(*) FROM doc WHERE tags @> '[3]';});
}
$node->safe_psql('postgres', 'DROP EXTENSION sfcache');
$node->restart;
is($node->safe_psql('other', q{SELECT count(*) > 0 FROM sfcache.advice_quals WHERE tablename = 'doc'}),
	't', 'the other database\'s advice survives a clean restart');
$node->safe_psql('postgres', 'CREATE EXTENSION sfcache');
is($node->safe_psql('postgres', 'SELECT count(*) FROM sfcache.advice_quals'),
	'0', 'the dropping database\'s advice was forgotten, not restored');

$node->stop;
done_testing();
