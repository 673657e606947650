# Statement texts hold no data unless sfcache.literal_texts says so: the
# advisor's migration comments (which get committed to git) show the texts
# sfcache.statements holds, with $n for constants, and a clean stop writes
# no statement text to the advice file; with literal_texts on, both keep
# the constants (which also shows these checks can fail).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use AdvisorTest;

my $node = advisor_node('statement_texts');
load_lms($node);
my $conn = $node->connstr('app');
my $file = $node->data_dir . '/pg_stat/sfcache_advice.stat';

# The dashboard's statements (AdvisorTest.pm: 'unread', 'urgent', '[12]',
# '2024-03-01 00:00+00'), and one with a planted constant.
my $planted = q{SELECT count(*) FROM lms_notification WHERE user_id = 987654 AND status = 'zq-planted'};
my $literals = qr/unread|urgent|\[12\]|2024-03-01|987654|zq-planted/;
sub workload
{
	run_workload($node, 0);
	$node->safe_psql('app', "$planted;\n$planted;\n");
}

# The comment lines of the advisor's migration.
sub advisor_comments
{
	my ($out) = run_command(advisor('--no-ttl', $conn));
	return join("\n", grep { /^--/ } split /\n/, $out);
}

workload();
is($node->safe_psql('app', q{SELECT count(*) FROM sfcache.statements WHERE query ~ '(unread|urgent|987654|zq-planted)'}),
	'0', 'sfcache.statements: no constant');
is($node->safe_psql('app', q{SELECT query FROM sfcache.statements WHERE query LIKE '%FROM lms_notification WHERE user_id%'}),
	'SELECT count(*) FROM lms_notification WHERE user_id = $1 AND status = $2',
	'sfcache.statements: the planted statement with $n');
my $comments = advisor_comments();
like($comments, qr/query id -?\d+ \(result cache: .*\): SELECT count\(\*\) FROM "lms_notification" WHERE "lms_notification"\."user_id" = \$1/,
	'the advisor shows the statements, normalized');
unlike($comments, $literals, 'the advisor\'s comments hold no constant');

# A clean stop writes the quals and table activity, no statement text.
$node->stop;
ok(-s $file, 'a clean stop writes the advice file');
my $data = slurp_file($file);
unlike($data, $literals, 'the advice file holds no constant');
my $offset = -s $node->logfile;
$node->start;
ok($node->wait_for_log(qr/LOG:  restored the index advice from file "pg_stat\/sfcache_advice\.stat"\n.*DETAIL:  Quals: [1-9]\d*, statements: 0, tables: /, $offset),
	'its quals restored, no statement');

# sfcache.literal_texts on: the constants are kept, shown and written.
$node->append_conf('postgresql.conf', 'sfcache.literal_texts = on');
$node->reload;
$node->safe_psql('app', 'SELECT sfcache.reset()');
workload();
# (the pattern is spelled in two parts: this statement's text is kept too)
is($node->safe_psql('app', q{SELECT count(*) FROM sfcache.statements WHERE query LIKE '%zq' || '-planted%'}),
	'1', 'literal_texts on: sfcache.statements keeps the constants');
like(advisor_comments(), qr/FROM lms_notification WHERE user_id = 987654 AND status = 'zq-planted'/,
	'literal_texts on: the advisor shows them');
$node->stop;
like(slurp_file($file), qr/zq-planted/, 'literal_texts on: the advice file holds them');

done_testing();
