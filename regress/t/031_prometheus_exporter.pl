# contrib/prometheus/sfcache-queries.yaml: prometheus-postgres-exporter,
# started against a test server with the bus connected to a private Redis,
# exports sfcache.stats, the bypass reasons, sfcache.bus and
# sfcache.bus_peers with the values the views show; every counter of the
# hit ratio is exported, and every metric name the Grafana dashboard
# (contrib/grafana/sfcache-dashboard.json) uses is one the exporter serves.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use HTTP::Tiny;
use JSON::PP;
use Time::HiRes qw(usleep);
use RedisTest;

my $exporter = '/usr/bin/prometheus-postgres-exporter';
plan skip_all => "$exporter not installed (Debian package prometheus-postgres-exporter)"
  unless -x $exporter;

my $redis = RedisTest->new;
my $node = PostgreSQL::Test::Cluster->new('exported');
$node->init;
$node->append_conf('postgresql.conf',
	"shared_preload_libraries = 'sfcache'\n"
	  . "sfcache.admission = off\n"   # every result kept from its first miss
	  . "sfcache.redis_url = '" . $redis->url . "'\n"
	  . "sfcache.node_name = 'exported'\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION sfcache;
	CREATE TABLE course (id int PRIMARY KEY, title text);
	INSERT INTO course VALUES (1, 'one');
});
$node->safe_psql('postgres', 'SELECT title FROM course WHERE id = 1') for 1 .. 3;
$node->safe_psql('postgres', 'SELECT title FROM course WHERE id = 1 FOR UPDATE');
ok($node->poll_query_until('postgres', "SELECT state = 'connected' FROM sfcache.bus"),
	'the bus is connected');
# a peer on the channel, for sfcache_bus_peer
$redis->cli('PUBLISH', 'sfcache', 'sfc1 peer1 7 1 s 0 0/0 0/0 H 0 0/0 -');
ok( $node->poll_query_until('postgres',
		'SELECT count(*) = 1 AND NOT bool_or(alive) FROM sfcache.bus_peers'),
	'a peer is known, and gone: it has no liveness key');

my $port = PostgreSQL::Test::Cluster::get_free_port();
# TESTDIR up to 15; from 16 on PGXS runs prove in the source directory
my $queries = ($ENV{TESTDIR} // ".") . "/contrib/prometheus/sfcache-queries.yaml";
ok(-f $queries, 'the custom queries file exists');
my $dsn = 'host=' . $node->host . ' port=' . $node->port
  . ' dbname=postgres sslmode=disable user=' . (getpwuid($<))[0];
my ($out, $err) = ('', '');
my $h = IPC::Run::start(
	[
		$exporter, "--extend.query-path=$queries",
		"--web.listen-address=127.0.0.1:$port",
		'--disable-settings-metrics', '--log.level=warn'
	],
	'>', \$out, '2>', \$err,
	init => sub { $ENV{DATA_SOURCE_NAME} = $dsn; });

my $http = HTTP::Tiny->new(timeout => 10);
my $body = '';
for (1 .. 100)
{
	my $r = $http->get("http://127.0.0.1:$port/metrics");
	if ($r->{success} && $r->{content} =~ /sfcache_stats_hits/)
	{
		$body = $r->{content};
		last;
	}
	usleep(100_000);
}
$h->kill_kill;
isnt($body, '', 'the exporter serves metrics') or diag("exporter stderr: $err");

sub metric
{
	my ($re) = @_;
	return $body =~ /^$re (\S+)$/m ? $1 + 0 : undef;
}

my %stats = split /\|/, $node->safe_psql('postgres',
	"SELECT 'hits|' || hits || '|stores|' || stores"
	  . " || '|leader_executions|' || leader_executions"
	  . " || '|leader_time|' || leader_time FROM sfcache.stats");
cmp_ok($stats{hits}, '>=', 2, 'the server served hits');
is(metric('sfcache_stats_hits\{server="[^"]*"\}'), $stats{hits},
	'sfcache_stats_hits is sfcache.stats.hits');
is(metric('sfcache_stats_stores\{server="[^"]*"\}'), $stats{stores},
	'sfcache_stats_stores is sfcache.stats.stores');
is(metric('sfcache_stats_leader_executions\{server="[^"]*"\}'), $stats{leader_executions},
	'sfcache_stats_leader_executions is sfcache.stats.leader_executions');
my $leader_s = metric('sfcache_stats_leader_time_seconds\{server="[^"]*"\}');
ok(defined $leader_s && abs($leader_s - $stats{leader_time} / 1000) < 1e-6,
	'sfcache_stats_leader_time_seconds is sfcache.stats.leader_time in seconds')
  or diag("exported $leader_s, leader_time $stats{leader_time} ms");

# Every counter of the hit ratio and of observe mode's forecast, and every time, is served.
my %served = map { $_ => 1 } ($body =~ /^(sfcache_[a-z_]+)[{ ]/mg);
for my $name (
	map { "sfcache_stats_$_" } qw(hits coalesced leader_executions
	not_admitted bypasses window_hits leader_time_seconds window_time_seconds
	wait_time_seconds saved_time_seconds observed_hits observed_coalesced
	observed_window_hits observed_saved_time_seconds))
{
	ok($served{$name}, "$name is exported");
}

# The dashboard's PromQL names only metrics the exporter serves.
my $dashboard = ($ENV{TESTDIR} // ".") . "/contrib/grafana/sfcache-dashboard.json";
open(my $fh, '<', $dashboard) or die "$dashboard: $!";
my $json = decode_json(do { local $/; <$fh> });
close($fh);
my @exprs;
my $walk;
$walk = sub {
	my ($v) = @_;
	if (ref $v eq 'HASH')
	{
		for my $k (keys %$v)
		{
			push @exprs, $v->{$k}
			  if ($k eq 'expr' || $k eq 'definition') && !ref $v->{$k};
			push @exprs, $v->{$k}{query}
			  if $k eq 'query' && ref $v->{$k} eq 'HASH' && defined $v->{$k}{query};
			$walk->($v->{$k});
		}
	}
	elsif (ref $v eq 'ARRAY')
	{
		$walk->($_) for @$v;
	}
};
$walk->($json);
cmp_ok(scalar @exprs, '>=', 10, 'the dashboard has PromQL expressions');
my %used = map { $_ => 1 } map { /(sfcache_[a-z_]+)/g } @exprs;
my @unknown = sort grep { !$served{$_} } keys %used;
is_deeply(\@unknown, [], 'every metric the dashboard uses is served')
  or diag('served: ' . join(' ', sort keys %served));
cmp_ok(scalar keys %used, '>=', 20, 'the dashboard uses ' . scalar(keys %used) . ' metrics');
cmp_ok(metric('sfcache_bypass_statements\{reason="row lock",server="[^"]*"\}') // -1,
	'>=', 1, 'the bypass reasons are labelled');
is(metric('sfcache_bus_connected\{node="exported",role="primary",server="[^"]*",state="connected"\}'),
	1, 'the bus state is exported with its labels');
cmp_ok(metric('sfcache_bus_sent\{[^}]*\}') // -1, '>', 0, 'bus counters are exported');
is(metric('sfcache_bus_peer_alive\{peer="peer1",role="standby",server="[^"]*"\}'),
	0, 'peers are exported (this one has no liveness key)');
unlike($body, qr/pg_exporter_last_scrape_error\S* 1/, 'no scrape error');

$node->stop;
done_testing();
