# sfcache-advisor --apply: the indexes are built one at a time, each one
# reported, under an advisory lock: a second advisor waits for the first
# (shown in pg_locks) and then finds nothing left to do.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use AdvisorTest;

my $lock_key = '32482199343425637';    # the bytes of "sfcache"
my $node = advisor_node('apply');
load_lms($node);
run_workload($node, 0);
my $conn = $node->connstr('app');

# Another advisor holds the lock: ours says so, waits, then runs.
my $holder = $node->background_psql('app');
$holder->query_safe("SELECT pg_advisory_lock($lock_key)");
my ($out, $err) = ('', '');
my $h = IPC::Run::start(advisor('--apply', '--no-ttl', '--replace', $conn),
	'>', \$out, '2>', \$err);
ok( $node->poll_query_until('app', qq{
	SELECT count(*) = 1 FROM pg_locks
	WHERE locktype = 'advisory' AND NOT granted AND objid::bigint = (${lock_key}::bigint & 4294967295)}),
	'a second advisor waits for the advisory lock');
is($node->safe_psql('app', q{SELECT count(*) FROM pg_indexes WHERE indexname LIKE '%\_gin\_idx'}),
	'0', 'and has built nothing yet');
$holder->query_safe("SELECT pg_advisory_unlock($lock_key)");
$holder->quit;
$h->finish;
is($h->result(0), 0, '--apply exits 0: suggestions written and applied');
like($err, qr/^sfcache-advisor: waiting for another sfcache-advisor --apply \(advisory lock $lock_key\)\n/,
	'it said it was waiting');
my @done = $err =~ /^sfcache-advisor: done in [\d.]+ s: (CREATE|DROP) INDEX CONCURRENTLY/mg;
is("@done", 'CREATE CREATE CREATE CREATE DROP', 'each statement reported, the DROP after its CREATE');
like($out, qr/^-- migration: 4 indexes, 0 cache settings$/m, 'the migration is written too');
is($node->safe_psql('app', q{
	SELECT count(*) FILTER (WHERE x.indisvalid), count(*) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
	WHERE i.relname IN ('lms_announcement_scope_ids_gin_idx', 'lms_announcement_tags_gin_idx',
		'lms_announcement_university_id_display_time_partial_idx', 'lms_notification_user_id_status_is_deleted_idx',
		'lms_notification_user_id_d774485f')}),
	'4|4', 'four valid indexes built, the redundant one dropped');
is($node->safe_psql('app', q{SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'}),
	'0', 'the advisory lock is released');

command_checks_all(valgrind_advisor('--apply', '--no-ttl', $conn),
	0, [qr/nothing to suggest/], [qr/^sfcache-advisor: nothing to suggest/],
	'a second --apply finds nothing to do (valgrind)');

$node->stop;
done_testing();
