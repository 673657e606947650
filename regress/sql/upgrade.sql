-- The upgrade path: sfcache 0.1 updated to the current version must have
-- exactly the objects of a fresh CREATE EXTENSION. Done in a database of
-- its own, so the other tests keep the extension "install" created.
\set regress_db :DBNAME
CREATE DATABASE sfcache_upgrade;
\c sfcache_upgrade

-- Every object of the extension, described by what defines it: functions
-- by pg_get_functiondef (arguments, strictness, volatility, SECURITY
-- DEFINER, settings, body) with their privileges, relations by their
-- columns, constraints, indexes, triggers, policies and view definitions,
-- the event trigger, comments, membership and the configuration tables.
CREATE VIEW public.sfcache_objects AS
WITH ext AS (SELECT oid, extconfig FROM pg_extension WHERE extname = 'sfcache'),
members AS (
	SELECT d.classid, d.objid FROM pg_depend d, ext
	WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid
	  AND d.deptype = 'e'
)
SELECT 'member' AS kind, pg_describe_object(classid, objid, 0) AS object,
	coalesce(obj_description(objid, classid::regclass::name), '') AS definition
FROM members
UNION ALL
SELECT 'function', p.oid::regprocedure::text,
	pg_get_functiondef(p.oid) || ' ACL ' || coalesce(p.proacl::text, 'default')
		|| ' COST ' || p.procost || ' ROWS ' || p.prorows
FROM pg_proc p JOIN members m ON m.classid = 'pg_proc'::regclass AND m.objid = p.oid
WHERE p.prokind <> 'a'
UNION ALL
SELECT 'relation', c.oid::regclass::text,
	c.relkind::text || ' rls ' || c.relrowsecurity || ' ACL ' || coalesce(c.relacl::text, 'default')
		|| coalesce(' VIEW ' || pg_get_viewdef(c.oid), '')
		|| coalesce(' OPTIONS ' || c.reloptions::text, '')
FROM pg_class c JOIN members m ON m.classid = 'pg_class'::regclass AND m.objid = c.oid
UNION ALL
SELECT 'column', a.attrelid::regclass || '.' || a.attname,
	format_type(a.atttypid, a.atttypmod) || ' notnull ' || a.attnotnull
		|| coalesce(' DEFAULT ' || pg_get_expr(ad.adbin, ad.adrelid), '')
		|| ' ACL ' || coalesce(a.attacl::text, 'default')
FROM pg_attribute a
JOIN members m ON m.classid = 'pg_class'::regclass AND m.objid = a.attrelid
LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
WHERE a.attnum > 0 AND NOT a.attisdropped
UNION ALL
SELECT 'constraint', co.conrelid::regclass || '.' || co.conname, pg_get_constraintdef(co.oid)
FROM pg_constraint co JOIN members m ON m.classid = 'pg_class'::regclass AND m.objid = co.conrelid
UNION ALL
SELECT 'index', i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
FROM pg_index i JOIN members m ON m.classid = 'pg_class'::regclass AND m.objid = i.indrelid
UNION ALL
SELECT 'trigger', t.tgrelid::regclass || '.' || t.tgname, pg_get_triggerdef(t.oid)
FROM pg_trigger t JOIN members m ON m.classid = 'pg_class'::regclass AND m.objid = t.tgrelid
WHERE NOT t.tgisinternal
UNION ALL
SELECT 'policy', pol.polrelid::regclass || '.' || pol.polname,
	pol.polcmd::text || ' permissive ' || pol.polpermissive
		|| ' roles ' || (SELECT string_agg(CASE WHEN r = 0 THEN 'public' ELSE r::regrole::text END, ',' ORDER BY 1)
						 FROM unnest(pol.polroles) r)
		|| coalesce(' USING ' || pg_get_expr(pol.polqual, pol.polrelid), '')
		|| coalesce(' WITH CHECK ' || pg_get_expr(pol.polwithcheck, pol.polrelid), '')
FROM pg_policy pol JOIN members m ON m.classid = 'pg_class'::regclass AND m.objid = pol.polrelid
UNION ALL
SELECT 'event trigger', e.evtname,
	e.evtevent || ' ' || e.evtfoid::regprocedure || ' ' || e.evtenabled::text
		|| coalesce(' TAGS ' || e.evttags::text, '')
FROM pg_event_trigger e JOIN members m ON m.classid = 'pg_event_trigger'::regclass AND m.objid = e.oid
UNION ALL
SELECT 'schema', n.nspname, coalesce(n.nspacl::text, 'default')
FROM pg_namespace n WHERE n.nspname = 'sfcache'
UNION ALL
SELECT 'config', 'extconfig', coalesce(ext.extconfig::regclass[]::text, '')
FROM ext;

-- 0.1, then updated.
CREATE EXTENSION sfcache VERSION '0.1';
SELECT extversion FROM pg_extension WHERE extname = 'sfcache';
ALTER EXTENSION sfcache UPDATE TO '0.4';
SELECT extversion, sfcache.version() = extversion AS library_matches_sql
FROM pg_extension WHERE extname = 'sfcache';
CREATE TABLE upgraded AS SELECT * FROM public.sfcache_objects;

-- Fresh.
DROP EXTENSION sfcache;
CREATE EXTENSION sfcache;
SELECT extversion FROM pg_extension WHERE extname = 'sfcache';
CREATE TABLE fresh AS SELECT * FROM public.sfcache_objects;

-- Identical: nothing in one and not in the other.
SELECT kind, count(*) FROM fresh GROUP BY kind ORDER BY kind;
SELECT 'only after the update' AS side, * FROM (TABLE upgraded EXCEPT TABLE fresh) u
UNION ALL
SELECT 'only when fresh', * FROM (TABLE fresh EXCEPT TABLE upgraded) f
ORDER BY 1, 2, 3;

-- The update path is known to the server.
SELECT source, target, path FROM pg_extension_update_paths('sfcache')
WHERE path IS NOT NULL ORDER BY 1, 2;

\c :regress_db
DROP DATABASE sfcache_upgrade;
