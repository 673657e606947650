/* sfcache--0.3--0.4.sql: from sfcache 0.3 to 0.4 */

\echo Use "ALTER EXTENSION sfcache UPDATE TO '0.4'" to load this file. \quit

-- sfcache.stats and sfcache.statements: one outcome per execution
-- (leader_executions, not_admitted, window_hits, the shared tier's shared_*;
-- statements' misses gone), and what the cache costs and saves (leader_time,
-- window_time, wait_time, saved_time: doc/cache.md), and what observe mode
-- (sfcache.cache = observe) counts would have been served (observed_*).
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
	OUT shared_hits bigint, OUT shared_stores bigint, OUT shared_refusals bigint,
	OUT shared_lock_waits bigint, OUT shared_errors bigint,
	OUT observed_hits bigint, OUT observed_coalesced bigint,
	OUT observed_window_hits bigint,
	OUT bypasses bigint, OUT bytes_used bigint, OUT entries bigint,
	OUT untracked_statements bigint,
	OUT leader_time float8, OUT window_time float8, OUT wait_time float8,
	OUT saved_time float8, OUT observed_saved_time float8,
	OUT reset_at timestamptz)
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
	OUT stores bigint, OUT bytes_stored bigint,
	OUT observed_hits bigint, OUT observed_coalesced bigint,
	OUT observed_window_hits bigint,
	OUT leader_time float8, OUT window_time float8, OUT wait_time float8,
	OUT saved_time float8, OUT observed_saved_time float8)
RETURNS SETOF record
LANGUAGE C STRICT
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_statements_0_4';

CREATE VIEW sfcache.statements AS
	SELECT s.*, sfcache.statement_keys(s.dbid, s.userid, s.queryid) AS distinct_keys
	FROM sfcache.statement_counters() s;
COMMENT ON VIEW sfcache.statements IS
	'result cache counters per statement (other roles'' need pg_read_all_stats)';
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

-- ---- the SQL surface a DBA browses (0.4) ----
--
-- Internal helpers live in schema sfcache_internal, with no USAGE for
-- PUBLIC: users cannot call them. The views, policies and SQL function
-- bodies that use them name them by OID (parsed at creation), so they
-- need no USAGE at run time. The checks a user's mistake can fail are C
-- functions (ereport), so errors carry no CONTEXT line of a helper. The
-- same block ends sfcache--0.4.sql and sfcache--0.3--0.4.sql, so a fresh
-- install and an update agree (regress/sql/upgrade.sql).
CREATE SCHEMA sfcache_internal;
REVOKE ALL ON SCHEMA sfcache_internal FROM PUBLIC;
COMMENT ON SCHEMA sfcache_internal IS
	'sfcache''s internal helpers: not for direct use (no USAGE for PUBLIC)';

ALTER FUNCTION sfcache.owns(regclass) SET SCHEMA sfcache_internal;
ALTER FUNCTION sfcache.relation_settings_changed() SET SCHEMA sfcache_internal;
ALTER FUNCTION sfcache.forget_dropped_relations() SET SCHEMA sfcache_internal;
ALTER FUNCTION sfcache.set_tracked_columns(regclass, name[]) SET SCHEMA sfcache_internal;
ALTER FUNCTION sfcache.stats_counters() SET SCHEMA sfcache_internal;
ALTER FUNCTION sfcache.statement_counters() SET SCHEMA sfcache_internal;
ALTER FUNCTION sfcache.statement_keys(oid, oid, bigint) SET SCHEMA sfcache_internal;
ALTER FUNCTION sfcache.advice_quals_raw() SET SCHEMA sfcache_internal;
ALTER FUNCTION sfcache.index_advice_raw() SET SCHEMA sfcache_internal;
ALTER FUNCTION sfcache.index_advice_search_raw(bigint, integer) SET SCHEMA sfcache_internal;
ALTER FUNCTION sfcache.table_activity_raw() SET SCHEMA sfcache_internal;
ALTER FUNCTION sfcache.capture_triggers() SET SCHEMA sfcache_internal;
ALTER FUNCTION sfcache.bus_state() SET SCHEMA sfcache_internal;
ALTER FUNCTION sfcache.bus_peer_list() SET SCHEMA sfcache_internal;

-- The checks of the per-relation settings, in C (cache_relation_sql.c).
DROP FUNCTION sfcache.check_settable(regclass, text);
CREATE FUNCTION sfcache_internal.check_settable(rel regclass, func text)
RETURNS void
LANGUAGE C STABLE
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_check_settable_0_4';

CREATE FUNCTION sfcache_internal.ttl_seconds(rel regclass, ttl interval, func text)
RETURNS integer
LANGUAGE C STABLE
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_ttl_seconds_0_4';

CREATE FUNCTION sfcache_internal.check_trackable(rel regclass, columns name[], untrack boolean)
RETURNS void
LANGUAGE C STABLE
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_check_trackable_0_4';

CREATE OR REPLACE FUNCTION sfcache.set_ttl(rel regclass, ttl interval)
RETURNS void
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
	INSERT INTO sfcache.relation_settings (relid, ttl_seconds)
		VALUES (rel, sfcache_internal.ttl_seconds(rel, ttl, 'sfcache.set_ttl()'))
		ON CONFLICT (relid) DO UPDATE SET ttl_seconds = excluded.ttl_seconds;
	SELECT sfcache.invalidate(rel);
END;

CREATE OR REPLACE FUNCTION sfcache.reset_ttl(rel regclass)
RETURNS void
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
	SELECT sfcache_internal.check_settable(rel, 'sfcache.reset_ttl()');
	UPDATE sfcache.relation_settings SET ttl_seconds = NULL
		WHERE relid OPERATOR(pg_catalog.=) rel;
	SELECT sfcache.invalidate(rel);
END;

CREATE OR REPLACE FUNCTION sfcache.exclude(rel regclass)
RETURNS void
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
	SELECT sfcache_internal.check_settable(rel, 'sfcache.exclude()');
	INSERT INTO sfcache.relation_settings (relid, excluded)
		VALUES (rel, true)
		ON CONFLICT (relid) DO UPDATE SET excluded = true;
	SELECT sfcache.invalidate(rel);
END;

CREATE OR REPLACE FUNCTION sfcache.include(rel regclass)
RETURNS void
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
	SELECT sfcache_internal.check_settable(rel, 'sfcache.include()');
	UPDATE sfcache.relation_settings SET excluded = false
		WHERE relid OPERATOR(pg_catalog.=) rel;
	SELECT sfcache.invalidate(rel);
END;

-- Tracking: the checks first (check_trackable), then the trigger DDL.
CREATE OR REPLACE FUNCTION sfcache_internal.set_tracked_columns(rel regclass, columns name[])
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	args text;
BEGIN
	IF pg_catalog.cardinality(columns) OPERATOR(pg_catalog.=) 0 THEN
		EXECUTE pg_catalog.format('DROP TRIGGER IF EXISTS sfcache_capture ON %s', rel);
		RETURN;
	END IF;
	SELECT pg_catalog.string_agg(pg_catalog.quote_literal(c), ', ' ORDER BY c) INTO args
	FROM (SELECT DISTINCT pg_catalog.unnest(columns) AS c) u;
	EXECUTE pg_catalog.format('CREATE OR REPLACE TRIGGER sfcache_capture'
		' AFTER INSERT OR UPDATE OR DELETE ON %s FOR EACH ROW'
		' EXECUTE FUNCTION sfcache.capture(%s)', rel, args);
	EXECUTE pg_catalog.format('ALTER TABLE %s ENABLE ALWAYS TRIGGER sfcache_capture', rel);
END;
$$;

CREATE OR REPLACE FUNCTION sfcache.track(rel regclass, VARIADIC columns name[])
RETURNS void
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
	SELECT sfcache_internal.check_trackable(rel, columns, false);
	SELECT sfcache_internal.set_tracked_columns(rel, ARRAY(
		SELECT column_name FROM sfcache.tracked_columns t
		WHERE t.relation OPERATOR(pg_catalog.=) rel AND t.trigger_name OPERATOR(pg_catalog.=) 'sfcache_capture'
		UNION SELECT pg_catalog.unnest(columns)));
END;

-- untrack of a column that is not tracked is an ERROR, as DROP without
-- IF EXISTS is.
CREATE OR REPLACE FUNCTION sfcache.untrack(rel regclass, VARIADIC columns name[])
RETURNS void
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
	SELECT sfcache_internal.check_trackable(rel, columns, true);
	SELECT sfcache_internal.set_tracked_columns(rel, ARRAY(
		SELECT column_name FROM sfcache.tracked_columns t
		WHERE t.relation OPERATOR(pg_catalog.=) rel AND t.trigger_name OPERATOR(pg_catalog.=) 'sfcache_capture'
		EXCEPT SELECT pg_catalog.unnest(columns)));
END;

-- The configuration search, its body parsed at creation like the others.
CREATE OR REPLACE FUNCTION sfcache.index_advice_search(
	max_size bigint DEFAULT NULL, max_indexes integer DEFAULT NULL)
RETURNS TABLE (schemaname name, tablename name, index_name text,
	index_ddl text, replaces text, calls bigint, rows_scanned bigint,
	rows_returned bigint, queryids bigint[], cost_before float8,
	cost_after float8, benefit numeric, estimated_size bigint,
	marginal_benefit float8, upkeep float8)
LANGUAGE sql VOLATILE
SET search_path = pg_catalog
BEGIN ATOMIC
SELECT n.nspname, c.relname, a.index_name, a.index_ddl, a.replaces, a.calls,
	a.rows_scanned, a.rows_returned, a.queryids, a.cost_before, a.cost_after,
	pg_catalog.round((1 - a.cost_after / NULLIF(a.cost_before, 0))::numeric, 2),
	a.estimated_size, a.marginal_benefit, a.upkeep
FROM sfcache_internal.index_advice_search_raw(max_size, max_indexes) a
JOIN pg_catalog.pg_class c ON c.oid = a.relid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace;
END;

-- Window advice (issue 31): per range column whose result cache windows
-- starved for want of an index (points: no later execution with another
-- constant could be served), the btree index on it, with the evidence.
CREATE FUNCTION sfcache_internal.window_advice_raw(
	OUT relid oid, OUT column_name text, OUT index_name text,
	OUT index_ddl text, OUT windows_starved bigint, OUT queryids bigint[],
	OUT calls bigint, OUT rows_scanned bigint, OUT time_ms float8,
	OUT estimated_size bigint)
RETURNS SETOF record
LANGUAGE C STRICT VOLATILE
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_window_advice_0_4';

CREATE VIEW sfcache.window_advice AS
SELECT n.nspname AS schemaname, c.relname AS tablename, w.column_name,
	w.index_name, w.index_ddl, w.windows_starved, w.queryids, w.calls,
	w.rows_scanned, w.time_ms, w.estimated_size
FROM sfcache_internal.window_advice_raw() w
JOIN pg_catalog.pg_class c ON c.oid = w.relid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace;

GRANT SELECT ON sfcache.window_advice TO PUBLIC;

-- Every user-facing object has a comment (\df+, \dv+).
COMMENT ON FUNCTION sfcache.reset() IS
	'reset the result cache counters of sfcache.stats and sfcache.statements (superuser)';
COMMENT ON FUNCTION sfcache.bypass_counts() IS
	'statements not cached, per bypass reason, in the whole cluster (sfcache.stats.bypass_reasons has the same as JSON)';
COMMENT ON FUNCTION sfcache.column_untrackable(regclass, name) IS
	'why a column cannot be tracked by sfcache.track() (its type or collation), or NULL when it can';
COMMENT ON VIEW sfcache.advice_quals IS
	'quals the sampled executions evaluated by scanning, per table, column and operator, in this database (other roles'' need pg_read_all_stats)';
COMMENT ON VIEW sfcache.index_advice IS
	'the suggested indexes: one configuration for the whole recorded workload, verified with hypothetical indexes';
COMMENT ON VIEW sfcache.table_activity IS
	'writes and invalidations per table of this database; rates only for writes seen at least a minute apart';
COMMENT ON VIEW sfcache.window_advice IS
	'btree indexes on the range columns whose result cache windows starved for want of one, with the windows starved and the statements, in this database';
