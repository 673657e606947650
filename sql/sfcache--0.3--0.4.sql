/* sfcache--0.3--0.4.sql: from sfcache 0.3 to 0.4 */

\echo Use "ALTER EXTENSION sfcache UPDATE TO '0.4'" to load this file. \quit

-- sfcache.stats is cluster-wide: its comment says so.
COMMENT ON VIEW sfcache.stats IS
	'result cache counters of the whole cluster (every database: one shared cache) since the last sfcache.reset(); sfcache.statements has them per database';

-- sfcache.table_activity: rates from sustained traffic only, NULL for
-- never written, tables, partitioned tables and materialized views only.
DROP VIEW sfcache.table_activity;
DROP FUNCTION sfcache.table_activity_raw();
CREATE FUNCTION sfcache.table_activity_raw(
	OUT relid oid, OUT writes bigint, OUT first_seen timestamptz,
	OUT last_write timestamptz, OUT invalidations bigint,
	OUT last_invalidation timestamptz)
RETURNS SETOF record
LANGUAGE C STRICT VOLATILE
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_table_activity_0_4';

-- Writes per table, partitioned table and materialized view of this
-- database, for the advisor's cache settings: writes are statements,
-- invalidations the committed transactions that wrote the table (each one
-- invalidates the cached results that read it). A rate is shown only for
-- sustained traffic: writes (invalidations) seen at least a minute apart;
-- a table loaded once has none. last_write is NULL if never written.
CREATE VIEW sfcache.table_activity AS
SELECT n.nspname AS schemaname, c.relname AS tablename, t.writes,
	t.invalidations, t.first_seen, t.last_write,
	CASE WHEN t.last_write >= t.first_seen + interval '1 minute' THEN
		t.writes / (extract(epoch FROM pg_catalog.now() - t.first_seen) / 60)::float8
	END AS writes_per_minute,
	CASE WHEN t.last_invalidation >= t.first_seen + interval '1 minute' THEN
		t.invalidations / (extract(epoch FROM pg_catalog.now() - t.first_seen) / 60)::float8
	END AS invalidations_per_minute
FROM sfcache.table_activity_raw() t
JOIN pg_catalog.pg_class c ON c.oid = t.relid AND c.relkind IN ('r', 'p', 'm')
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace;

GRANT SELECT ON sfcache.table_activity TO PUBLIC;
