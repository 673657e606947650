-- Code labelled IMMUTABLE whose result comes from the catalogs
-- (cache_catalog.c): such statements bypass ("catalog lookup") or, when
-- STABLE code is involved, bypass as such; each is run until it would hit,
-- then the catalogs change, then it must see the change.
CREATE EXTENSION IF NOT EXISTS sfcache;
SET sfcache.admission = off;
CREATE TABLE cat_one (id int PRIMARY KEY, k text);
INSERT INTO cat_one VALUES (1, 'a');

-- 1. built-ins labelled IMMUTABLE that read the catalogs
-- partitions: pg_partition_root reads pg_inherits
CREATE TABLE cat_r (id int) PARTITION BY RANGE (id);
CREATE TABLE cat_r1 PARTITION OF cat_r FOR VALUES FROM (0) TO (10);
SELECT pg_partition_root('cat_r1'::regclass) FROM cat_one;
SELECT pg_partition_root('cat_r1'::regclass) FROM cat_one;
SELECT pg_partition_root('cat_r1'::regclass) FROM cat_one;
ALTER TABLE cat_r DETACH PARTITION cat_r1;
SELECT pg_partition_root('cat_r1'::regclass) FROM cat_one;
ALTER TABLE cat_r ATTACH PARTITION cat_r1 FOR VALUES FROM (0) TO (10);
SELECT pg_partition_root('cat_r1'::regclass) FROM cat_one;
-- in a WHERE clause, with a parameter
PREPARE cat_root(regclass) AS SELECT id FROM cat_one WHERE pg_partition_root($1) = 'cat_r'::regclass;
EXECUTE cat_root('cat_r1');
EXECUTE cat_root('cat_r1');
EXECUTE cat_root('cat_r1');
ALTER TABLE cat_r DETACH PARTITION cat_r1;
EXECUTE cat_root('cat_r1');
ALTER TABLE cat_r ATTACH PARTITION cat_r1 FOR VALUES FROM (0) TO (10);
EXECUTE cat_root('cat_r1');
DEALLOCATE cat_root;
EXPLAIN (COSTS OFF) SELECT pg_partition_root('cat_r1'::regclass) FROM cat_one;
-- as a user-defined operator's code
CREATE OPERATOR ##> (RIGHTARG = regclass, FUNCTION = pg_partition_root);
SELECT ##> 'cat_r1'::regclass FROM cat_one;
SELECT ##> 'cat_r1'::regclass FROM cat_one;
ALTER TABLE cat_r DETACH PARTITION cat_r1;
SELECT ##> 'cat_r1'::regclass FROM cat_one;
ALTER TABLE cat_r ATTACH PARTITION cat_r1 FOR VALUES FROM (0) TO (10);
EXPLAIN (COSTS OFF) SELECT ##> 'cat_r1'::regclass FROM cat_one;
DROP OPERATOR ##> (NONE, regclass);
-- hash partitions: satisfies_hash_partition opens the table
CREATE TABLE cat_h (id int) PARTITION BY HASH (id);
CREATE TABLE cat_h0 PARTITION OF cat_h FOR VALUES WITH (MODULUS 2, REMAINDER 0);
SELECT 'cat_h'::regclass::oid AS cat_h_oid \gset
SELECT satisfies_hash_partition(:cat_h_oid, 2, 0, id) FROM cat_one;
SELECT satisfies_hash_partition(:cat_h_oid, 2, 0, id) FROM cat_one;
SELECT satisfies_hash_partition(:cat_h_oid, 2, 0, id) FROM cat_one;
EXPLAIN (COSTS OFF) SELECT satisfies_hash_partition(:cat_h_oid, 2, 0, id) FROM cat_one;
DROP TABLE cat_h;
-- (the message names the OID: only the SQLSTATE is shown)
\set VERBOSITY sqlstate
SELECT satisfies_hash_partition(:cat_h_oid, 2, 0, id) FROM cat_one;
\set VERBOSITY default
-- index access methods: pg_indexam_progress_phasename reads pg_am
EXPLAIN (COSTS OFF) SELECT pg_indexam_progress_phasename(403, 2) FROM cat_one;
SELECT pg_indexam_progress_phasename(403, 2) FROM cat_one;
-- text search objects read by IMMUTABLE functions are watched by the
-- global generation: cached, and dropped by their DDL
CREATE TEXT SEARCH CONFIGURATION cat_ts (COPY = simple);
SELECT to_tsvector('cat_ts', k || ' the') FROM cat_one;
SELECT to_tsvector('cat_ts', k || ' the') FROM cat_one;
EXPLAIN (COSTS OFF) SELECT to_tsvector('cat_ts', k || ' the') FROM cat_one;
ALTER TEXT SEARCH CONFIGURATION cat_ts ALTER MAPPING FOR asciiword WITH english_stem;
SELECT to_tsvector('cat_ts', k || ' the') FROM cat_one;
-- STABLE catalog readers bypass as such
EXPLAIN (COSTS OFF) SELECT pg_partition_ancestors('cat_r1') FROM cat_one;

-- 2. values whose text comes from the catalogs, printed inside an
-- expression: regnamespace through jsonb_object_agg (a built-in IMMUTABLE
-- aggregate with STABLE support functions)
CREATE SCHEMA cat_s1;
CREATE TABLE cat_n (k text, n regnamespace, c regclass, r regrole, t regtype);
CREATE ROLE cat_role1;
CREATE TABLE cat_s1.cat_t ();
CREATE TYPE cat_s1.cat_ty AS (x int);
INSERT INTO cat_n VALUES ('a', 'cat_s1', 'cat_s1.cat_t', 'cat_role1', 'cat_s1.cat_ty');
SELECT jsonb_object_agg(k, n) FROM cat_n;
SELECT jsonb_object_agg(k, n) FROM cat_n;
SELECT jsonb_object_agg(k, n) FROM cat_n;
EXPLAIN (COSTS OFF) SELECT jsonb_object_agg(k, n) FROM cat_n;
-- xmlelement, xmlforest: printed by the node itself
SELECT xmlelement(name t, n)::text FROM cat_n;
SELECT xmlelement(name t, n)::text FROM cat_n;
SELECT xmlforest(c, k) FROM cat_n;
SELECT xmlforest(c, k) FROM cat_n;
SELECT xmlelement(name t, xmlattributes(r AS who), k) FROM cat_n;
SELECT xmlelement(name t, xmlattributes(r AS who), k) FROM cat_n;
EXPLAIN (COSTS OFF) SELECT xmlelement(name t, n) FROM cat_n;
EXPLAIN (COSTS OFF) SELECT xmlforest(c, k) FROM cat_n;
-- the type inside an array, a composite (the table's row), a domain
CREATE DOMAIN cat_dom AS regnamespace;
SELECT xmlelement(name t, array[n]) FROM cat_n;
SELECT xmlelement(name t, array[n]) FROM cat_n;
SELECT xmlelement(name t, x) FROM cat_n x;
SELECT xmlelement(name t, x) FROM cat_n x;
SELECT xmlelement(name t, n::cat_dom) FROM cat_n;
SELECT xmlelement(name t, n::cat_dom) FROM cat_n;
-- as a window function
SELECT jsonb_object_agg(k, c) OVER () FROM cat_n;
SELECT jsonb_object_agg(k, c) OVER () FROM cat_n;
-- the functions that print their arguments are STABLE: they bypass as such
EXPLAIN (COSTS OFF) SELECT to_jsonb(n) FROM cat_n;
EXPLAIN (COSTS OFF) SELECT row_to_json(x) FROM cat_n x;
EXPLAIN (COSTS OFF) SELECT jsonb_build_object('n', n) FROM cat_n;
EXPLAIN (COSTS OFF) SELECT format('%s', c), concat(r, '!') FROM cat_n;
EXPLAIN (COSTS OFF) SELECT string_agg(n::text, ',') FROM cat_n;
EXPLAIN (COSTS OFF) SELECT array_to_string(array[c], ',') FROM cat_n;
EXPLAIN (COSTS OFF) SELECT array[t]::text FROM cat_n;
EXPLAIN (COSTS OFF) SELECT json_agg(r) FROM cat_n;
SELECT to_jsonb(n), row_to_json(x)::text, format('%s', c), string_agg(t::text, ',') OVER () FROM cat_n x;
SELECT to_jsonb(n), row_to_json(x)::text, format('%s', c), string_agg(t::text, ',') OVER () FROM cat_n x;
-- a value without text from the catalogs is still cached by XMLELEMENT;
-- jsonb_object_agg never is, as jsonb_agg (its support functions are STABLE)
EXPLAIN (COSTS OFF) SELECT xmlelement(name t, k), xmlforest(k, 1 AS one) FROM cat_n;
EXPLAIN (COSTS OFF) SELECT jsonb_object_agg(k, 1) FROM cat_n;
-- the catalogs change: none of the results above is stale
ALTER SCHEMA cat_s1 RENAME TO cat_s2;
ALTER ROLE cat_role1 RENAME TO cat_role2;
SELECT jsonb_object_agg(k, n) FROM cat_n;
SELECT xmlelement(name t, n)::text FROM cat_n;
SELECT xmlforest(c, k) FROM cat_n;
SELECT xmlelement(name t, xmlattributes(r AS who), k) FROM cat_n;
SELECT xmlelement(name t, array[n]) FROM cat_n;
SELECT xmlelement(name t, x) FROM cat_n x;
SELECT xmlelement(name t, n::cat_dom) FROM cat_n;
SELECT jsonb_object_agg(k, c) OVER () FROM cat_n;
SELECT to_jsonb(n), row_to_json(x)::text, format('%s', c), string_agg(t::text, ',') OVER () FROM cat_n x;
-- search_path changes the text too
SET search_path = cat_s2, public;
SELECT xmlforest(c, k) FROM cat_n;
RESET search_path;
-- aclitem (role names) and enum labels
CREATE TABLE cat_acl (k text, a aclitem);
INSERT INTO cat_acl VALUES ('x', makeaclitem('cat_role2'::regrole, 'cat_role2'::regrole, 'SELECT', false));
SELECT xmlelement(name a, a) FROM cat_acl;
SELECT xmlelement(name a, a) FROM cat_acl;
SELECT jsonb_object_agg(k, a) FROM cat_acl;
SELECT jsonb_object_agg(k, a) FROM cat_acl;
CREATE TYPE cat_mood AS ENUM ('sad', 'ok');
CREATE TABLE cat_e (m cat_mood);
INSERT INTO cat_e VALUES ('ok');
EXPLAIN (COSTS OFF) SELECT xmlelement(name m, m) FROM cat_e;
ALTER ROLE cat_role2 RENAME TO cat_role3;
SELECT xmlelement(name a, a) FROM cat_acl;
SELECT jsonb_object_agg(k, a) FROM cat_acl;

SELECT reason, statements > 0 AS counted FROM sfcache.bypass_counts() WHERE reason = 'catalog lookup';
RESET sfcache.admission;
DROP TABLE cat_one, cat_r, cat_n, cat_acl, cat_e;
DROP DOMAIN cat_dom;
DROP TYPE cat_mood;
DROP SCHEMA cat_s2 CASCADE;
DROP TEXT SEARCH CONFIGURATION cat_ts;
DROP ROLE cat_role3;
