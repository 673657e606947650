# No user code runs with another role's privileges: a role that may create
# objects plants functions that would make it superuser if a superuser ran
# them, and the superuser then uses sfcache and sfcache-advisor as usual.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('security');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'sfcache'");
$node->start;

# The payload: ALTER ROLE in a VOLATILE function, called from an IMMUTABLE
# one that the planner folds; errors are swallowed so that the attacker's
# own statements succeed.
my $payload = q{
CREATE FUNCTION %s.escalate() RETURNS void LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	EXECUTE 'ALTER ROLE attacker SUPERUSER';
EXCEPTION WHEN OTHERS THEN
	NULL;
END
$$;
CREATE FUNCTION %s.escalate_imm() RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	PERFORM %s.escalate();
	RETURN '{"k": 7}';
END
$$;
};

sub is_superuser
{
	return $node->safe_psql('postgres',
		"SELECT rolsuper FROM pg_roles WHERE rolname = 'attacker'");
}

$node->safe_psql('postgres', q{
CREATE ROLE attacker LOGIN;
CREATE DATABASE app;
CREATE DATABASE noext;
GRANT CREATE ON DATABASE app, noext TO attacker;
ALTER ROLE attacker SET sfcache.advice_sample_rate = 1;
});
$node->safe_psql('app', q{
CREATE EXTENSION sfcache;
GRANT CREATE ON SCHEMA public TO attacker;
CREATE TABLE public.doc (id int, data jsonb);
INSERT INTO public.doc SELECT i, jsonb_build_object('k', i % 1000) FROM generate_series(1, 20000) i;
ANALYZE public.doc;
GRANT SELECT ON public.doc TO attacker;
});

# 1. A statement recorded by the attacker folds its IMMUTABLE function when
# the index advice plans it again.
my ($ret, $out, $err) = $node->psql('app', sprintf($payload, 'public', 'public', 'public')
	  . 'SET sfcache.cache = off;'
	  . 'SELECT count(*) FROM public.doc WHERE data @> public.escalate_imm();',
	extra_params => [ '-U', 'attacker' ]);
is($ret, 0, 'the attacker records its statement');
is($out, '20', 'its statement ran (as itself, still not superuser)');
is(is_superuser(), 'f', 'not superuser after recording');

is($node->safe_psql('app', 'SELECT index_name FROM sfcache.index_advice'),
	'doc_data_gin_idx', 'a superuser reads sfcache.index_advice: the advice is still made');
is(is_superuser(), 'f', 'the attacker is not superuser after the superuser read the advice');

# 2. The advisor, run by the superuser, reads the advice and a
# django_migrations view the attacker planted.
$node->safe_psql('app', q{
CREATE VIEW public.django_migrations AS
	SELECT 1 AS id, 'lms'::text AS app, '0001_initial'::text AS name
	FROM (SELECT public.escalate()) s;
ALTER VIEW public.django_migrations OWNER TO attacker;
});
command_checks_all(
	[ 'sfcache-advisor', '--format=django', '--app=lms', '--min-calls=1', $node->connstr('app') ],
	0, [ qr/USING gin \("data" jsonb_path_ops\)/, qr/^# Django migration lms\.sfcache_indexes$/m ],
	[qr/suggested/], 'the advisor suggests the index, without a dependency from the planted view');
is(is_superuser(), 'f', 'the advisor did not read the planted view');
command_checks_all(
	[ 'sfcache-advisor', '--min-calls=1', $node->connstr('app') ],
	0, [qr/USING gin \("data" jsonb_path_ops\)/], [qr/suggested/],
	'the advisor in SQL format');
is(is_superuser(), 'f', 'still not superuser after the advisor ran');

# 3. A database without the extension: the attacker plants
# sfcache.relation_settings as a view calling its function.
$node->safe_psql('noext', 'CREATE TABLE public.bait (id int); INSERT INTO public.bait VALUES (1)');
$node->safe_psql('noext', 'CREATE SCHEMA sfcache; ' . sprintf($payload, 'sfcache', 'sfcache', 'sfcache')
	  . q{CREATE VIEW sfcache.relation_settings AS
		SELECT 'public.bait'::regclass AS relid, 60 AS ttl_seconds,
			(SELECT sfcache.escalate()) IS NULL AS excluded;},
	extra_params => [ '-U', 'attacker' ]);
is($node->safe_psql('noext', 'SELECT count(*) FROM public.bait'), '1',
	'a superuser reads a table where sfcache is not installed');
is(is_superuser(), 'f', 'the planted settings view did not run');
unlike($node->safe_psql('noext', 'EXPLAIN (COSTS OFF) SELECT id FROM public.bait'),
	qr/sfcache/, 'and the cache does not act where the extension is not created');
command_checks_all([ 'sfcache-advisor', $node->connstr('noext') ],
	3, [qr/^$/], [qr/not installed/], 'the advisor refuses a database without the extension');
is(is_superuser(), 'f', 'not superuser at the end');

$node->stop;
done_testing();
