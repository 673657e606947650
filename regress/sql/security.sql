-- No user code runs with another role's privileges: attempts at making a
-- superuser run an attacker's function, each of which must leave the
-- attacker without SUPERUSER.
CREATE EXTENSION IF NOT EXISTS sfcache;
SET max_parallel_workers_per_gather = 0;
CREATE ROLE sec_attacker;
CREATE ROLE sec_victim;

-- The attacker's payload: made superuser if it runs as a superuser; errors
-- are swallowed, so that the attacker's own statements still succeed.  An
-- IMMUTABLE function (folded by the planner) calls a VOLATILE one, which
-- may run ALTER ROLE.
CREATE FUNCTION public.sec_payload() RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	EXECUTE 'ALTER ROLE sec_attacker SUPERUSER';
EXCEPTION WHEN OTHERS THEN
	NULL;
END
$$;
CREATE FUNCTION public.sec_escalate() RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	PERFORM public.sec_payload();
	RETURN '{"k": 7}';
END
$$;
ALTER FUNCTION public.sec_payload() OWNER TO sec_attacker;
ALTER FUNCTION public.sec_escalate() OWNER TO sec_attacker;

-- 1. Index advice re-plans recorded statements, and planning folds
-- IMMUTABLE functions: a superuser reading sfcache.index_advice plans the
-- attacker's statement as the attacker, not as itself.
SET sfcache.cache = off;
SET sfcache.advice_sample_rate = 1;
SELECT sfcache.advice_reset();
CREATE TABLE sec_doc (id int, data jsonb);
INSERT INTO sec_doc SELECT i, jsonb_build_object('k', i % 1000) FROM generate_series(1, 20000) i;
ANALYZE sec_doc;
ALTER TABLE sec_doc OWNER TO sec_attacker;
SET ROLE sec_attacker;
SELECT count(*) FROM sec_doc WHERE data @> sec_escalate();
RESET ROLE;
SELECT rolsuper FROM pg_roles WHERE rolname = 'sec_attacker';
-- the superuser reads the advice: the statement is planned (and the advice
-- still made), but as sec_attacker
SELECT tablename, index_ddl FROM sfcache.index_advice ORDER BY index_ddl;
SELECT rolsuper FROM pg_roles WHERE rolname = 'sec_attacker';
-- the same through the quals view and a second read
SELECT count(*) > 0 AS quals_recorded FROM sfcache.advice_quals WHERE tablename = 'sec_doc';
SELECT count(*) FROM sfcache.index_advice;
SELECT rolsuper FROM pg_roles WHERE rolname = 'sec_attacker';
SELECT sfcache.advice_reset();
RESET sfcache.advice_sample_rate;
RESET sfcache.cache;

-- 2. Per-relation settings are read by every backend.  In a database with
-- the extension, the attacker cannot plant objects in its schema...
SET ROLE sec_attacker;
CREATE VIEW sfcache.sec_planted AS SELECT sec_escalate();
CREATE FUNCTION sfcache.owns(rel regclass) RETURNS boolean LANGUAGE sql AS 'SELECT true';
RESET ROLE;
-- ...nor shadow pg_class with a temporary table in the row security
-- policy's ownership check, to write settings of another role's relation.
CREATE TABLE sec_victim_table (id int);
ALTER TABLE sec_victim_table OWNER TO sec_victim;
SET ROLE sec_attacker;
CREATE TEMP TABLE pg_class (oid oid, relowner oid);
INSERT INTO pg_temp.pg_class
	SELECT 'sec_victim_table'::regclass, oid FROM pg_catalog.pg_roles WHERE rolname = 'sec_attacker';
INSERT INTO sfcache.relation_settings (relid, excluded) VALUES ('sec_victim_table', true);
SELECT sfcache.exclude('sec_victim_table');
SELECT sfcache.invalidate('sec_victim_table');
DROP TABLE pg_temp.pg_class;
RESET ROLE;
SELECT count(*) AS victim_settings FROM sfcache.relation_settings WHERE relid = 'sec_victim_table'::regclass;

-- Settings apply to every role, whatever row security shows it: the
-- victim's exclusion holds for the attacker's statements too.
SET ROLE sec_victim;
SELECT sfcache.exclude('sec_victim_table');
RESET ROLE;
GRANT SELECT ON sec_victim_table TO sec_attacker;
SET ROLE sec_attacker;
EXPLAIN (COSTS OFF) SELECT * FROM sec_victim_table;
RESET ROLE;

-- A plain SELECT by the superuser reads the settings: still no escalation.
SELECT count(*) FROM sec_victim_table;
SELECT rolsuper FROM pg_roles WHERE rolname = 'sec_attacker';

-- 3. A database without the extension: the attacker, allowed to create
-- schemas there, plants sfcache.relation_settings as a view calling its
-- function.  The superuser's next plain SELECT must not run it.
\set regress_db :DBNAME
CREATE DATABASE sec_noext;
GRANT CREATE ON DATABASE sec_noext TO sec_attacker;
\c sec_noext
CREATE TABLE public.sec_bait (id int);
INSERT INTO public.sec_bait VALUES (1);
SET ROLE sec_attacker;
CREATE SCHEMA sfcache;
CREATE FUNCTION sfcache.sec_escalate() RETURNS jsonb
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	BEGIN
		EXECUTE 'ALTER ROLE sec_attacker SUPERUSER';
	EXCEPTION WHEN OTHERS THEN
		NULL;
	END;
	RETURN '{"k": 7}';
END
$$;
CREATE VIEW sfcache.relation_settings AS
	SELECT 'public.sec_bait'::regclass AS relid, 60 AS ttl_seconds,
		sfcache.sec_escalate() IS NULL AS excluded;
RESET ROLE;
-- the superuser reads a table: the cache consults the per-relation settings
SELECT count(*) FROM public.sec_bait;
SELECT id FROM public.sec_bait WHERE id = 1;
SELECT rolsuper FROM pg_roles WHERE rolname = 'sec_attacker';
-- a planted table of the same name is not read either (no settings, no
-- error); nor does the cache act in a database without the extension: the
-- plan is PostgreSQL's own
SET ROLE sec_attacker;
DROP VIEW sfcache.relation_settings;
CREATE TABLE sfcache.relation_settings (relid regclass, ttl_seconds integer, excluded boolean);
INSERT INTO sfcache.relation_settings VALUES ('public.sec_bait', NULL, true);
RESET ROLE;
EXPLAIN (COSTS OFF) SELECT id FROM public.sec_bait;
\c :regress_db
SELECT rolsuper FROM pg_roles WHERE rolname = 'sec_attacker';
DROP DATABASE sec_noext;

-- sfcache.redis_password_file names a secret: superuser-only, as hba_file
-- and data_directory are, so SHOW and pg_settings hide it from a plain role and show
-- it to a member of pg_read_all_settings
SET ROLE sec_attacker;
SHOW sfcache.redis_password_file;
SELECT current_setting('sfcache.redis_password_file');
SELECT count(*) FROM pg_settings WHERE name = 'sfcache.redis_password_file';
SHOW hba_file;
RESET ROLE;
GRANT pg_read_all_settings TO sec_victim;
SET ROLE sec_victim;
SHOW sfcache.redis_password_file;
SELECT count(*) FROM pg_settings WHERE name = 'sfcache.redis_password_file';
RESET ROLE;
REVOKE pg_read_all_settings FROM sec_victim;
SHOW sfcache.redis_password_file;

DROP TABLE sec_doc, sec_victim_table;
DROP FUNCTION public.sec_escalate(), public.sec_payload();
DROP ROLE sec_attacker;
DROP ROLE sec_victim;
