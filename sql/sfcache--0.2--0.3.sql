/* sfcache--0.2--0.3.sql: from sfcache 0.2 to 0.3 */

\echo Use "ALTER EXTENSION sfcache UPDATE TO '0.3'" to load this file. \quit

-- ---- cache: invalidation by key values (0.3) ----

CREATE FUNCTION sfcache.capture()
RETURNS trigger
LANGUAGE C
AS 'MODULE_PATHNAME', 'sfcache_capture_0_3';

COMMENT ON FUNCTION sfcache.capture() IS
	'trigger that sfcache.track() installs: captures the tracked values of each row written';

CREATE FUNCTION sfcache.capture_triggers(
	OUT relation regclass, OUT trigger_name name, OUT column_name name, OUT active boolean)
RETURNS SETOF record
LANGUAGE C STRICT STABLE
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_capture_triggers_0_3';

CREATE FUNCTION sfcache.column_untrackable(rel regclass, column_name name)
RETURNS text
LANGUAGE C STRICT STABLE
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_column_untrackable_0_3';

CREATE VIEW sfcache.tracked_columns AS
	SELECT relation, column_name, trigger_name, active
	FROM sfcache.capture_triggers();

COMMENT ON VIEW sfcache.tracked_columns IS
	'columns whose values invalidate cached results one by one; active: the trigger sees every row written';
GRANT SELECT ON sfcache.tracked_columns TO PUBLIC;

-- Tracking is a trigger: transactional, locked like any trigger (which is
-- what keeps a writer's capture and a reader's plan in step), dumped and
-- restored with its table. Needs the TRIGGER privilege on the table, and
-- its ownership to change an existing trigger, as CREATE TRIGGER does.
CREATE FUNCTION sfcache.set_tracked_columns(rel regclass, columns name[])
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	kind "char";
	col name;
	existing oid;
	args text;
	why text;
BEGIN
	IF rel IS NULL OR columns IS NULL THEN
		RAISE EXCEPTION 'the table and its columns must not be null'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	SELECT c.relkind INTO kind FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) rel;
	IF kind IS NULL OR kind NOT IN ('r', 'p') THEN
		RAISE EXCEPTION 'cannot track columns of "%"', rel
			USING ERRCODE = 'wrong_object_type',
				DETAIL = 'Only tables and partitioned tables have rows whose writes can be captured.';
	END IF;
	FOREACH col IN ARRAY columns LOOP
		IF col IS NULL OR NOT EXISTS (
			SELECT FROM pg_catalog.pg_attribute a
			WHERE a.attrelid OPERATOR(pg_catalog.=) rel AND a.attname OPERATOR(pg_catalog.=) col
			  AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped) THEN
			RAISE EXCEPTION 'column "%" of relation "%" does not exist', col, rel
				USING ERRCODE = 'undefined_column';
		END IF;
		why := sfcache.column_untrackable(rel, col);
		IF why IS NOT NULL THEN
			RAISE EXCEPTION 'cannot track column "%" of "%"', col, rel
				USING ERRCODE = 'feature_not_supported',
					DETAIL = pg_catalog.format('Its values cannot be hashed so that equal values name the same tag: %s.', why),
					HINT = 'Results that compare it with constants are invalidated by every write of the table.';
		END IF;
	END LOOP;
	SELECT t.oid INTO existing FROM pg_catalog.pg_trigger t
	WHERE t.tgrelid OPERATOR(pg_catalog.=) rel AND t.tgname OPERATOR(pg_catalog.=) 'sfcache_capture';
	IF existing IS NOT NULL AND NOT EXISTS (
		SELECT FROM pg_catalog.pg_trigger t
		WHERE t.oid OPERATOR(pg_catalog.=) existing
		  AND t.tgfoid OPERATOR(pg_catalog.=) 'sfcache.capture()'::pg_catalog.regprocedure) THEN
		RAISE EXCEPTION 'relation "%" already has a trigger named sfcache_capture', rel
			USING ERRCODE = 'duplicate_object',
				HINT = 'Rename that trigger: sfcache.track() owns this name.';
	END IF;
	IF pg_catalog.cardinality(columns) OPERATOR(pg_catalog.=) 0 THEN
		IF existing IS NOT NULL THEN
			EXECUTE pg_catalog.format('DROP TRIGGER sfcache_capture ON %s', rel);
		END IF;
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

CREATE FUNCTION sfcache.track(rel regclass, VARIADIC columns name[])
RETURNS void
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
	SELECT sfcache.set_tracked_columns(rel, ARRAY(
		SELECT column_name FROM sfcache.tracked_columns t
		WHERE t.relation OPERATOR(pg_catalog.=) rel AND t.trigger_name OPERATOR(pg_catalog.=) 'sfcache_capture'
		UNION SELECT pg_catalog.unnest(columns)));
END;

COMMENT ON FUNCTION sfcache.track(regclass, name[]) IS
	'track columns of a table: a write invalidates only the cached results that compared them with the values it wrote';

CREATE FUNCTION sfcache.untrack(rel regclass, VARIADIC columns name[])
RETURNS void
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
	SELECT sfcache.set_tracked_columns(rel, ARRAY(
		SELECT column_name FROM sfcache.tracked_columns t
		WHERE t.relation OPERATOR(pg_catalog.=) rel AND t.trigger_name OPERATOR(pg_catalog.=) 'sfcache_capture'
		EXCEPT SELECT pg_catalog.unnest(columns)));
END;

COMMENT ON FUNCTION sfcache.untrack(regclass, name[]) IS
	'stop tracking columns of a table';
-- ---- bus: the Redis invalidation bus (extension/bus) ----

CREATE FUNCTION sfcache.bus_state(
	OUT node text, OUT role text, OUT state text, OUT worker_pid integer,
	OUT state_since timestamptz,
	OUT redis_url text, OUT channel text, OUT last_error text,
	OUT sent bigint, OUT received bigint, OUT own_skipped bigint,
	OUT dropped bigint, OUT duplicates bigint, OUT gaps bigint,
	OUT flushes bigint, OUT malformed bigint, OUT queued bigint,
	OUT replay_lsn pg_lsn, OUT horizon_lsn pg_lsn, OUT pending_lsn pg_lsn,
	OUT pending_relations integer, OUT standby_caching boolean)
RETURNS record
LANGUAGE C STRICT
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_bus_state_0_3';

CREATE FUNCTION sfcache.bus_peer_list(
	OUT node text, OUT role text, OUT system_identifier numeric,
	OUT last_seq bigint, OUT watermark pg_lsn, OUT highest_lsn pg_lsn,
	OUT last_heard timestamptz, OUT alive boolean)
RETURNS SETOF record
LANGUAGE C STRICT
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_bus_peers_0_3';

CREATE VIEW sfcache.bus AS
	SELECT b.*,
		(SELECT pg_catalog.count(*) FROM sfcache.bus_peer_list() p WHERE p.alive) AS peers_alive,
		(SELECT pg_catalog.count(*) FROM sfcache.bus_peer_list() p WHERE NOT p.alive) AS peers_gone
	FROM sfcache.bus_state() b;
COMMENT ON VIEW sfcache.bus IS 'the Redis invalidation bus: state, counters, a standby''s replay against its pending invalidations';
GRANT SELECT ON sfcache.bus TO PUBLIC;

CREATE VIEW sfcache.bus_peers AS
	SELECT * FROM sfcache.bus_peer_list();
COMMENT ON VIEW sfcache.bus_peers IS 'the other nodes on the Redis bus: last sequence number, watermark, liveness';
GRANT SELECT ON sfcache.bus_peers TO PUBLIC;
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
