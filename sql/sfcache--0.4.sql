/* sfcache--0.4.sql: objects of sfcache 0.4, created in schema sfcache */

\echo Use "CREATE EXTENSION sfcache" to load this file. \quit

GRANT USAGE ON SCHEMA sfcache TO PUBLIC;

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

-- Result cache

CREATE FUNCTION sfcache.flush()
RETURNS void
LANGUAGE C STRICT
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_flush_0_1';
COMMENT ON FUNCTION sfcache.flush() IS
	'drop every cached result, in every database';
REVOKE ALL ON FUNCTION sfcache.flush() FROM PUBLIC;

-- Not STRICT: a null relation is an error. Only the relation's owner (or
-- a superuser) may call it: the C function checks.
CREATE FUNCTION sfcache.invalidate(rel regclass)
RETURNS void
LANGUAGE C
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_invalidate_0_1';
COMMENT ON FUNCTION sfcache.invalidate(regclass) IS
	'invalidate the cached results and plans that read a relation, for changes sfcache cannot see (owner only)';

-- Per-relation settings: a TTL that shortens sfcache.ttl, and exclusion.
CREATE TABLE sfcache.relation_settings (
	relid regclass PRIMARY KEY,
	ttl_seconds integer CHECK (ttl_seconds > 0),
	excluded boolean NOT NULL DEFAULT false
);
COMMENT ON TABLE sfcache.relation_settings IS
	'per-relation cache settings; change them with sfcache.set_ttl(), sfcache.exclude() and sfcache.include()';
SELECT pg_catalog.pg_extension_config_dump('sfcache.relation_settings', '');

-- Everybody reads every setting (each backend applies them all); a role
-- changes the settings of the relations it owns only.
-- pg_temp is named last: otherwise it would be searched first for
-- relations, and a temporary table called pg_class could answer for it.
CREATE FUNCTION sfcache.owns(rel regclass)
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
	SELECT pg_catalog.pg_has_role(CURRENT_USER, c.relowner, 'USAGE')
	FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) rel::pg_catalog.oid
$$;
ALTER TABLE sfcache.relation_settings ENABLE ROW LEVEL SECURITY;
CREATE POLICY read_all ON sfcache.relation_settings FOR SELECT USING (true);
CREATE POLICY owner_writes ON sfcache.relation_settings FOR ALL
	USING (sfcache.owns(relid)) WITH CHECK (sfcache.owns(relid));
GRANT SELECT, INSERT, UPDATE, DELETE ON sfcache.relation_settings TO PUBLIC;

CREATE FUNCTION sfcache.relation_settings_changed()
RETURNS trigger
LANGUAGE C
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_relation_settings_changed_0_1';

CREATE TRIGGER relation_settings_changed
	AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON sfcache.relation_settings
	FOR EACH STATEMENT EXECUTE FUNCTION sfcache.relation_settings_changed();

-- Settings of a dropped relation go with it. SECURITY DEFINER (any role's
-- DROP fires it): search_path is pinned and every object and operator
-- schema-qualified, so nothing another role created can take part.
CREATE FUNCTION sfcache.forget_dropped_relations()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	DELETE FROM sfcache.relation_settings s
	USING pg_catalog.pg_event_trigger_dropped_objects() d
	WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass::pg_catalog.oid
		AND s.relid::pg_catalog.oid OPERATOR(pg_catalog.=) d.objid;
END
$$;
REVOKE ALL ON FUNCTION sfcache.forget_dropped_relations() FROM PUBLIC;
CREATE EVENT TRIGGER sfcache_forget_dropped_relations ON sql_drop
	EXECUTE FUNCTION sfcache.forget_dropped_relations();

-- Errors unless rel is a table, view or materialized view the caller owns,
-- and not a system relation.
CREATE FUNCTION sfcache.check_settable(rel regclass, func text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	kind "char";
	owner oid;
	nsp name;
BEGIN
	IF rel IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = format('relation passed to %s must not be null', func),
			HINT = 'Pass a table, view or materialized view, for example ''public.announcement''::regclass.';
	END IF;
	SELECT c.relkind, c.relowner, n.nspname INTO kind, owner, nsp
	FROM pg_catalog.pg_class c
	JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
	WHERE c.oid OPERATOR(pg_catalog.=) rel::pg_catalog.oid;
	IF kind IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_table',
			MESSAGE = format('relation with OID %s does not exist', rel::pg_catalog.oid),
			DETAIL = 'It may have been dropped.',
			HINT = format('Pass an existing table, view or materialized view to %s.', func);
	END IF;
	IF rel::pg_catalog.oid OPERATOR(pg_catalog.<) 16384::pg_catalog.oid
		OR kind OPERATOR(pg_catalog.=) 't'::"char"
		OR nsp OPERATOR(pg_catalog.=) ANY (ARRAY['pg_catalog', 'information_schema', 'pg_toast']::name[])
		OR nsp::pg_catalog.text OPERATOR(pg_catalog.~~) 'pg\_toast\_temp\_%'
	THEN
		RAISE EXCEPTION USING ERRCODE = 'feature_not_supported',
			MESSAGE = format('cannot change cache settings of system relation %s', rel),
			DETAIL = format('%s applies to user tables, views and materialized views only; statements that read system catalogs are never cached.', func),
			HINT = 'Pass one of the application''s own relations.';
	END IF;
	IF kind NOT IN ('r', 'p', 'v', 'm') THEN
		RAISE EXCEPTION USING ERRCODE = 'wrong_object_type',
			MESSAGE = format('"%s" is not a table, view or materialized view', rel),
			DETAIL = format('%s applies to the relations that cached statements read.', func);
	END IF;
	IF NOT pg_catalog.pg_has_role(CURRENT_USER, owner, 'USAGE') THEN
		RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
			MESSAGE = format('must be owner of relation %s', rel);
	END IF;
END
$$;

CREATE FUNCTION sfcache.set_ttl(rel regclass, ttl interval)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	seconds numeric;
BEGIN
	PERFORM sfcache.check_settable(rel, 'sfcache.set_ttl()');
	IF ttl IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'TTL passed to sfcache.set_ttl() must not be null',
			HINT = 'To remove a relation''s TTL, call sfcache.reset_ttl().';
	END IF;
	seconds := ceil(extract(epoch FROM ttl));
	IF seconds <= 0 OR seconds > 2147483647 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('invalid TTL "%s"', ttl),
			DETAIL = 'The TTL must be positive and less than 68 years.',
			HINT = 'To keep statements on a relation out of the cache, call sfcache.exclude().';
	END IF;
	INSERT INTO sfcache.relation_settings (relid, ttl_seconds)
		VALUES (rel, seconds)
		ON CONFLICT (relid) DO UPDATE SET ttl_seconds = excluded.ttl_seconds;
	PERFORM sfcache.invalidate(rel);
END
$$;
COMMENT ON FUNCTION sfcache.set_ttl(regclass, interval) IS
	'serve results that read rel for at most ttl (the smallest TTL of a statement''s relations applies)';

CREATE FUNCTION sfcache.reset_ttl(rel regclass)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	PERFORM sfcache.check_settable(rel, 'sfcache.reset_ttl()');
	UPDATE sfcache.relation_settings SET ttl_seconds = NULL WHERE relid = rel;
	PERFORM sfcache.invalidate(rel);
END
$$;
COMMENT ON FUNCTION sfcache.reset_ttl(regclass) IS
	'remove the TTL set for rel: sfcache.ttl applies again';

CREATE FUNCTION sfcache.exclude(rel regclass)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	PERFORM sfcache.check_settable(rel, 'sfcache.exclude()');
	INSERT INTO sfcache.relation_settings (relid, excluded)
		VALUES (rel, true)
		ON CONFLICT (relid) DO UPDATE SET excluded = true;
	PERFORM sfcache.invalidate(rel);
END
$$;
COMMENT ON FUNCTION sfcache.exclude(regclass) IS
	'never cache statements that read rel';

CREATE FUNCTION sfcache.include(rel regclass)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	PERFORM sfcache.check_settable(rel, 'sfcache.include()');
	UPDATE sfcache.relation_settings SET excluded = false WHERE relid = rel;
	PERFORM sfcache.invalidate(rel);
END
$$;
COMMENT ON FUNCTION sfcache.include(regclass) IS
	'undo sfcache.exclude(): statements that read rel may be cached again';

-- Statistics

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

CREATE FUNCTION sfcache.bypass_counts(OUT reason text, OUT statements bigint)
RETURNS SETOF record
LANGUAGE C STRICT
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_bypass_counts_0_1';

CREATE VIEW sfcache.stats AS
	SELECT s.*,
		(SELECT pg_catalog.jsonb_object_agg(b.reason, b.statements)
		 FROM sfcache.bypass_counts() b WHERE b.statements > 0) AS bypass_reasons
	FROM sfcache.stats_counters() s;
COMMENT ON VIEW sfcache.stats IS
	'result cache counters of the whole cluster (every database: one shared cache) since the last sfcache.reset(); sfcache.statements has them per database';
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

CREATE FUNCTION sfcache.statement_keys(dbid oid, userid oid, queryid bigint)
RETURNS bigint
LANGUAGE C STRICT
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_statement_keys_0_1';

CREATE VIEW sfcache.statements AS
	SELECT s.*, sfcache.statement_keys(s.dbid, s.userid, s.queryid) AS distinct_keys
	FROM sfcache.statement_counters() s;
COMMENT ON VIEW sfcache.statements IS
	'result cache counters per statement (other roles'' need pg_read_all_stats)';
GRANT SELECT ON sfcache.statements TO PUBLIC;

CREATE FUNCTION sfcache.reset()
RETURNS void
LANGUAGE C STRICT
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_reset_0_1';
REVOKE ALL ON FUNCTION sfcache.reset() FROM PUBLIC;

-- Index advice

CREATE FUNCTION sfcache.whatif(statement text, index_ddl text[],
	search_path text DEFAULT pg_catalog.current_setting('search_path'),
	OUT cost_before float8, OUT cost_after float8, OUT indexes_used text[])
RETURNS record
LANGUAGE C VOLATILE
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_whatif_0_1';

COMMENT ON FUNCTION sfcache.whatif(text, text[], text) IS
	'estimated cost of a SELECT without and with hypothetical indexes (CREATE INDEX statements), and which of them its plan uses';

CREATE FUNCTION sfcache.hypothetical_index(index_ddl text,
	search_path text DEFAULT pg_catalog.current_setting('search_path'))
RETURNS text
LANGUAGE C VOLATILE
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
	OUT last_write timestamptz, OUT invalidations bigint,
	OUT last_invalidation timestamptz)
RETURNS SETOF record
LANGUAGE C STRICT VOLATILE
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_table_activity_0_4';

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

GRANT SELECT ON sfcache.advice_quals, sfcache.index_advice,
	sfcache.table_activity TO PUBLIC;


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
