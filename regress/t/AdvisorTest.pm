# AdvisorTest: what the sfcache-advisor TAP tests share: a cluster that
# records every execution for the index advice, the small LMS schema of
# regress/sql/advice.sql, its dashboard workload, a workload for the cache
# setting recommendations, and the advisor command,
# wrapped in valgrind (definite leaks and invalid accesses fail with exit
# status 99) unless SFCACHE_ADVISOR_VALGRIND=0.
package AdvisorTest;

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Exporter 'import';

our @EXPORT = qw(advisor_node load_lms run_workload run_cache_workload a_minute_ago advisor valgrind_advisor);

# A started cluster with sfcache preloaded, recording every statement;
# %init goes to init (allows_streaming => 1 for a standby).
sub advisor_node
{
	my ($name, %init) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(%init);
	$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'sfcache'
sfcache.advice_sample_rate = 1
sfcache.cache = off
sfcache.enable_test_holds = on
max_parallel_workers_per_gather = 0
});
	$node->start;
	$node->safe_psql('postgres', 'CREATE DATABASE app');
	$node->safe_psql('app', 'CREATE EXTENSION sfcache');
	return $node;
}

# The schema and data of regress/data/advice_lms.sql (also regress/sql/advice.sql's),
# analyzed, advice reset.
sub load_lms
{
	my ($node) = @_;
	$node->safe_psql('app', slurp_file(($ENV{TESTDIR} // ".") . "/regress/data/advice_lms.sql"));
}

# The dashboard's statements, as Django writes them (name => SQL).
our %STATEMENTS = (
	scope => q{SELECT "lms_announcement"."id", "lms_announcement"."title" FROM "lms_announcement" WHERE "lms_announcement"."scope_ids" @> '[12]'::jsonb},
	tags => q{SELECT count(*) FROM "lms_announcement" WHERE "lms_announcement"."tags" ? 'urgent'},
	feed => q{SELECT "lms_announcement"."id" FROM "lms_announcement" WHERE "lms_announcement"."university_id" = 7 AND NOT "lms_announcement"."is_deleted" AND "lms_announcement"."display_time" <= '2024-03-01 00:00+00' AND ("lms_announcement"."end_date" IS NULL OR "lms_announcement"."end_date" >= '2024-03-01 00:00+00') ORDER BY "lms_announcement"."display_time" DESC LIMIT 3},
	unread => q{SELECT count(*) FROM "lms_notification" WHERE "lms_notification"."user_id" = 3 AND "lms_notification"."status" = 'unread' AND NOT "lms_notification"."is_deleted"},
);

# Run every statement twice, and $writes single-row INSERTs into lms_university.
sub run_workload
{
	my ($node, $writes) = @_;
	my $sql = join(";\n", map { $STATEMENTS{$_} } sort keys %STATEMENTS) . ";\n";
	$node->safe_psql('app', $sql . $sql);
	$node->safe_psql('app',
		"INSERT INTO lms_university (name) VALUES ('new');\n" x $writes) if $writes;
}

# The SQL prefix that records a session's table writes (and the
# invalidations of its commits) as a minute and a second ago: writes after
# it make sustained traffic, which alone gets a write rate (a table written
# within one minute has none), without waiting a real minute.
sub a_minute_ago
{
	return "SET sfcache.test_activity_age = '61s';\n";
}

# Two more tables for the cache setting recommendations: lms_receipt,
# written 20 times (each a commit) and read by user with a varying "="
# (track user_id), and lms_event_log, written 600 times (over 60 a minute
# for 10 minutes) and read through a range filter only (exclude). Every
# filter returns half of its table or more, so no index is suggested. The
# first writes are recorded a minute before the last: sustained traffic.
sub run_cache_workload
{
	my ($node) = @_;
	my $sql = q{
CREATE TABLE lms_receipt (id serial PRIMARY KEY, user_id int NOT NULL, seen bool NOT NULL DEFAULT false);
CREATE TABLE lms_event_log (id serial PRIMARY KEY, kind text NOT NULL);
};
	my $later = '';
	for my $i (1 .. 20)
	{
		my $user = 1 + $i % 2;
		my $part = "INSERT INTO lms_receipt (user_id) VALUES ($user);\n"
		  . "SELECT count(*) FROM lms_receipt WHERE user_id = $user;\n";
		if ($i <= 10) { $sql .= $part; } else { $later .= $part; }
	}
	$sql .= "INSERT INTO lms_event_log (kind) VALUES ('login');\n" x 300;
	# statistics, so that every major's planner scans it (a range covering
	# the whole table), and records its filter, rather than using the key
	$sql .= "ANALYZE lms_event_log;\n";
	$later .= "INSERT INTO lms_event_log (kind) VALUES ('login');\n" x 300;
	$later .= "SELECT count(*) FROM lms_event_log WHERE id > 0;\n" x 2;
	$node->safe_psql('app', a_minute_ago() . $sql);
	$node->safe_psql('app', $later);
}

# The advisor command with its arguments.
sub advisor
{
	return [ 'sfcache-advisor', @_ ];
}

# The same under valgrind (if installed and not disabled).
sub valgrind_advisor
{
	my $use = ($ENV{SFCACHE_ADVISOR_VALGRIND} // '1') ne '0'
	  && system('valgrind --version >/dev/null 2>&1') == 0;
	return advisor(@_) unless $use;
	return [
		'valgrind', '-q', '--error-exitcode=99', '--leak-check=full',
		'--errors-for-leak-kinds=definite', '--track-origins=yes',
		'sfcache-advisor', @_
	];
}

1;
