# The result cache across restarts and crashes, and through the extended
# protocol: nothing stale survives a restart or a crash, and pgbench's
# prepared and extended protocols hit.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('cache');
$node->init;
$node->append_conf('postgresql.conf',
	"shared_preload_libraries = 'sfcache'\nrestart_after_crash = on\n"
	  # results are kept from their first miss (admission: cache_admission.sql)
	  . "sfcache.admission = off\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION sfcache;
	CREATE TABLE course (id int PRIMARY KEY, title text);
	INSERT INTO course SELECT g, 'course ' || g FROM generate_series(1, 100) g;
});

sub stat_value
{
	my ($column) = @_;
	return $node->safe_psql('postgres', "SELECT $column FROM sfcache.stats");
}

my $query = 'SELECT title FROM course WHERE id = 7';
is($node->safe_psql('postgres', $query), 'course 7', 'first read');
is($node->safe_psql('postgres', $query), 'course 7', 'second read');
is(stat_value('hits'), '1', 'the second read was a hit');

# The cache lives in shared memory: a restart empties it.
$node->stop;
$node->start;
is(stat_value('entries'), '0', 'a restart empties the cache');
$node->safe_psql('postgres', "UPDATE course SET title = 'renamed' WHERE id = 7");
is($node->safe_psql('postgres', $query), 'renamed', 'after a restart, reads see writes');

# Crash: kill -9 of a backend makes the postmaster reinitialise shared memory.
$node->safe_psql('postgres', $query);
is(stat_value('entries'), '1', 'an entry is cached before the crash');
my $victim = $node->background_psql('postgres');
my $pid = $victim->query_safe('SELECT pg_backend_pid()');
kill 'KILL', $pid;
$victim->quit;
$node->poll_query_until('postgres', 'SELECT entries = 0 FROM sfcache.stats')
  or die 'server did not come back after the crash';
pass('the server restarts clean after a backend is killed');
$node->safe_psql('postgres', "UPDATE course SET title = 'after crash' WHERE id = 7");
is($node->safe_psql('postgres', $query), 'after crash', 'after a crash, reads see writes');

# pgbench with the extended and prepared protocols: every execution after
# the first of each key hits.
my $script = $node->basedir . '/read.sql';
open(my $fh, '>', $script) or die;
print $fh "\\set id random(1, 5)\nSELECT title FROM course WHERE id = :id;\n";
close($fh);
foreach my $mode ('extended', 'prepared')
{
	$node->safe_psql('postgres', 'SELECT sfcache.flush(); SELECT sfcache.reset()');
	$node->command_ok(
		[ 'pgbench', '-n', '-M', $mode, '-c', '2', '-t', '100', '-f', $script, 'postgres' ],
		"pgbench -M $mode runs");
	# hits: served a stored result; coalesced: served a leader's result
	my ($hits, $misses) = split /\|/,
	  $node->safe_psql('postgres', 'SELECT hits + coalesced, misses FROM sfcache.stats');
	cmp_ok($misses, '<=', 10, "pgbench -M $mode: at most one miss per key and client");
	cmp_ok($hits, '>=', 190, "pgbench -M $mode: the rest are hits");
}

$node->stop;
done_testing();
