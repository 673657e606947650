/* sfcache--0.1.sql: objects of sfcache 0.1, created in schema sfcache */

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

CREATE FUNCTION sfcache.invalidate(rel regclass)
RETURNS void
LANGUAGE C STRICT
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_invalidate_0_1';
COMMENT ON FUNCTION sfcache.invalidate(regclass) IS
	'invalidate the cached results that read a relation, for changes sfcache cannot see';

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
CREATE FUNCTION sfcache.owns(rel regclass)
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog
AS $$
	SELECT pg_has_role(current_user, c.relowner, 'USAGE')
	FROM pg_class c WHERE c.oid = rel
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

-- Settings of a dropped relation go with it.
CREATE FUNCTION sfcache.forget_dropped_relations()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	DELETE FROM sfcache.relation_settings s
	USING pg_event_trigger_dropped_objects() d
	WHERE d.classid = 'pg_class'::regclass AND s.relid::oid = d.objid;
END
$$;
REVOKE ALL ON FUNCTION sfcache.forget_dropped_relations() FROM PUBLIC;
CREATE EVENT TRIGGER sfcache_forget_dropped_relations ON sql_drop
	EXECUTE FUNCTION sfcache.forget_dropped_relations();

-- Errors unless rel is a table, view or materialized view the caller owns.
CREATE FUNCTION sfcache.check_settable(rel regclass, func text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	kind "char";
	owner oid;
BEGIN
	IF rel IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = format('relation passed to %s must not be null', func),
			HINT = 'Pass a table, view or materialized view, for example ''public.announcement''::regclass.';
	END IF;
	SELECT relkind, relowner INTO kind, owner FROM pg_class WHERE oid = rel;
	IF kind IS NULL OR kind NOT IN ('r', 'p', 'v', 'm') THEN
		RAISE EXCEPTION USING ERRCODE = 'wrong_object_type',
			MESSAGE = format('"%s" is not a table, view or materialized view', rel),
			DETAIL = format('%s applies to the relations that cached statements read.', func);
	END IF;
	IF NOT pg_has_role(current_user, owner, 'USAGE') THEN
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
END
$$;
COMMENT ON FUNCTION sfcache.include(regclass) IS
	'undo sfcache.exclude(): statements that read rel may be cached again';

-- Statistics

CREATE FUNCTION sfcache.stats_counters(
	OUT hits bigint, OUT misses bigint, OUT coalesced bigint,
	OUT handoffs bigint, OUT stores bigint, OUT evictions bigint,
	OUT invalidations bigint, OUT expirations bigint, OUT wait_timeouts bigint,
	OUT bypasses bigint, OUT bytes_used bigint, OUT entries bigint,
	OUT untracked_statements bigint, OUT reset_at timestamptz)
RETURNS record
LANGUAGE C STRICT
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_stats_0_1';

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
COMMENT ON VIEW sfcache.stats IS 'result cache counters since the last sfcache.reset()';
GRANT SELECT ON sfcache.stats TO PUBLIC;

CREATE FUNCTION sfcache.statement_counters(
	OUT dbid oid, OUT userid oid, OUT queryid bigint, OUT query text,
	OUT calls bigint, OUT hits bigint, OUT coalesced bigint, OUT misses bigint,
	OUT stores bigint, OUT bypasses bigint, OUT last_bypass_reason text,
	OUT bytes_stored bigint)
RETURNS SETOF record
LANGUAGE C STRICT
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_statements_0_1';

CREATE FUNCTION sfcache.statement_keys(dbid oid, userid oid, queryid bigint)
RETURNS bigint
LANGUAGE C STRICT
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_statement_keys_0_1';

CREATE VIEW sfcache.statements AS
	SELECT s.*, sfcache.statement_keys(s.dbid, s.userid, s.queryid) AS distinct_keys
	FROM sfcache.statement_counters() s;
COMMENT ON VIEW sfcache.statements IS
	'result cache counters per statement shape (other roles'' need pg_read_all_stats)';
GRANT SELECT ON sfcache.statements TO PUBLIC;

CREATE FUNCTION sfcache.reset()
RETURNS void
LANGUAGE C STRICT
SET search_path = pg_catalog
AS 'MODULE_PATHNAME', 'sfcache_reset_0_1';
REVOKE ALL ON FUNCTION sfcache.reset() FROM PUBLIC;
