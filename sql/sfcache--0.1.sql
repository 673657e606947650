/* sfcache--0.1.sql: objects of sfcache 0.1, created in schema sfcache */

\echo Use "CREATE EXTENSION sfcache" to load this file. \quit

CREATE FUNCTION sfcache.version()
RETURNS text
LANGUAGE C STRICT PARALLEL SAFE
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_version_0_1';

COMMENT ON FUNCTION sfcache.version() IS
	'version of the loaded sfcache library';

CREATE FUNCTION sfcache.started_at()
RETURNS timestamptz
LANGUAGE C STRICT PARALLEL SAFE
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_started_at_0_1';

COMMENT ON FUNCTION sfcache.started_at() IS
	'when sfcache''s shared memory was initialised (server start or crash restart)';
