/* sfcache--0.1--0.2.sql: from sfcache 0.1 to 0.2 (security fixes) */

\echo Use "ALTER EXTENSION sfcache UPDATE TO '0.2'" to load this file. \quit

-- Not STRICT: a null relation is an error. Only the relation's owner (or
-- a superuser) may call it: the C function checks.
ALTER FUNCTION sfcache.invalidate(regclass) CALLED ON NULL INPUT;
COMMENT ON FUNCTION sfcache.invalidate(regclass) IS
	'invalidate the cached results and plans that read a relation, for changes sfcache cannot see (owner only)';

-- pg_temp is named last: otherwise it would be searched first for
-- relations, and a temporary table called pg_class could answer for it.
-- Every object and operator is schema-qualified.
CREATE OR REPLACE FUNCTION sfcache.owns(rel regclass)
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
	SELECT pg_catalog.pg_has_role(CURRENT_USER, c.relowner, 'USAGE')
	FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) rel::pg_catalog.oid
$$;

-- SECURITY DEFINER (any role's DROP fires it): search_path is pinned and
-- every object and operator schema-qualified, so nothing another role
-- created can take part.
CREATE OR REPLACE FUNCTION sfcache.forget_dropped_relations()
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

-- Errors unless rel is a table, view or materialized view the caller owns,
-- and not a system relation.
CREATE OR REPLACE FUNCTION sfcache.check_settable(rel regclass, func text)
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

-- Not STRICT: a null argument is an error the C functions report.
ALTER FUNCTION sfcache.whatif(text, text[], text) CALLED ON NULL INPUT;
ALTER FUNCTION sfcache.hypothetical_index(text, text) CALLED ON NULL INPUT;
