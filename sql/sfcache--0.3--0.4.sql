/* sfcache--0.3--0.4.sql: from sfcache 0.3 to 0.4 */

\echo Use "ALTER EXTENSION sfcache UPDATE TO '0.4'" to load this file. \quit

-- sfcache.stats and sfcache.statements: one outcome per execution
-- (leader_executions, not_admitted, window_hits; statements' misses gone).
-- The functions' OUT columns change, so they and their views are recreated.
DROP VIEW sfcache.stats;
DROP FUNCTION sfcache.stats_counters();
DROP VIEW sfcache.statements;
DROP FUNCTION sfcache.statement_counters();

CREATE FUNCTION sfcache.stats_counters(
	OUT hits bigint, OUT misses bigint, OUT coalesced bigint,
	OUT handoffs bigint, OUT stores bigint, OUT evictions bigint,
	OUT invalidations bigint, OUT expirations bigint, OUT wait_timeouts bigint,
	OUT leader_executions bigint, OUT not_admitted bigint, OUT window_hits bigint,
	OUT bypasses bigint, OUT bytes_used bigint, OUT entries bigint,
	OUT untracked_statements bigint, OUT reset_at timestamptz)
RETURNS record
LANGUAGE C STRICT
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_stats_0_4';

CREATE VIEW sfcache.stats AS
	SELECT s.*,
		(SELECT pg_catalog.jsonb_object_agg(b.reason, b.statements)
		 FROM sfcache.bypass_counts() b WHERE b.statements > 0) AS bypass_reasons
	FROM sfcache.stats_counters() s;
COMMENT ON VIEW sfcache.stats IS 'result cache counters since the last sfcache.reset()';
GRANT SELECT ON sfcache.stats TO PUBLIC;

CREATE FUNCTION sfcache.statement_counters(
	OUT dbid oid, OUT userid oid, OUT queryid bigint, OUT query text,
	OUT calls bigint, OUT hits bigint, OUT coalesced bigint,
	OUT leader_executions bigint, OUT not_admitted bigint, OUT window_hits bigint,
	OUT bypasses bigint, OUT last_bypass_reason text,
	OUT stores bigint, OUT bytes_stored bigint)
RETURNS SETOF record
LANGUAGE C STRICT
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_statements_0_4';

CREATE VIEW sfcache.statements AS
	SELECT s.*, sfcache.statement_keys(s.dbid, s.userid, s.queryid) AS distinct_keys
	FROM sfcache.statement_counters() s;
COMMENT ON VIEW sfcache.statements IS
	'result cache counters per statement shape (other roles'' need pg_read_all_stats)';
GRANT SELECT ON sfcache.statements TO PUBLIC;

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
