# A commit that writes two or more relations must invalidate every one of
# them on a standby, through the WAL (sfcache.wal_invalidations) and through
# the Redis bus. Found by bench/soak (issue 33): the record and the bus
# message took &linitial_oid(list) as an Oid array, so only the first
# relation's results were dropped there (a table written by a trigger, or the
# second table of a transaction, stayed stale).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use RedisTest;

my $redis = RedisTest->new;
# SFCACHE_TEST_PORT=P: the nodes on P and P+1 (else free ports, as usual)
my %p1 = $ENV{SFCACHE_TEST_PORT} ? (port => $ENV{SFCACHE_TEST_PORT}) : ();
my %p2 = $ENV{SFCACHE_TEST_PORT} ? (port => $ENV{SFCACHE_TEST_PORT} + 1) : ();
my $primary = PostgreSQL::Test::Cluster->new('primary', %p1);
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf',
	"shared_preload_libraries = 'sfcache'\n"
	  . "sfcache.admission = off\n"
	  . "sfcache.wal_invalidations = on\n"
	  . "sfcache.redis_url = '" . $redis->url . "'\n"
	  . "sfcache.node_name = 'primary'\n"
	  . "wal_writer_delay = 10ms\n");
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION sfcache;
	CREATE TABLE a (k int PRIMARY KEY, v int);
	CREATE TABLE b (k int PRIMARY KEY, v int);
	CREATE TABLE c (k int PRIMARY KEY, v int);
	INSERT INTO a VALUES (1, 0); INSERT INTO b VALUES (1, 0); INSERT INTO c VALUES (1, 0);
	CREATE FUNCTION a_to_c() RETURNS trigger LANGUAGE plpgsql AS
	  $$BEGIN UPDATE c SET v = NEW.v WHERE k = NEW.k; RETURN NEW; END$$;
	CREATE TRIGGER a_to_c AFTER UPDATE ON a FOR EACH ROW EXECUTE FUNCTION a_to_c();
});
$primary->backup('b1');

my $standby = PostgreSQL::Test::Cluster->new('standby', %p2);
$standby->init_from_backup($primary, 'b1', has_streaming => 1);
$standby->append_conf('postgresql.conf', "shared_preload_libraries = 'sfcache'\n");
$standby->start;

sub caught_up
{
	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
}

# a first record makes the standby trust the WAL
$primary->safe_psql('postgres', 'UPDATE b SET v = 0');
caught_up();

my $n = 0;

sub cases
{
	my ($design) = @_;
	for my $case (
		[ 'two tables in one transaction', 'BEGIN; UPDATE a SET v = %d; UPDATE b SET v = %d; COMMIT', 'b' ],
		[ 'the second table first', 'BEGIN; UPDATE b SET v = %d; UPDATE a SET v = %d; COMMIT', 'a' ],
		[ 'a table written by a trigger', 'UPDATE a SET v = %d -- %d', 'c' ])
	{
		my ($name, $write, $table) = @$case;
		my $q = "SELECT v FROM $table WHERE k = 1";
		# read until it is a hit (on the bus, right after a write the
		# standby bypasses until the primary's watermark covers its replay)
		my $hit = 0;
		for (1 .. 100)
		{
			my $hits = $standby->safe_psql('postgres', 'SELECT hits FROM sfcache.stats');
			$standby->safe_psql('postgres', $q);
			$hit = $standby->safe_psql('postgres', 'SELECT hits FROM sfcache.stats') > $hits;
			last if $hit;
			usleep(50_000);
		}
		ok($hit, "$design, $name: the standby serves $table from its cache");
		$n++;
		$primary->safe_psql('postgres', sprintf($write, 100 + $n, 100 + $n));
		caught_up();
		# the bus's message may arrive after the replay: a stale read
		# would last, so ask until it is right or 10 s went by
		my $got;
		for (1 .. 100)
		{
			$got = $standby->safe_psql('postgres', $q);
			last if $got == 100 + $n;
			usleep(100_000);
		}
		is($got, 100 + $n, "$design, $name: the standby's cached $table is dropped");
	}
}

# the WAL's invalidations
cases('WAL');

# the bus: the primary without WAL records (a new stream: the standby
# trusts the WAL no more), the standby on the bus
$primary->append_conf('postgresql.conf', "sfcache.wal_invalidations = off\n");
$primary->restart;
$standby->append_conf('postgresql.conf',
	"sfcache.redis_url = '" . $redis->url . "'\nsfcache.node_name = 'standby'\n");
$standby->restart;
$primary->safe_psql('postgres', 'UPDATE b SET v = 0');
caught_up();
$standby->poll_query_until('postgres', 'SELECT standby_caching FROM sfcache.bus')
  or die 'the standby does not cache on the bus';
cases('bus');

done_testing();
