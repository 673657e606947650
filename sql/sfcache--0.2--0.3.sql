/* sfcache--0.2--0.3.sql: from sfcache 0.2 to 0.3 */

\echo Use "ALTER EXTENSION sfcache UPDATE TO '0.3'" to load this file. \quit

-- Index advice (issue 14): the configuration search over the whole
-- recorded workload, within budgets; each index's marginal benefit (its
-- share of the configuration's saving, calls x estimated cost) and upkeep
-- (its maintenance under the table's recorded writes); queryids are the
-- statements whose plan uses it.
CREATE FUNCTION sfcache.index_advice_search_raw(
	max_size bigint, max_indexes integer,
	OUT relid oid, OUT index_name text, OUT index_ddl text, OUT replaces text,
	OUT calls bigint, OUT rows_scanned bigint, OUT rows_returned bigint,
	OUT queryids bigint[], OUT cost_before float8, OUT cost_after float8,
	OUT estimated_size bigint, OUT marginal_benefit float8, OUT upkeep float8)
RETURNS SETOF record
LANGUAGE C VOLATILE
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_index_advice_0_3';

CREATE FUNCTION sfcache.index_advice_search(
	max_size bigint DEFAULT NULL, max_indexes integer DEFAULT NULL)
RETURNS TABLE (schemaname name, tablename name, index_name text,
	index_ddl text, replaces text, calls bigint, rows_scanned bigint,
	rows_returned bigint, queryids bigint[], cost_before float8,
	cost_after float8, benefit numeric, estimated_size bigint,
	marginal_benefit float8, upkeep float8)
LANGUAGE sql VOLATILE
SET search_path = pg_catalog
AS $$
SELECT n.nspname, c.relname, a.index_name, a.index_ddl, a.replaces, a.calls,
	a.rows_scanned, a.rows_returned, a.queryids, a.cost_before, a.cost_after,
	pg_catalog.round((1 - a.cost_after / NULLIF(a.cost_before, 0))::numeric, 2),
	a.estimated_size, a.marginal_benefit, a.upkeep
FROM sfcache.index_advice_search_raw(max_size, max_indexes) a
JOIN pg_catalog.pg_class c ON c.oid = a.relid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
$$;

COMMENT ON FUNCTION sfcache.index_advice_search(bigint, integer) IS
	'suggested indexes within a size (bytes) and count budget, NULL for none';

CREATE FUNCTION sfcache.index_advice_work(
	OUT statements integer, OUT candidates integer, OUT plannings bigint,
	OUT max_plannings bigint, OUT truncated boolean, OUT chosen integer,
	OUT cost_before float8, OUT cost_after float8)
RETURNS record
LANGUAGE C STRICT VOLATILE
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_index_advice_work_0_3';

COMMENT ON FUNCTION sfcache.index_advice_work() IS
	'what this session''s last index advice search did (NULL before one)';

CREATE OR REPLACE VIEW sfcache.index_advice AS
SELECT n.nspname AS schemaname, c.relname AS tablename, a.index_name,
	a.index_ddl, a.replaces, a.calls, a.rows_scanned, a.rows_returned,
	a.queryids, a.cost_before, a.cost_after,
	pg_catalog.round((1 - a.cost_after / NULLIF(a.cost_before, 0))::numeric, 2)
		AS benefit,
	a.estimated_size, a.marginal_benefit, a.upkeep
FROM sfcache.index_advice_search_raw(NULL, NULL) a
JOIN pg_catalog.pg_class c ON c.oid = a.relid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace;
