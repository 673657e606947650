# sfcache-advisor --format=django in a real Django 3.2 project (manage.py,
# psycopg2): the migration runs on a database without sfcache (a staging
# copy: the cache settings do nothing there, the indexes are built), runs
# twice (migrated back and forth, and its SQL applied twice by psql), and
# with --replace keeps the index Django's own migration made for a db_index
# field, saying how to change the model instead; where sfcache is installed
# it also applies the cache settings. Then a second project whose tables
# Django's migrate creates for real (a ForeignKey, a db_index=True CharField
# and its _like twin, a named and an unnamed Meta.indexes entry), with a
# workload run through the ORM that extends each of those indexes:
# --replace keeps all four, naming the model, field or Meta.indexes entry,
# --replace-owned drops them, and both migrations apply, back and forth and
# twice.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use AdvisorTest;

my $python = '/usr/bin/python3';
plan skip_all => 'python3-django and python3-psycopg2 are not installed'
  unless system("$python -c 'import django, psycopg2' 2>/dev/null") == 0;

my $node = advisor_node('django');
load_lms($node);
run_workload($node, 0);
run_cache_workload($node);
# Django's own table, as its migrate creates it, with the app's first migration
$node->safe_psql('app', q{
CREATE TABLE django_migrations (id bigserial PRIMARY KEY, app varchar(255) NOT NULL,
	name varchar(255) NOT NULL, applied timestamptz NOT NULL);
INSERT INTO django_migrations (app, name, applied) VALUES ('lms', '0001_initial', now());
});
my $conn = $node->connstr('app');

# A Django project at $dir with the one app $app (its models.py given):
# settings.py, manage.py, the app's package and migrations package.
my ($host, $port) = ($node->host, $node->port);
sub django_project
{
	my ($dir, $app, $models) = @_;
	mkdir $dir;
	mkdir "$dir/$app";
	mkdir "$dir/$app/migrations";
	append_to_file("$dir/$app/__init__.py", '');
	append_to_file("$dir/$app/migrations/__init__.py", '');
	append_to_file("$dir/$app/models.py", $models);
	append_to_file("$dir/settings.py", <<PY);
import os
SECRET_KEY = 'test'
INSTALLED_APPS = ['$app']
USE_TZ = True
DEFAULT_AUTO_FIELD = 'django.db.models.AutoField'
DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql',
                         'NAME': os.environ['SFC_DB'], 'HOST': '$host', 'PORT': '$port'}}
PY
	append_to_file("$dir/manage.py", <<'PY');
import os
import sys
from django.core.management import execute_from_command_line
os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'settings')
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
execute_from_command_line(sys.argv)
PY
}

# A Django project whose app "lms" models the tables of advice_lms.sql.
my $project = $node->basedir . '/project';
django_project($project, 'lms', <<'PY');
from django.db import models


class University(models.Model):
    name = models.TextField()


class Announcement(models.Model):
    university = models.ForeignKey(University, on_delete=models.CASCADE)
    title = models.TextField()
    scope_ids = models.JSONField(default=list)
    tags = models.JSONField(default=dict)
    is_deleted = models.BooleanField(default=False)
    display_time = models.DateTimeField()
    end_date = models.DateTimeField(null=True)


class Notification(models.Model):
    user_id = models.IntegerField(db_index=True)
    status = models.CharField(max_length=16)
    is_deleted = models.BooleanField(default=False)
    created_at = models.DateTimeField()


class Receipt(models.Model):
    user_id = models.IntegerField()
    seen = models.BooleanField(default=False)


class EventLog(models.Model):
    kind = models.TextField()

    class Meta:
        db_table = 'lms_event_log'
PY

# Run manage.py of project $dir on database $db; (exit status, stdout, stderr).
sub manage_in
{
	my ($dir, $db, @args) = @_;
	local $ENV{SFC_DB} = $db;
	my ($stdout, $stderr) = ('', '');
	my $ok = IPC::Run::run([ $python, "$dir/manage.py", @args ], '>', \$stdout, '2>', \$stderr);
	return ($ok ? 0 : 1, $stdout, $stderr);
}

sub manage { return manage_in($project, @_); }

$node->safe_psql('postgres', 'CREATE DATABASE staging');
my ($ret, $out, $err) = manage('staging', 'makemigrations', 'lms');
is($ret, 0, 'makemigrations writes 0001_initial') or diag($err);

# The advisor's migration, with --replace, into the app's migrations.
command_checks_all(advisor('--format=django', '--app=lms', '--replace', '-o', "$project/lms/migrations", $conn),
	0, [qr/^$/], [qr/suggested/], 'the advisor writes lms/migrations/0002_sfcache_indexes.py');
my $py = slurp_file("$project/lms/migrations/0002_sfcache_indexes.py");
unlike($py, qr/DROP INDEX CONCURRENTLY IF EXISTS "public"\."lms_notification_user_id_d774485f"/,
	'--replace keeps the index Django made for Notification.user_id (db_index=True)');
like($py, qr/^        # makes redundant: existing index lms_notification_user_id_d774485f \(btree \(user_id\)\), created by Django's migrations of app lms: db_index=True on field user_id of model lms\.notification: kept; to drop it, set db_index=False on that field and run makemigrations, or pass --replace-owned$/m,
	'and says what owns it and how to change the model');
like($py, qr/'DO \\'BEGIN IF EXISTS \(SELECT FROM pg_catalog\.pg_extension WHERE extname OPERATOR\(pg_catalog\.=\) \\'\\'sfcache\\'\\'\) THEN PERFORM sfcache\.track\(/,
	'the cache settings check pg_extension');

# Staging: no sfcache. Django creates the tables, then builds the indexes.
($ret, $out, $err) = manage('staging', 'migrate');
is($ret, 0, 'manage.py migrate on a database without sfcache succeeds') or diag($err);
like($out, qr/Applying lms\.0002_sfcache_indexes\.\.\. OK/, 'the sfcache migration is applied and recorded');
my $indexes = q{SELECT count(*) FROM pg_indexes WHERE indexname IN ('lms_announcement_scope_ids_gin_idx',
	'lms_announcement_tags_gin_idx', 'lms_announcement_university_id_display_time_partial_idx',
	'lms_notification_user_id_status_is_deleted_idx')};
is($node->safe_psql('staging', $indexes), '4', 'the four indexes are built');
is($node->safe_psql('staging', q{SELECT indexname FROM pg_indexes WHERE indexname ~ '^lms_notification_user_id_[0-9a-f]{8}$'}),
	'lms_notification_user_id_d774485f', "Django's own index on user_id, named as in advice_lms.sql, is still there");
is($node->safe_psql('staging', q{SELECT count(*) FROM pg_namespace WHERE nspname = 'sfcache'}), '0',
	'and nothing of sfcache was needed');

# Twice: back to 0001 and forward again; its SQL applied twice by psql.
($ret, $out, $err) = manage('staging', 'migrate', 'lms', '0001');
is($ret, 0, 'migrating back (reverse_sql) succeeds') or diag($err);
is($node->safe_psql('staging', $indexes), '0', 'the indexes are dropped');
($ret, $out, $err) = manage('staging', 'migrate');
is($ret, 0, 'and forward again') or diag($err);
my $sql;
($ret, $sql, $err) = manage('staging', 'sqlmigrate', 'lms', '0002');
is($ret, 0, 'sqlmigrate prints its SQL') or diag($err);
for my $round (1, 2)
{
	my ($r, $o, $e) = $node->psql('staging', $sql, extra_params => [ '-v', 'ON_ERROR_STOP=1' ]);
	is($r, 0, "its SQL applied by psql, round $round, on the database without sfcache") or diag($e);
}
is($node->safe_psql('staging', $indexes), '4', 'still the four indexes');

# Where sfcache is installed (0001 recorded, tables there): the cache settings apply.
($ret, $out, $err) = manage('app', 'migrate');
is($ret, 0, 'manage.py migrate where sfcache is installed succeeds') or diag($err);
is($node->safe_psql('app', 'SELECT relation::text, column_name FROM sfcache.tracked_columns'),
	'lms_receipt|user_id', 'the cache settings applied there');
is($node->safe_psql('app', $indexes), '4', 'the indexes built');
is($node->safe_psql('app', q{SELECT count(*) FROM pg_indexes WHERE indexname = 'lms_notification_user_id_d774485f'}),
	'1', "and Django's index kept");


# Django-owned indexes as Django's own migrate creates them: app "desk" on
# database desk (sfcache installed), every table and index made by
# manage.py migrate.
$node->safe_psql('postgres', 'CREATE DATABASE desk');
$node->safe_psql('desk', 'CREATE EXTENSION sfcache');
my $desk = $node->basedir . '/deskproject';
django_project($desk, 'desk', <<'PY');
from django.db import models


class Agent(models.Model):
    name = models.TextField()
    team = models.IntegerField()
    on_call = models.BooleanField(default=False)

    class Meta:
        indexes = [models.Index(fields=['team'])]


class Ticket(models.Model):
    assignee = models.ForeignKey(Agent, on_delete=models.CASCADE)
    queue = models.CharField(max_length=32, db_index=True)
    customer_id = models.IntegerField()
    status = models.CharField(max_length=16)
    priority = models.IntegerField()
    opened_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=['customer_id'], name='desk_ticket_customer_idx')]
PY
($ret, $out, $err) = manage_in($desk, 'desk', 'makemigrations', 'desk');
is($ret, 0, 'desk: makemigrations writes 0001_initial') or diag($err);
($ret, $out, $err) = manage_in($desk, 'desk', 'migrate', 'desk');
is($ret, 0, 'desk: manage.py migrate creates the tables and their indexes') or diag($err);

# Django's names for them, as the database has them: ForeignKey assignee,
# db_index=True queue (and its varchar_pattern_ops twin), the unnamed
# Meta.indexes entry on Agent.team, and the named one.
my %django = (
	fk => q{^desk_ticket_assignee_id_[0-9a-f]{8}$},
	db_index => q{^desk_ticket_queue_[0-9a-f]{8}$},
	like => q{^desk_ticket_queue_[0-9a-f]{8}_like$},
	meta => q{^desk_agent_team_[0-9a-f]{6}_idx$},
	named => q{^desk_ticket_customer_idx$});
for my $kind (sort keys %django)
{
	my $pattern = $django{$kind};
	$django{$kind} = $node->safe_psql('desk', "SELECT indexname FROM pg_indexes WHERE indexname ~ '$pattern'");
	like($django{$kind}, qr/$pattern/, "desk: Django made the $kind index $django{$kind}");
}
my $owned = q{SELECT count(*) FROM pg_indexes WHERE indexname IN ('}
  . join("', '", map { $django{$_} } qw(fk db_index meta named)) . q{')};

# The data, then the dashboard through the ORM: each filter extends one of
# Django's indexes by a column.
$node->safe_psql('desk', q{
INSERT INTO desk_agent (name, team, on_call) SELECT 'agent ' || i, i % 100, i % 8 = 0 FROM generate_series(1, 20000) i;
INSERT INTO desk_ticket (assignee_id, queue, customer_id, status, priority, opened_at)
SELECT 1 + i % 50, 'q' || (i % 40), i % 200,
	(ARRAY['open', 'closed', 'closed', 'closed', 'pending', 'closed', 'closed', 'closed', 'closed', 'closed'])[1 + (i / 3) % 10],
	1 + (i / 7) % 5, timestamptz '2024-01-01' + i * interval '13 minutes'
FROM generate_series(1, 40000) i;
ANALYZE desk_agent, desk_ticket;
SELECT sfcache.advice_reset();
});
($ret, $out, $err) = manage_in($desk, 'desk', 'shell', '-c', <<'PY');
import datetime
from desk.models import Agent, Ticket
since = datetime.datetime(2024, 9, 1, tzinfo=datetime.timezone.utc)
for n in range(3):
    for agent in (3, 7, 11):
        list(Ticket.objects.filter(assignee_id=agent, opened_at__gte=since).order_by('-opened_at')[:20])
    for queue in ('q3', 'q17'):
        Ticket.objects.filter(queue=queue, status='open').count()
    for customer in (42, 99):
        list(Ticket.objects.filter(customer_id=customer, priority=5, status='open').values_list('id', flat=True))
    for team in (5, 64):
        list(Agent.objects.filter(team=team, on_call=True).values_list('name', flat=True))
PY
is($ret, 0, 'desk: the workload runs through the ORM') or diag($err);

# Both migrations, written before either is applied (applying one changes the advice).
my $deskconn = $node->connstr('desk');
my ($keep, $drop) = ($node->basedir . '/keep', $node->basedir . '/drop');
mkdir $keep;
mkdir $drop;
command_checks_all(valgrind_advisor('--format=django', '--app=desk', '--replace', '-o', $keep, $deskconn),
	0, [qr/^$/], [qr/^sfcache-advisor: 4 indexes/], 'desk: --replace writes a migration of 4 indexes (valgrind)');
command_checks_all(advisor('--format=django', '--app=desk', '--replace-owned', '-o', $drop, $deskconn),
	0, [qr/^$/], [qr/^sfcache-advisor: 4 indexes/], 'desk: --replace-owned too');
my $kept = slurp_file("$keep/0002_sfcache_indexes.py");
my $dropped = slurp_file("$drop/0002_sfcache_indexes.py");
my %change = (
	fk => "the index of the ForeignKey field assignee of model desk\\.ticket: kept; to drop it, set db_index=False on that ForeignKey",
	db_index => "db_index=True on field queue of model desk\\.ticket: kept; to drop it, set db_index=False on that field",
	meta => "the Meta\\.indexes entry models\\.Index\\(fields=\\['team'\\]\\) of model desk\\.agent: kept; to drop it, remove that entry from Meta\\.indexes",
	named => "a Meta\\.indexes entry models\\.Index\\(\\.\\.\\., name='desk_ticket_customer_idx'\\) of model desk\\.ticket \\(or an index made outside the models\\): kept; to drop it, remove that entry from Meta\\.indexes");
for my $kind (qw(fk db_index meta named))
{
	my $name = $django{$kind};
	unlike($kept, qr/DROP INDEX CONCURRENTLY IF EXISTS "public"\."$name"/, "desk: --replace keeps $name ($kind)");
	like($kept, qr/^        # makes redundant: existing index $name \(btree \([a-z_]+\)\), created by Django's migrations of app desk: $change{$kind} and run makemigrations, or pass --replace-owned$/m,
		"desk: and says which $kind it is and how to change the model");
	like($dropped, qr/^                'DROP INDEX CONCURRENTLY IF EXISTS "public"\."$name";',$/m,
		"desk: --replace-owned drops $name");
	like($dropped, qr/^        # makes redundant: existing index $name [^\n]+: dropped after the CREATE$/m,
		"desk: naming its owner");
}
unlike($dropped, qr/makes redundant: existing index $django{like}/,
	"desk: the varchar_pattern_ops index is not made redundant by one of the default class");

# --replace: applied, back, forward; Django's indexes stay.
my $new = q{SELECT count(*) FROM pg_indexes WHERE indexname IN ('desk_ticket_assignee_id_opened_at_idx',
	'desk_ticket_queue_status_idx', 'desk_ticket_customer_id_priority_status_idx', 'desk_agent_team_on_call_idx')};
my $migration = "$desk/desk/migrations/0002_sfcache_indexes.py";
append_to_file($migration, $kept);
for my $step ([ 'migrate', 'desk' ], [ 'migrate', 'desk', '0001' ], [ 'migrate', 'desk' ])
{
	($ret, $out, $err) = manage_in($desk, 'desk', @$step);
	is($ret, 0, "desk, --replace: manage.py @$step") or diag($err);
	is($node->safe_psql('desk', $new), @$step == 2 ? '4' : '0', 'desk, --replace: the new indexes');
	is($node->safe_psql('desk', $owned), '4', "desk, --replace: Django's four indexes");
}
($ret, $out, $err) = manage_in($desk, 'desk', 'migrate', 'desk', '0001');
is($ret, 0, 'desk: back to 0001') or diag($err);

# --replace-owned: applied, back (Django's indexes rebuilt), forward, its SQL twice.
unlink $migration;
append_to_file($migration, $dropped);
for my $step ([ 'migrate', 'desk' ], [ 'migrate', 'desk', '0001' ])
{
	($ret, $out, $err) = manage_in($desk, 'desk', @$step);
	is($ret, 0, "desk, --replace-owned: manage.py @$step") or diag($err);
	is($node->safe_psql('desk', $new), @$step == 2 ? '4' : '0', 'desk, --replace-owned: the new indexes');
	is($node->safe_psql('desk', $owned), @$step == 2 ? '0' : '4', "desk, --replace-owned: Django's four indexes");
}
is($node->safe_psql('desk', "SELECT indexdef FROM pg_indexes WHERE indexname = '$django{fk}'"),
	"CREATE INDEX $django{fk} ON public.desk_ticket USING btree (assignee_id)",
	'desk: the reverse rebuilt the ForeignKey index as Django made it');
($ret, $out, $err) = manage_in($desk, 'desk', 'migrate', 'desk');
is($ret, 0, 'desk: forward again') or diag($err);
($ret, $sql, $err) = manage_in($desk, 'desk', 'sqlmigrate', 'desk', '0002');
is($ret, 0, 'desk: sqlmigrate prints its SQL') or diag($err);
for my $round (1, 2)
{
	my ($r, $o, $e) = $node->psql('desk', $sql, extra_params => [ '-v', 'ON_ERROR_STOP=1' ]);
	is($r, 0, "desk: its SQL applied by psql, round $round") or diag($e);
}
is($node->safe_psql('desk', $new), '4', 'desk: still the four new indexes');
is($node->safe_psql('desk', $owned), '0', "desk: and none of Django's four");

done_testing();
