-- The SQL surface a DBA browses: every user-facing function and view of
-- schema sfcache has a comment; the internal helpers are in schema
-- sfcache_internal, which PUBLIC cannot use; a user's mistakes get clean
-- errors with no CONTEXT line of a helper; untrack of a column that is not
-- tracked is an error; the test-only settings are hidden.

-- User-facing objects without a comment: none.
SELECT p.oid::regprocedure AS function_without_comment
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'sfcache' AND obj_description(p.oid, 'pg_proc') IS NULL
  AND p.prorettype <> 'trigger'::regtype AND p.prorettype <> 'event_trigger'::regtype;
SELECT c.oid::regclass AS relation_without_comment
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'sfcache' AND c.relkind IN ('r', 'v', 'm')
  AND obj_description(c.oid, 'pg_class') IS NULL;

-- The functions a user may call, and the internal ones.
SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'sfcache' ORDER BY p.oid::regprocedure::text;
SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'sfcache_internal' ORDER BY p.oid::regprocedure::text;
SELECT has_schema_privilege('public', 'sfcache_internal', 'USAGE') AS public_may_use_internal;

-- A plain role cannot call a helper, and still reads the views and
-- changes the settings of its own tables.
CREATE ROLE sfc_surface_user;
CREATE TABLE sfc_surface_t (id int PRIMARY KEY, user_id int);
ALTER TABLE sfc_surface_t OWNER TO sfc_surface_user;
SET ROLE sfc_surface_user;
SELECT sfcache_internal.owns('sfc_surface_t');
SELECT sfcache_internal.stats_counters();
SELECT count(*) >= 0 AS reads_views FROM sfcache.stats, sfcache.table_activity, sfcache.tracked_columns;
SELECT sfcache.set_ttl('sfc_surface_t', '1 minute');
SELECT relid, ttl_seconds, excluded FROM sfcache.relation_settings;
SELECT sfcache.exclude('sfc_surface_t');
SELECT sfcache.include('sfc_surface_t');
SELECT sfcache.reset_ttl('sfc_surface_t');
-- Clean errors: no CONTEXT line of an internal helper.
\set VERBOSITY default
SELECT sfcache.set_ttl('sfc_surface_t', '-1 second');
SELECT sfcache.exclude('pg_class');
SELECT sfcache.track('sfc_surface_t', 'nope');
-- untrack of a column that is not tracked: an ERROR, as DROP is.
SELECT sfcache.track('sfc_surface_t', 'user_id');
SELECT column_name FROM sfcache.tracked_columns WHERE relation = 'sfc_surface_t'::regclass;
SELECT sfcache.untrack('sfc_surface_t', 'id');
SELECT sfcache.untrack('sfc_surface_t', 'user_id');
SELECT count(*) AS tracked FROM sfcache.tracked_columns WHERE relation = 'sfc_surface_t'::regclass;
SELECT sfcache.untrack('sfc_surface_t', 'user_id');
RESET ROLE;
DROP TABLE sfc_surface_t;
DROP ROLE sfc_surface_user;

-- Test-only settings: not in SHOW ALL nor pg_settings.
SELECT count(*) AS test_settings_shown FROM pg_settings WHERE name LIKE 'sfcache.%test%';
SELECT count(*) > 0 AS other_settings_shown FROM pg_settings WHERE name LIKE 'sfcache.%';
