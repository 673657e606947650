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

-- Index advice

CREATE FUNCTION sfcache.whatif(statement text, index_ddl text[],
	search_path text DEFAULT pg_catalog.current_setting('search_path'),
	OUT cost_before float8, OUT cost_after float8, OUT indexes_used text[])
RETURNS record
LANGUAGE C STRICT VOLATILE
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_whatif_0_1';

COMMENT ON FUNCTION sfcache.whatif(text, text[], text) IS
	'estimated cost of a SELECT without and with hypothetical indexes (CREATE INDEX statements), and which of them its plan uses';

CREATE FUNCTION sfcache.hypothetical_index(index_ddl text,
	search_path text DEFAULT pg_catalog.current_setting('search_path'))
RETURNS text
LANGUAGE C STRICT VOLATILE
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_hypothetical_index_0_1';

COMMENT ON FUNCTION sfcache.hypothetical_index(text, text) IS
	'create a hypothetical index for this session, shown by plain EXPLAIN; returns its name';

CREATE FUNCTION sfcache.hypothetical_indexes(
	OUT index_name text, OUT relid regclass, OUT access_method text,
	OUT estimated_size bigint)
RETURNS SETOF record
LANGUAGE C STRICT VOLATILE
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_hypothetical_indexes_0_1';

COMMENT ON FUNCTION sfcache.hypothetical_indexes() IS
	'this session''s hypothetical indexes';

CREATE FUNCTION sfcache.hypothetical_reset()
RETURNS void
LANGUAGE C STRICT VOLATILE
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_hypothetical_reset_0_1';

COMMENT ON FUNCTION sfcache.hypothetical_reset() IS
	'forget this session''s hypothetical indexes';

CREATE FUNCTION sfcache.advice_quals_raw(
	OUT relid oid, OUT userid oid, OUT expression text, OUT opno oid,
	OUT qual_role text, OUT kind text, OUT calls bigint,
	OUT rows_scanned bigint, OUT rows_removed bigint, OUT rows_returned bigint,
	OUT time_ms float8, OUT queryids bigint[], OUT constant_varies boolean)
RETURNS SETOF record
LANGUAGE C STRICT VOLATILE
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_advice_quals_0_1';

CREATE FUNCTION sfcache.index_advice_raw(
	OUT relid oid, OUT index_name text, OUT index_ddl text, OUT replaces text,
	OUT calls bigint, OUT rows_scanned bigint, OUT rows_returned bigint,
	OUT queryids bigint[], OUT cost_before float8, OUT cost_after float8,
	OUT estimated_size bigint)
RETURNS SETOF record
LANGUAGE C STRICT VOLATILE
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_index_advice_0_1';

CREATE FUNCTION sfcache.table_activity_raw(
	OUT relid oid, OUT writes bigint, OUT first_seen timestamptz,
	OUT last_write timestamptz)
RETURNS SETOF record
LANGUAGE C STRICT VOLATILE
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_table_activity_0_1';

CREATE FUNCTION sfcache.advice_reset()
RETURNS void
LANGUAGE C STRICT VOLATILE
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_advice_reset_0_1';

COMMENT ON FUNCTION sfcache.advice_reset() IS
	'forget everything the index advice recorded';

REVOKE ALL ON FUNCTION sfcache.advice_reset() FROM PUBLIC;

-- Quals recorded by the sampled executor hooks, in this database; other
-- roles' only with pg_read_all_stats.
CREATE VIEW sfcache.advice_quals AS
SELECT n.nspname AS schemaname, c.relname AS tablename, q.userid::regrole AS role,
	q.expression, q.opno::regoperator AS operator, q.qual_role, q.kind,
	q.calls, q.rows_scanned, q.rows_removed, q.rows_returned, q.time_ms,
	q.queryids, q.constant_varies
FROM sfcache.advice_quals_raw() q
JOIN pg_catalog.pg_class c ON c.oid = q.relid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace;

-- One row per suggested index, verified with hypothetical indexes.
CREATE VIEW sfcache.index_advice AS
SELECT n.nspname AS schemaname, c.relname AS tablename, a.index_name,
	a.index_ddl, a.replaces, a.calls, a.rows_scanned, a.rows_returned,
	a.queryids, a.cost_before, a.cost_after,
	pg_catalog.round((1 - a.cost_after / NULLIF(a.cost_before, 0))::numeric, 2)
		AS benefit,
	a.estimated_size
FROM sfcache.index_advice_raw() a
JOIN pg_catalog.pg_class c ON c.oid = a.relid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace;

-- Writes per table of this database, for the advisor's cache TTLs.
-- Until the result cache counts its own, every write counts as one
-- invalidation: invalidations equal writes.
CREATE VIEW sfcache.table_activity AS
SELECT n.nspname AS schemaname, c.relname AS tablename, t.writes,
	t.writes AS invalidations, t.first_seen, t.last_write,
	t.writes / GREATEST(
		extract(epoch FROM pg_catalog.now() - t.first_seen) / 60, 1)::float8
		AS writes_per_minute,
	t.writes / GREATEST(
		extract(epoch FROM pg_catalog.now() - t.first_seen) / 60, 1)::float8
		AS invalidations_per_minute
FROM sfcache.table_activity_raw() t
JOIN pg_catalog.pg_class c ON c.oid = t.relid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace;

GRANT SELECT ON sfcache.advice_quals, sfcache.index_advice,
	sfcache.table_activity TO PUBLIC;

GRANT USAGE ON SCHEMA sfcache TO PUBLIC;
