# One index per need: two statements on the same column under different
# constant filters get one partial index, the one whose predicate serves
# both (the narrower suggestion is merged into it).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use AdvisorTest;

my $node = PostgreSQL::Test::Cluster->new('merge');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'sfcache'\nsfcache.advice_sample_rate = 1");
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE app');
$node->safe_psql('app', q{
	CREATE EXTENSION sfcache;
	CREATE TABLE notice (id int PRIMARY KEY, user_id int, status text, is_deleted bool, created_at timestamptz);
	INSERT INTO notice SELECT g, g % 2000, CASE WHEN g % 3 = 0 THEN 'unread' ELSE 'read' END,
		g % 20 = 0, '2026-01-01'::timestamptz + g * interval '1 minute'
	FROM generate_series(1, 60000) g;
	ANALYZE notice;
	SELECT sfcache.advice_reset();
});
my $sql = "SET sfcache.cache = off;\n";
foreach my $u (1 .. 5)
{
	$sql .= "SELECT count(*) FROM notice WHERE user_id = $u AND status = 'unread' AND NOT is_deleted;\n";
	$sql .= "SELECT id FROM notice WHERE user_id = $u AND NOT is_deleted AND status <> 'archived' ORDER BY created_at DESC, id DESC LIMIT 10;\n";
}
$node->safe_psql('app', $sql);

my $suggested = $node->safe_psql('app',
	"SELECT count(*) FROM sfcache.index_advice WHERE tablename = 'notice'");
cmp_ok($suggested, '>=', 1, 'the extension suggests indexes for the two statements');

my ($out) = run_command(advisor('--no-ttl', '-q', $node->connstr('app')));
my @creates = ($out =~ /^CREATE INDEX .*$/mg);
is(scalar(@creates), 1, 'one index for both statements') or diag($out);
like($creates[0] // '', qr/USING btree \("user_id"[^)]*\)( WHERE \(NOT is_deleted\))?;$/,
	'led by user_id, with a predicate that serves both (no status in it)');

$node->stop;
done_testing();
