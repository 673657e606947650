# What sfcache keeps of a database goes with it. DROP DATABASE frees, at
# its commit, the database's index advice (quals, statements, table
# activity), its cached results and its statement shapes, so that a clean
# restart does not bring the advice back from pg_stat/sfcache_advice.stat.
# A standby that replays a DROP DATABASE runs no hook: the entries it
# recorded there are written at its clean stop, and discarded at its next
# start because the database's directory is gone (doc/advice.md).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use AdvisorTest;

my $node = advisor_node('advice_dropdb', allows_streaming => 1);
# Statements are written to the file only with sfcache.literal_texts on
# (036 tests the default): on, so that the file holds every kind of entry.
$node->append_conf('postgresql.conf', 'sfcache.literal_texts = on');
$node->reload;
my $file = $node->data_dir . '/pg_stat/sfcache_advice.stat';
my $lms = slurp_file(($ENV{TESTDIR} // ".") . "/regress/data/advice_lms.sql");
my $workload = join(";\n", map { $AdvisorTest::STATEMENTS{$_} } sort keys %AdvisorTest::STATEMENTS) . ";\n";

# The record's entries as the restore counts them: quals, statements, tables.
my $app_entries = qr/DETAIL:  Quals: 10, statements: 4, tables: 1\.\n/;

# A second database with the extension, its own LMS and workload (the LMS
# script resets the advice of every database, so both are loaded first).
load_lms($node);
$node->safe_psql('postgres', 'CREATE DATABASE other');
$node->safe_psql('other', 'CREATE EXTENSION sfcache');
$node->safe_psql('other', $lms);
run_workload($node, 1);
$node->safe_psql('other', $workload . $workload
	  . "INSERT INTO lms_university (name) VALUES ('new');\n"
	  # two executions with the cache on: a stored result and a shape
	  . "SET sfcache.cache = on;\n" . ("SELECT count(*) FROM lms_university;\n" x 2));
my $other_oid = $node->safe_psql('postgres', q{SELECT oid FROM pg_database WHERE datname = 'other'});

is($node->safe_psql('other', q{
	SELECT (SELECT count(*) FROM sfcache.advice_quals) > 0,
	       (SELECT count(*) FROM sfcache.table_activity) > 0}),
	't|t', 'the second database has advice and table activity');
is($node->safe_psql('app', qq{
	SELECT (SELECT entries FROM sfcache.stats),
	       (SELECT count(*) FROM sfcache.statements WHERE dbid = $other_oid) > 0}),
	'1|t', 'and a cached result and statement shapes (the cache is off in app)');

# A DROP DATABASE that fails (a session is connected) keeps everything.
my $session = $node->background_psql('other');
$session->query_safe('SELECT 1');
my ($out, $err) = ('', '');
$node->psql('postgres', 'DROP DATABASE other', stdout => \$out, stderr => \$err);
like($err, qr/is being accessed by other users/, 'a DROP DATABASE with a session connected fails');
$session->quit;
is($node->safe_psql('other', 'SELECT count(*) > 0 FROM sfcache.advice_quals'), 't',
	'and the advice is still there');
is($node->safe_psql('app', 'SELECT entries FROM sfcache.stats'), '1',
	'and so is the cached result');

# The drop: its results, shapes and advice are freed at once.
$node->safe_psql('postgres', 'DROP DATABASE other');
is($node->safe_psql('app', qq{
	SELECT (SELECT entries FROM sfcache.stats),
	       (SELECT count(*) FROM sfcache.statements WHERE dbid = $other_oid)}),
	'0|0', 'DROP DATABASE frees its cached results and statement shapes');

# Its advice is not in the file a clean stop writes: the file's trailer
# counts app's entries only (10 quals, 4 statements, 1 table).
$node->stop;
open(my $fh, '<:raw', $file) or die "could not open $file: $!";
my $data = do { local $/; <$fh> };
close($fh);
is(unpack('V', substr($data, -8, 4)), 15,
	'the file a clean stop writes holds only the remaining database\'s advice');
my $offset = -s $node->logfile;
$node->start;
ok($node->wait_for_log(qr/LOG:  restored the index advice from file "pg_stat\/sfcache_advice\.stat"\n.*$app_entries/, $offset),
	'the restart restores app\'s advice only, with nothing to discard');
like($node->safe_psql('app', 'SELECT index_name FROM sfcache.index_advice ORDER BY 1'),
	qr/lms_announcement_scope_ids/, 'app keeps its advice');

# A standby replays a DROP DATABASE without any hook: what it recorded in
# that database is still in its memory, and in the file its clean stop
# writes; its next start discards it.
$node->safe_psql('postgres', 'CREATE DATABASE replica_only');
$node->safe_psql('replica_only', 'CREATE EXTENSION sfcache');
$node->safe_psql('replica_only', $lms);
$node->backup('backup');
my $standby = PostgreSQL::Test::Cluster->new('advice_dropdb_standby');
$standby->init_from_backup($node, 'backup', has_streaming => 1);
$standby->start;
$node->wait_for_catchup($standby);
$standby->safe_psql('replica_only', $workload);
cmp_ok($standby->safe_psql('replica_only', 'SELECT count(*) FROM sfcache.advice_quals'), '>', 0,
	'the standby records advice in a database of its own workload');
$node->safe_psql('postgres', 'DROP DATABASE replica_only');
$node->wait_for_catchup($standby);
$standby->stop;
ok(-s $standby->data_dir . '/pg_stat/sfcache_advice.stat',
	'the standby\'s clean stop writes its advice, the dropped database\'s included');
$offset = -s $standby->logfile;
$standby->start;
ok($standby->wait_for_log(qr/LOG:  restored the index advice from file "pg_stat\/sfcache_advice\.stat"\n.*DETAIL:  Quals: 0, statements: 0, tables: 0; [1-9][0-9]* entries of databases that no longer exist were discarded\./, $offset),
	'its start discards the entries of the database dropped by replay, with a LOG line');

$standby->stop;
$node->stop;
done_testing();
