/* sfcache--0.3--0.4.sql: from sfcache 0.3 to 0.4 */

\echo Use "ALTER EXTENSION sfcache UPDATE TO '0.4'" to load this file. \quit

-- Validity windows (issue 18): sfcache.stats and sfcache.statements gain
-- window_hits. OUT columns cannot change in place: drop and recreate.
DROP VIEW sfcache.stats;
DROP FUNCTION sfcache.stats_counters();
DROP VIEW sfcache.statements;
DROP FUNCTION sfcache.statement_counters();

CREATE FUNCTION sfcache.stats_counters(
	OUT hits bigint, OUT misses bigint, OUT coalesced bigint,
	OUT handoffs bigint, OUT stores bigint, OUT evictions bigint,
	OUT invalidations bigint, OUT expirations bigint, OUT wait_timeouts bigint,
	OUT window_hits bigint,
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
	OUT calls bigint, OUT hits bigint, OUT coalesced bigint, OUT misses bigint,
	OUT stores bigint, OUT bypasses bigint, OUT last_bypass_reason text,
	OUT bytes_stored bigint, OUT window_hits bigint)
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
