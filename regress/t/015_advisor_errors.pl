# sfcache-advisor's failures: a password the server asks for and -w
# forbids, a query that fails (the message names it, and shows it), and
# Ctrl-C while a query runs. They exit 4 (connection) or 5 (query) after closing the connection;
# the failures run under valgrind, so the error paths leak nothing.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use AdvisorTest;

my $lock_key = '32482199343425637';    # the bytes of "sfcache"
my $node = advisor_node('errors');
load_lms($node);
run_workload($node, 0);

# A role that must give a password, over the Unix socket too.
$node->safe_psql('postgres', q{
	SET password_encryption = 'scram-sha-256';
	CREATE ROLE advisor_pw LOGIN SUPERUSER PASSWORD 'secret-pw';
	CREATE ROLE advisor_noread LOGIN});
$node->safe_psql('app', q{
	REVOKE ALL ON sfcache.index_advice FROM PUBLIC, advisor_noread;
	REVOKE ALL ON FUNCTION sfcache.index_advice_search(bigint, integer) FROM PUBLIC, advisor_noread});
unlink($node->data_dir . '/pg_hba.conf');
$node->append_conf('pg_hba.conf', qq{
local all advisor_pw scram-sha-256
local all all trust
host all advisor_pw 127.0.0.1/32 scram-sha-256
host all all 127.0.0.1/32 trust
});
$node->reload;
my $pwconn = $node->connstr('app') . ' user=advisor_pw';

{
	local $ENV{PGPASSWORD};
	delete $ENV{PGPASSWORD};
	command_checks_all(valgrind_advisor('--no-password', $pwconn),
		4, [qr/^$/],
		[ qr/^sfcache-advisor: error: could not connect: .*no password supplied/,
		  qr/^sfcache-advisor: hint: The server asks for a password and --no-password was given/m ],
		'--no-password against a server asking for one: exit 4, says why (valgrind)');
	command_checks_all(advisor('-w', $pwconn),
		4, [qr/^$/], [qr/no password supplied/], '-w is --no-password');
}
{
	local $ENV{PGPASSWORD} = 'secret-pw';
	command_checks_all(advisor('--no-password', '-q', $pwconn),
		0, [qr/^-- migration: 4 indexes/m], [qr/^$/],
		'--no-password with PGPASSWORD connects (it only forbids prompting)');
}

# A query that fails says which one, with the server's message and the query.
command_checks_all(valgrind_advisor($node->connstr('app') . ' user=advisor_noread'),
	5, [qr/^$/],
	[ qr/^sfcache-advisor: error: could not read sfcache\.index_advice_search\(\): ERROR:  permission denied for function index_advice_search$/m,
	  qr/^sfcache-advisor: detail: Query was: SELECT a\.schemaname, a\.tablename/m,
	  qr/^sfcache-advisor: hint: Role "advisor_noread" lacks a privilege on sfcache's objects/m ],
	'a failed query: exit 5, the message names the view and shows the query, a hint (valgrind)');

# Ctrl-C while a query waits (the advisory lock of --apply) cancels it.
my $holder = $node->background_psql('app');
$holder->query_safe("SELECT pg_advisory_lock($lock_key)");
my ($out, $err) = ('', '');
my $h = IPC::Run::start(advisor('--apply', '--no-ttl', $node->connstr('app')),
	'>', \$out, '2>', \$err);
ok( $node->poll_query_until('app', qq{
	SELECT count(*) = 1 FROM pg_locks
	WHERE locktype = 'advisory' AND NOT granted AND objid::bigint = (${lock_key}::bigint & 4294967295)}),
	'the advisor waits for the advisory lock');
$h->signal('INT');
$h->finish;
is($h->result(0), 5, 'Ctrl-C: exit 5');
like($err, qr/^sfcache-advisor: error: could not wait for the advisory lock of --apply: ERROR:  canceling statement due to user request$/m,
	'Ctrl-C cancels the running query, and the message names it');
is($out, '', 'nothing written');
ok( $node->poll_query_until('app', q{
	SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = 'sfcache-advisor'}),
	'the connection is closed');
$holder->query_safe("SELECT pg_advisory_unlock($lock_key)");
$holder->quit;
is($node->safe_psql('app', q{SELECT count(*) FROM pg_indexes WHERE indexname LIKE '%\_gin\_idx'}),
	'0', 'nothing was built');

$node->stop;
done_testing();
