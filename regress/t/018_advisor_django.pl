# sfcache-advisor --format=django in a real Django 3.2 project (manage.py,
# psycopg2): the migration runs on a database without sfcache (a staging
# copy: the cache settings do nothing there, the indexes are built), runs
# twice (migrated back and forth, and its SQL applied twice by psql), and
# with --replace keeps the index Django's own migration made for a foreign
# key, saying how to change the model instead; where sfcache is installed
# it also applies the cache settings.
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

# A Django project whose app "lms" models the tables of advice_lms.sql.
my $project = $node->basedir . '/project';
mkdir $project;
mkdir "$project/lms";
mkdir "$project/lms/migrations";
append_to_file("$project/lms/__init__.py", '');
append_to_file("$project/lms/migrations/__init__.py", '');
append_to_file("$project/lms/models.py", <<'PY');
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
my ($host, $port) = ($node->host, $node->port);
append_to_file("$project/settings.py", <<PY);
import os
SECRET_KEY = 'test'
INSTALLED_APPS = ['lms']
USE_TZ = True
DEFAULT_AUTO_FIELD = 'django.db.models.AutoField'
DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql',
                         'NAME': os.environ['SFC_DB'], 'HOST': '$host', 'PORT': '$port'}}
PY
append_to_file("$project/manage.py", <<'PY');
import os
import sys
from django.core.management import execute_from_command_line
os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'settings')
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
execute_from_command_line(sys.argv)
PY

# Run manage.py on database $db; (exit status, stdout, stderr).
sub manage
{
	my ($db, @args) = @_;
	local $ENV{SFC_DB} = $db;
	my ($stdout, $stderr) = ('', '');
	my $ok = IPC::Run::run([ $python, "$project/manage.py", @args ], '>', \$stdout, '2>', \$stderr);
	return ($ok ? 0 : 1, $stdout, $stderr);
}

$node->safe_psql('postgres', 'CREATE DATABASE staging');
my ($ret, $out, $err) = manage('staging', 'makemigrations', 'lms');
is($ret, 0, 'makemigrations writes 0001_initial') or diag($err);

# The advisor's migration, with --replace, into the app's migrations.
command_checks_all(advisor('--format=django', '--app=lms', '--replace', '-o', "$project/lms/migrations", $conn),
	0, [qr/^$/], [qr/suggested/], 'the advisor writes lms/migrations/0002_sfcache_indexes.py');
my $py = slurp_file("$project/lms/migrations/0002_sfcache_indexes.py");
unlike($py, qr/DROP INDEX CONCURRENTLY IF EXISTS "public"\."lms_notification_user_id_5e1a1b2c"/,
	'--replace keeps the index Django made for Notification.user_id');
like($py, qr/^        # makes redundant: existing index lms_notification_user_id_5e1a1b2c \(btree \(user_id\)\), created by Django's migrations of app lms \(a ForeignKey's index\): kept; to drop it, set db_index=False on that ForeignKey and run makemigrations, or pass --replace-owned$/m,
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
is($node->safe_psql('staging', q{SELECT count(*) FROM pg_indexes WHERE indexname ~ '^lms_notification_user_id_[0-9a-f]{8}$'}),
	'1', "Django's own index on user_id is still there");
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
is($node->safe_psql('app', q{SELECT count(*) FROM pg_indexes WHERE indexname = 'lms_notification_user_id_5e1a1b2c'}),
	'1', "and Django's index kept");

done_testing();
