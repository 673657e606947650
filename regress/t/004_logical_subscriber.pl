# On a logical-replication subscriber the apply worker writes tables
# without the executor's hooks: every transaction it commits must still
# invalidate what the cache holds, or the subscriber serves stale rows.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $pub = PostgreSQL::Test::Cluster->new('publisher');
$pub->init(allows_streaming => 'logical');
$pub->start;
my $sub = PostgreSQL::Test::Cluster->new('subscriber');
$sub->init;
$sub->append_conf('postgresql.conf',
	"shared_preload_libraries = 'sfcache'\nsfcache.admission = off\n");
$sub->start;

my $schema = 'CREATE TABLE course (id int PRIMARY KEY, title text)';
$pub->safe_psql('postgres', "$schema; INSERT INTO course VALUES (1, 'one');
	CREATE PUBLICATION courses FOR TABLE course");
$sub->safe_psql('postgres', "CREATE EXTENSION sfcache; $schema");
my $connstr = $pub->connstr . ' dbname=postgres';
$sub->safe_psql('postgres',
	"CREATE SUBSCRIPTION courses CONNECTION '$connstr' PUBLICATION courses");
$sub->wait_for_subscription_sync($pub, 'courses');

my $q = "SELECT string_agg(title, ',' ORDER BY id) FROM course";
sub read_sub { return $sub->safe_psql('postgres', $q); }
sub hits { return $sub->safe_psql('postgres', 'SELECT hits FROM sfcache.stats'); }

is(read_sub(), 'one', 'the initial copy is read');
is(read_sub(), 'one', 'and read again');
# The workers' own commits just after the initial sync (the table's sync
# state) invalidate everything too: read until a read is a hit, within
# 10 s, so that a slow machine only delays it.
my $served = 0;
for (1 .. 100)
{
	my $h = hits();
	read_sub();
	if (hits() > $h)
	{
		$served = 1;
		last;
	}
	usleep(100_000);
}
ok($served, 'from the cache');

$pub->safe_psql('postgres', "INSERT INTO course VALUES (2, 'two')");
$pub->wait_for_catchup('courses');
is(read_sub(), 'one,two', 'an applied INSERT invalidates');

read_sub();
$pub->safe_psql('postgres', "UPDATE course SET title = 'uno' WHERE id = 1");
$pub->wait_for_catchup('courses');
is(read_sub(), 'uno,two', 'an applied UPDATE invalidates');

read_sub();
$pub->safe_psql('postgres', "DELETE FROM course WHERE id = 2");
$pub->wait_for_catchup('courses');
is(read_sub(), 'uno', 'an applied DELETE invalidates');

read_sub();
$pub->safe_psql('postgres', "TRUNCATE course");
$pub->wait_for_catchup('courses');
is(read_sub(), '', 'an applied TRUNCATE invalidates');

$sub->stop;
$pub->stop;
done_testing();
