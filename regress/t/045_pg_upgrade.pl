# pg_upgrade from PostgreSQL 15 with sfcache installed to this major with
# sfcache keeps the extension, its tracked columns (sfcache.track: a trigger
# per table) and its relation settings (sfcache.set_ttl, sfcache.exclude: a
# configuration table of the extension), and the upgraded server invalidates
# by value again. The old cluster comes from SFCACHE_UPGRADE_FROM, the
# pg_config of a PostgreSQL 15 with sfcache installed (scripts/test sets it
# for every major after 15); without one, or on 15 itself, the test is
# skipped.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $from = $ENV{SFCACHE_UPGRADE_FROM} // '';
my $new_version = `pg_config --version`;
if ($from eq '' || !-x $from)
{
	plan skip_all => 'no PostgreSQL 15 to upgrade from (SFCACHE_UPGRADE_FROM names its pg_config)';
}
my $old_bindir = `$from --bindir`;
chomp $old_bindir;
my $old_version = `$from --version`;
if ($old_version !~ /^PostgreSQL 15\b/ || $new_version =~ /^PostgreSQL 15\b/)
{
	plan skip_all => "upgrades from 15 to a later major ($old_version to $new_version)";
}

my $conf = "shared_preload_libraries = 'sfcache'\nsfcache.cache = on\nsfcache.admission = off";
my $old = PostgreSQL::Test::Cluster->new('old', install_path => "$old_bindir/..");
# (both with data checksums: 18's initdb turns them on by default, 15's to
# 17's on request, and pg_upgrade needs the same on both sides)
$old->init(extra => ['--data-checksums']);
$old->append_conf('postgresql.conf', $conf);
$old->start;
$old->safe_psql('postgres', 'CREATE DATABASE app');
$old->safe_psql('app', q{
	CREATE EXTENSION sfcache;
	CREATE SCHEMA school;
	CREATE TABLE school.notif (id int PRIMARY KEY, user_id int, body text);
	INSERT INTO school.notif SELECT g, g % 10, 'n' FROM generate_series(1, 100) g;
	CREATE TABLE school.audit (id int);
	CREATE TABLE school.lesson (id int PRIMARY KEY, topic text);
	SELECT sfcache.track('school.notif', 'user_id');
	SELECT sfcache.set_ttl('school.lesson', '90 s');
	SELECT sfcache.exclude('school.audit');
});

my $state = q{
	SELECT 'ext ' || extversion FROM pg_extension WHERE extname = 'sfcache'
	UNION ALL
	SELECT * FROM (SELECT 'tracked ' || t::text FROM sfcache.tracked_columns t ORDER BY 1) a
	UNION ALL
	SELECT * FROM (SELECT 'setting ' || s::text FROM sfcache.relation_settings s
				   WHERE relid::oid >= 16384 ORDER BY 1) b
};
my $before = $old->safe_psql('app', $state);
like($before, qr/tracked .*notif/, 'the old cluster tracks school.notif.user_id');

# Debian 12's 15.20 build stamps every column it creates with an attribute
# option "pg_attver" that no PostgreSQL knows, so that pg_dump (and so
# pg_upgrade) writes ALTER COLUMN ... SET (pg_attver=...), which a later
# major refuses, with or without sfcache. It is not sfcache's: the old
# cluster loses it before the upgrade.
foreach my $db ('postgres', 'app')
{
	$old->safe_psql($db, q{
		UPDATE pg_catalog.pg_attribute SET attoptions = NULL
		WHERE attoptions IS NOT NULL
		  AND pg_catalog.array_to_string(attoptions, ',') ~ '^pg_attver=[0-9]+$'
	});
}
$old->stop;

my $new = PostgreSQL::Test::Cluster->new('new');
$new->init(extra => ['--data-checksums']);
$new->append_conf('postgresql.conf', $conf);

# pg_upgrade writes its logs under the new data directory; it runs there.
my $cwd = $new->basedir;
chdir $cwd or die "chdir $cwd: $!";
command_ok(
	[
		'pg_upgrade', '--no-sync',
		'-d', $old->data_dir, '-D', $new->data_dir,
		'-b', $old_bindir, '-B', $new->config_data('--bindir'),
		'-s', $new->host, '-p', $old->port, '-P', $new->port,
	],
	'pg_upgrade from 15 with sfcache');

$new->start;
is($new->safe_psql('app', $state), $before,
	'the extension, its tracked columns and its relation settings are kept');

# The kept trigger still invalidates by value: a write to user 5 leaves
# user 7's result stored.
my $r7 = 'SELECT count(*) FROM school.notif WHERE user_id = 7';
sub outcome
{
	my ($query) = @_;
	my $plan = $new->safe_psql('app',
		"EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) $query");
	return $plan =~ /Cache: (\w+)/ ? $1 : $plan;
}
$new->safe_psql('app', $r7);
is(outcome($r7), 'hit', 'a result is stored after the upgrade');
$new->safe_psql('app', 'UPDATE school.notif SET body = body WHERE user_id = 5');
is(outcome($r7), 'hit', 'a write to another value keeps it (the tracking trigger was upgraded)');
$new->safe_psql('app', 'UPDATE school.notif SET body = body WHERE user_id = 7');
is(outcome($r7), 'leader', 'a write to its value drops it');
$new->stop;

done_testing();
