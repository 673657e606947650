# Under memory and entry pressure the cache evicts; no query ever fails
# because the cache is full.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('pressure');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'sfcache'
sfcache.memory = 1MB
sfcache.max_entries = 32
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION sfcache;
	CREATE TABLE page (id int PRIMARY KEY, body text);
	INSERT INTO page SELECT g, repeat(md5(g::text), 250) FROM generate_series(1, 300) g;
});

# 300 distinct results of about 8 kB: 2.4 MB through a 1 MB, 32-entry cache,
# twice, each result checked.
my $sql = '';
foreach my $round (1 .. 2)
{
	foreach my $id (1 .. 300)
	{
		$sql .= "SELECT $id AS id, md5(body) = md5(repeat(md5('$id'), 250)) AS ok FROM page WHERE id = $id;\n";
	}
}
my $out = $node->safe_psql('postgres', $sql);
my @rows = split /\n/, $out;
is(scalar(@rows), 600, 'every statement returned its row');
is(scalar(grep { !/\|t$/ } @rows), 0, 'every row is right');

my ($evictions, $entries, $bytes, $hits) = split /\|/,
  $node->safe_psql('postgres', 'SELECT evictions, entries, bytes_used, hits FROM sfcache.stats');
cmp_ok($evictions, '>', 0, 'entries were evicted');
cmp_ok($entries, '<=', 32, 'no more entries than sfcache.max_entries');
cmp_ok($bytes, '<=', 1024 * 1024, 'no more bytes than sfcache.memory');

# What fits is still served: a small working set hits after eviction storms.
$node->safe_psql('postgres', 'SELECT sfcache.reset()');
foreach (1 .. 3)
{
	$node->safe_psql('postgres', "SELECT id FROM page WHERE id = $_") for 1 .. 5;
}
cmp_ok($node->safe_psql('postgres', 'SELECT hits FROM sfcache.stats'), '>=', 10,
	'a working set that fits hits');

$node->stop;
done_testing();
