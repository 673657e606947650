-- The extension installs into its own schema and reports its version.
CREATE EXTENSION sfcache;

SELECT e.extname, e.extversion, n.nspname AS schema
FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
WHERE e.extname = 'sfcache';

SELECT sfcache.version() = extversion AS library_matches_sql
FROM pg_extension WHERE extname = 'sfcache';

SELECT sfcache.started_at() <= now() AS started_before_now;

-- Every function pins its search_path, except sfcache.capture(): a row
-- trigger, where a SET clause would cost a setting saved and restored per
-- row written, and C code that resolves no name.
SELECT p.proname
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'sfcache'
  AND NOT EXISTS (SELECT 1 FROM unnest(p.proconfig) c WHERE c LIKE 'search_path=%')
  AND p.oid <> 'sfcache.capture()'::regprocedure
ORDER BY p.proname;
-- What the extension contains.
SELECT pg_describe_object(classid, objid, 0) AS object
FROM pg_depend
WHERE refclassid = 'pg_extension'::regclass
  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'sfcache')
  AND deptype = 'e'
ORDER BY 1;

-- The "sfcache." prefix is reserved: a misspelt setting is an error.
SET sfcache.no_such_setting = 'on';

-- The schema cannot be moved.
CREATE SCHEMA elsewhere;
ALTER EXTENSION sfcache SET SCHEMA elsewhere;
DROP SCHEMA elsewhere;
