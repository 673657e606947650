# The 3-minute soak (issue 33): bench/soak --duration 180 --clients 16 (a
# primary, a standby on the WAL's invalidations, a standby on the Redis bus
# with the shared tier; writers through every path; readers checking every
# row's version on every node, the LMS dashboard among their reads; each
# fault once). Skipped unless SFCACHE_SOAK=1: it takes about 4 minutes and
# needs redis-server.
#   SFCACHE_SOAK_SECONDS (180), SFCACHE_SOAK_CLIENTS (16), SFCACHE_SOAK_PORT
#   (56010: three consecutive ports, Unix sockets only);
#   SFCACHE_SOAK_PLANT=STANDBY_STALE|FOLLOWER_NOT_WOKEN: the library was built
#   with that planted bug (make SFCACHE_PLANT=...): the soak must FAIL, for
#   the planted reason.
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use Cwd qw(abs_path);
use PostgreSQL::Test::Utils;
use Test::More;

plan skip_all => 'SFCACHE_SOAK=1 runs the 3-minute soak' unless $ENV{SFCACHE_SOAK};
plan skip_all => 'redis-server is not installed' if system('command -v redis-server >/dev/null') != 0;

my $src = abs_path(dirname(__FILE__) . '/../..');
my $secs = $ENV{SFCACHE_SOAK_SECONDS} // 180;
my $clients = $ENV{SFCACHE_SOAK_CLIENTS} // 16;
my $port = $ENV{SFCACHE_SOAK_PORT} // 56010;
my $plant = $ENV{SFCACHE_SOAK_PLANT} // '';
my $out = tempdir('soak-XXXX', TMPDIR => 1, CLEANUP => 0);
my @cmd = ("$src/bench/soak", '--duration', $secs, '--clients', $clients, '--port', $port, '--out', $out);
note "running @cmd";
my $rc = system(@cmd) >> 8;
my $summary = slurp_file("$out/summary.txt");
note $summary;

if ($plant)
{
	is($rc, 1, "planted $plant: the soak fails");
	if ($plant eq 'STANDBY_STALE')
	{
		like($summary, qr/^FAIL: .*\d+ stale reads/m, 'for stale reads');
		like(slurp_file("$out/stale.log"), qr/^\S+ sb(wal|bus) /m, 'on a standby');
	}
	elsif ($plant eq 'FOLLOWER_NOT_WOKEN')
	{
		like($summary, qr/^FAIL: .*leader_terminated.*(not woken|waited sfcache\.wait_timeout)/m,
			'for followers not woken when their leader died');
	}
	done_testing();
	exit;
}

is($rc, 0, 'bench/soak exits 0');
like($summary, qr/^PASS: no stale read in \d+ reads/m, 'it says PASS');
like($summary, qr/^stale reads: 0$/m, 'no stale read on any node');
like($summary, qr/^lost commits: 0 /m, 'no lost commit');
like($summary, qr/cached = uncached on every node after catch-up: yes/, 'every node agrees with itself uncached');
like($summary, qr/^LMS lost commits: 0 \([1-9]\d* last logins, [1-9]\d* inserted rows/m,
	'no lost LMS write (and the LMS writer wrote)');
like($summary, qr/^LMS dashboard cached = uncached on every node .*: yes$/m,
	'every node\'s dashboards agree with themselves uncached');
unlike($summary, qr/UNEXPECTED/, 'no unexpected error');
for my $node (qw(primary sbwal sbbus))
{
	like($summary, qr/^  $node +reads +[1-9]\d* +hit \d/m, "$node was read and hit");
}
# every fault ran, and survived
my %faults;
open my $fh, '<', "$out/faults.tsv" or die "faults.tsv: $!";
<$fh>;
while (<$fh>)
{
	my @f = split /\t/;
	$faults{ $f[2] } = $f[4];
}
for my $f (qw(cancel_storm leader_timeout leader_terminated key_flood redis_sigstop
	redis_kill_restart standby_wal_restart standby_bus_restart bus_worker_kill9
	leader_kill9 follower_kill9 writer_kill9_in_commit primary_immediate_restart leader_error))
{
	is($faults{$f}, 'True', "fault $f ran and passed its checks");
}
ok(-s "$out/nodes-$_.csv", "nodes-$_.csv written") for qw(primary sbwal sbbus);
done_testing();
