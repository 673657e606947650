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
sfcache.admission = off
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

# Results of 6-13 kB, across DSA's largest size class (8 kB) and several
# of its 4 kB pages: every hit returns exactly the rows the query returns
# uncached. (Rows of ~64 bytes: a wide column would be TOASTed, and the
# result would keep only its pointer.)
$node->safe_psql('postgres', q{
	CREATE TABLE wide AS SELECT i, md5(i::text) AS h FROM generate_series(1, 1000) i;
});
$node->safe_psql('postgres', 'SELECT sfcache.reset()');
my ($wrong, $count) = (0, 0);
for (my $n = 100; $n <= 200; $n += 2)
{
	my $q = "SELECT i, h FROM wide WHERE i <= $n ORDER BY i";
	my $miss = $node->safe_psql('postgres', $q);
	my $hit = $node->safe_psql('postgres', $q);
	my $plain = $node->safe_psql('postgres', "SET sfcache.cache = off; $q");
	$wrong++ if $miss ne $plain || $hit ne $plain || scalar(split /\n/, $plain) != $n;
	$count++;
}
is($wrong, 0, 'misses and hits of 6-13 kB results return the uncached rows');
is($node->safe_psql('postgres', 'SELECT hits FROM sfcache.stats'), $count,
	'each second statement was a hit');
cmp_ok($node->safe_psql('postgres', 'SELECT bytes_used / entries FROM sfcache.stats'), '>', 8192,
	'the results kept are over 8 kB on average');

$node->stop;
done_testing();
