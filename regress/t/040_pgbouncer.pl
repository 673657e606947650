# The result cache behind PgBouncer in transaction pooling: one server
# connection (default_pool_size = 1) serves two clients in turn, so every
# transaction of one client runs on the connection the other just used.
#
# - Settings in the key hold across the shared connection: TimeZone (a
#   setting PgBouncer tracks and sets again for each client) changes what
#   xmlelement() computes, and extra_float_digits set with SET LOCAL
#   changes float8::text; each client gets its own value, and hits.
# - SET LOCAL sfcache.cache = off and the /* sfcache:off */ comment act on
#   one transaction only.
# - A plain SET sfcache.cache = off stays on the server connection and
#   leaks to the next client's transactions (what the README warns about).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $pgbouncer = '/usr/sbin/pgbouncer';
$pgbouncer = 'pgbouncer' unless -x $pgbouncer;
# scripts/lib.sh installs it (Debian package pgbouncer): missing is a failure
die 'pgbouncer is not installed (Debian package pgbouncer)'
  unless system("$pgbouncer --version >/dev/null 2>&1") == 0;

# libpq 19 opens with the "grease" protocol version 3.9999 to test that
# servers negotiate; PgBouncer 1.18 (Debian 12's) closes such connections
# ("bad packet header"). Clients of an older PgBouncer ask for 3.0.
$ENV{PGMAXPROTOCOLVERSION} = '3.0';

my $node = PostgreSQL::Test::Cluster->new('db');
$node->init;
$node->append_conf('postgresql.conf',
	"shared_preload_libraries = 'sfcache'\n"
	  # results are kept from their first miss (admission: cache_admission.sql)
	  . "sfcache.admission = off\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION sfcache;
	CREATE TABLE stamps (id int PRIMARY KEY, ts timestamptz, x float8);
	INSERT INTO stamps VALUES (1, '2026-12-01 10:00+00', 1.0 / 3);
});

# PgBouncer on a free loopback port, in front of the node's socket.
my $port = PostgreSQL::Test::Cluster::get_free_port();
my $dir = $node->basedir . '/pgbouncer';
mkdir $dir or die "mkdir $dir: $!";
my $user = $node->safe_psql('postgres', 'SELECT current_user');
my $host = $node->host;
my $node_port = $node->port;
open(my $fh, '>', "$dir/users.txt") or die;
print $fh qq{"$user" ""\n};
close($fh);
open($fh, '>', "$dir/pgbouncer.ini") or die;
print $fh <<"EOF";
[databases]
pooled = host=$host port=$node_port dbname=postgres

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $dir/users.txt
pool_mode = transaction
default_pool_size = 1
min_pool_size = 0
max_client_conn = 10
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
EOF
close($fh);
system($pgbouncer, '-d', "$dir/pgbouncer.ini") == 0 or die 'pgbouncer did not start';

# Its pid, also to stop it if the test dies half-way.
sub pgbouncer_pid
{
	open(my $pf, '<', "$dir/pgbouncer.pid") or return undef;
	my $pid = <$pf>;
	close($pf);
	chomp $pid if defined $pid;
	return $pid;
}
END
{
	my $pid = pgbouncer_pid();
	kill 'TERM', $pid if defined $pid && $pid =~ /^\d+$/;
}

# A node object that only names PgBouncer's address, for psql sessions.
my $bouncer = PostgreSQL::Test::Cluster->new('bouncer', port => $port);
$bouncer->{_host} = '127.0.0.1';
$bouncer->poll_query_until('pooled', 'SELECT true')
  or die 'cannot connect through pgbouncer';

my $ca = $bouncer->background_psql('pooled');
my $cb = $bouncer->background_psql('pooled');

# How the statement ran: the "Cache:" line of EXPLAIN ANALYZE, or for a
# statement bypassed at planning, the bypass line a plain EXPLAIN shows
# ("bypass" alone with the cache off: PostgreSQL's plan, no sfcache node).
# $lead goes before EXPLAIN (a leading comment).
sub how
{
	my ($session, $sql, $lead) = @_;
	$lead = defined $lead ? "$lead " : '';
	my $plan = $session->query_safe(
		"${lead}EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) $sql");
	return $1 if $plan =~ /Cache: ([a-z, ]+)/;
	$plan = $session->query_safe("${lead}EXPLAIN (COSTS OFF) $sql");
	return "bypass ($1)" if $plan =~ /sfcache: bypass \(([^)]+)\)/;
	# PostgreSQL's own plan without a bypass line (sfcache.cache = off)
	return 'bypass' unless $plan =~ /sfcache/;
	return $plan;
}

is( $ca->query_safe('SELECT count(DISTINCT pid) FROM pg_stat_activity WHERE backend_type = \'client backend\' AND pid <> pg_backend_pid()'),
	'0', 'one server connection serves both clients');
is($ca->query_safe('SELECT pg_backend_pid()'),
	$cb->query_safe('SELECT pg_backend_pid()'),
	'both clients run on the same server backend');

# TimeZone: PgBouncer sets each client's value on the server connection.
# A timestamptz column is written out in the client's zone, and so is one
# inside xmlelement() (a server built without libxml has only the first).
my @zoned = (
	[ 'SELECT ts FROM stamps WHERE id = 1', '2026-12-01 10:00:00+00', '2026-12-01 15:30:00+05:30' ]);
push @zoned,
  [ 'SELECT xmlelement(name t, ts)::text FROM stamps WHERE id = 1',
	'<t>2026-12-01T10:00:00+00:00</t>', '<t>2026-12-01T15:30:00+05:30</t>' ]
  if $node->psql('postgres', 'SELECT xmlelement(name t, 1)') == 0;
$ca->query_safe("SET TimeZone = 'UTC'");
$cb->query_safe("SET TimeZone = 'Asia/Kolkata'");
for my $z (@zoned)
{
	my ($sql, $utc, $kolkata) = @$z;
	is($ca->query_safe($sql), $utc, "client A: UTC ($sql)");
	is($cb->query_safe($sql), $kolkata, "client B: its own zone ($sql)");
	is(how($ca, $sql), 'hit', "client A hits its own result ($sql)");
	is(how($cb, $sql), 'hit', "client B hits its own result ($sql)");
	is($ca->query_safe($sql), $utc, "client A: still UTC ($sql)");
	is($cb->query_safe($sql), $kolkata, "client B: still its zone ($sql)");
}

# extra_float_digits with SET LOCAL: one transaction of client A only.
my $float = 'SELECT x::text FROM stamps WHERE id = 1';
is( $ca->query_safe("BEGIN; SET LOCAL extra_float_digits = 0; $float; COMMIT;"),
	'0.333333333333333', 'SET LOCAL extra_float_digits = 0: 15 digits');
is($cb->query_safe($float), '0.3333333333333333', 'the next client: shortest exact digits');
is($ca->query_safe($float), '0.3333333333333333', 'client A after its transaction: the default again');
is( $cb->query_safe("BEGIN; SET LOCAL extra_float_digits = 0; $float; COMMIT;"),
	'0.333333333333333', 'client B: the stored 15-digit result of its key');

# SET LOCAL sfcache.cache = off and the comment: one transaction each.
my $read = 'SELECT ts FROM stamps WHERE id = 1';
$ca->query_safe($read);
$cb->query_safe($read);
is(how($ca, $read), 'hit', 'cached for client A');
is(how($cb, $read), 'hit', 'cached for client B (its TimeZone is another key)');
$ca->query_safe('BEGIN');
$ca->query_safe('SET LOCAL sfcache.cache = off');
is(how($ca, $read), 'bypass', 'SET LOCAL sfcache.cache = off: this transaction bypasses');
$ca->query_safe('COMMIT');
is(how($cb, $read), 'hit', 'the next transaction, on the same connection, hits');
is(how($ca, $read), 'hit', 'and so does client A\'s next one');
is( how($ca, $read, '/* sfcache:off */'), 'bypass (opt-out comment)',
	'the /* sfcache:off */ comment: this statement bypasses');
is(how($cb, $read), 'hit', 'the next client\'s statement hits');

# A plain SET stays on the server connection: it leaks to client B.
$ca->query_safe('SET sfcache.cache = off');
is(how($cb, $read), 'bypass',
	'a plain SET sfcache.cache = off by client A turns the cache off for client B');
is($cb->query_safe('SHOW sfcache.cache'), 'off', 'client B sees the setting it never made');
$ca->query_safe('RESET sfcache.cache');
is(how($cb, $read), 'hit', 'until client A resets it');

$ca->quit;
$cb->quit;

# Stop PgBouncer.
my $pid = pgbouncer_pid();
kill 'TERM', $pid;
my $waited = 0;
while (kill(0, $pid) && $waited++ < 100)
{
	select(undef, undef, undef, 0.1);
}
ok(!kill(0, $pid), 'pgbouncer stopped');

$node->stop;
done_testing();
