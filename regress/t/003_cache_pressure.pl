# Under memory and entry pressure the cache evicts; no query ever fails
# because the cache is full. The postmaster says at start how large the
# cache is; valid results evicted soon after being stored give a WARNING
# naming sfcache.memory, at most one a minute in the whole cluster.
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
ok($node->log_contains(qr/LOG:  sfcache result cache: 1 MB for results, at most 32 entries, sfcache.cache = on/),
	'the start logs the size and mode of the cache');
is(scalar(() = slurp_file($node->logfile) =~ /sfcache result cache: /g), 1,
	'once (the postmaster, not each backend)');
is(scalar(() = slurp_file($node->logfile) =~ /result cache is too small/g), 0,
	'no warning before the cache is full');

my ($out, $stderr);
$node->psql('postgres', $sql, stdout => \$out, stderr => \$stderr, on_error_die => 1);
my @rows = split /\n/, $out;
is(scalar(@rows), 600, 'every statement returned its row');
is(scalar(grep { !/\|t$/ } @rows), 0, 'every row is right');

my ($evictions, $entries, $bytes, $hits) = split /\|/,
  $node->safe_psql('postgres', 'SELECT evictions, entries, bytes_used, hits FROM sfcache.stats');
cmp_ok($evictions, '>', 0, 'entries were evicted');
cmp_ok($entries, '<=', 32, 'no more entries than sfcache.max_entries');
cmp_ok($bytes, '<=', 1024 * 1024, 'no more bytes than sfcache.memory');

# The client that evicted early got the WARNING once, with the hint.
like($stderr, qr/WARNING:  the sfcache result cache is too small: 1 valid result was evicted less than a minute after it was stored\nDETAIL:  The (memory for results|table of entries) was full: sfcache.memory is 1 MB, sfcache.max_entries is 32\. This warning is given at most once a minute\.\nHINT:  Raise sfcache\./m,
	'results evicted soon after being stored: a WARNING to the client (at the first)');
like($stderr, qr/HINT:  Raise .*sfcache\.memory.*\(server start\)/, 'the hint names sfcache.memory');
is(scalar(() = $stderr =~ /WARNING:/g), 1, 'one WARNING for hundreds of early evictions');
# Another session evicting within the same minute: no second WARNING.
my ($out2, $stderr2);
$node->psql('postgres', $sql, stdout => \$out2, stderr => \$stderr2, on_error_die => 1);
is($stderr2, '', 'no WARNING again within the minute, in another session');
is(scalar(() = slurp_file($node->logfile) =~ /WARNING:  the sfcache result cache is too small/g), 1,
	'the server log has one WARNING: at most one a minute in the cluster');

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
	# LIMIT, not "i <= n": a range constant would be a validity window, and
	# each n's result would replace the last under one key
	my $q = "SELECT i, h FROM wide ORDER BY i LIMIT $n";
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
