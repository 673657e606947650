-- The cache and the index advice act only in a database where sfcache is
-- created. Another database of the cluster behaves as without sfcache: no
-- cache node in its plans, no "sfcache: bypass" line, no counter moves,
-- nothing recorded; DROP EXTENSION frees the database's results.
CREATE EXTENSION IF NOT EXISTS sfcache;
\set regress_db :DBNAME
SELECT sfcache.reset();
CREATE DATABASE sfc_plain;
CREATE DATABASE sfc_dropped;
-- one reading, the same text before and after: it counts one bypass of
-- its own, and its shape is registered by the first
\set read_stats 'SELECT hits, misses, stores, bypasses, entries, untracked_statements, (SELECT count(*) FROM sfcache.statements) AS shapes FROM sfcache.stats'
:read_stats \gset before_

\c sfc_plain
SET sfcache.advice = on;
SET sfcache.advice_sample_rate = 1;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE plain_t (id int PRIMARY KEY, v text, doc jsonb);
INSERT INTO plain_t SELECT g, 'v' || g, jsonb_build_object('k', g) FROM generate_series(1, 100) g;
ANALYZE plain_t;
SELECT v FROM plain_t WHERE id = 1;
SELECT v FROM plain_t WHERE id = 1;
SELECT count(*) FROM plain_t WHERE doc @> '{"k": 7}';
EXPLAIN (COSTS OFF) SELECT v FROM plain_t WHERE id = 1;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT v FROM plain_t WHERE id = 1;
-- not cacheable: no bypass line either
EXPLAIN (COSTS OFF) SELECT v FROM plain_t WHERE id = 1 AND now() IS NOT NULL;
PREPARE p(int) AS SELECT v FROM plain_t WHERE id = $1;
EXECUTE p(2);
EXECUTE p(2);
EXPLAIN (COSTS OFF) EXECUTE p(2);
UPDATE plain_t SET v = 'w' WHERE id = 3;
DEALLOCATE p;

\c :regress_db
-- nothing moved, no statement was registered
:read_stats \gset after_
SELECT :after_hits - :before_hits AS hits, :after_misses - :before_misses AS misses,
	:after_stores - :before_stores AS stores,
	:after_bypasses - :before_bypasses AS bypasses_of_the_reading,
	:after_entries - :before_entries AS entries,
	:after_untracked_statements - :before_untracked_statements AS untracked,
	:after_shapes - :before_shapes AS shapes;

-- created there: from now on the advice records and the cache caches
\c sfc_plain
CREATE EXTENSION sfcache;
SELECT count(*) AS quals FROM sfcache.advice_quals;
SELECT count(*) AS plain_t_activity FROM sfcache.table_activity WHERE tablename = 'plain_t';
SET sfcache.advice = on;
SET sfcache.advice_sample_rate = 1;
SET max_parallel_workers_per_gather = 0;
SELECT count(*) FROM plain_t WHERE doc @> '{"k": 7}';
UPDATE plain_t SET v = 'x' WHERE id = 3;
SELECT tablename, expression, operator FROM sfcache.advice_quals ORDER BY 2;
SELECT tablename, writes FROM sfcache.table_activity WHERE tablename = 'plain_t';
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT v FROM plain_t WHERE id = 1;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT v FROM plain_t WHERE id = 1;

-- DROP EXTENSION frees the database's results, and only its
\c sfc_dropped
CREATE EXTENSION sfcache;
CREATE TABLE dropped_t (id int PRIMARY KEY, v text);
INSERT INTO dropped_t SELECT g, 'v' || g FROM generate_series(1, 10) g;
SELECT v FROM dropped_t WHERE id = 1;
SELECT v FROM dropped_t WHERE id = 2;
SELECT v FROM dropped_t WHERE id = 3;
SELECT entries AS with_dropped FROM sfcache.stats \gset
DROP EXTENSION sfcache;
\c sfc_plain
SET max_parallel_workers_per_gather = 0;
SELECT :with_dropped - entries AS freed FROM sfcache.stats;
-- (sfc_dropped's three; sfc_plain's stays, though dropping functions
-- moved the global generation: it is computed again)
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT v FROM plain_t WHERE id = 1;
-- and a DROP that rolls back frees nothing
BEGIN;
DROP EXTENSION sfcache;
EXPLAIN (COSTS OFF) SELECT v FROM plain_t WHERE id = 1;
ROLLBACK;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT v FROM plain_t WHERE id = 1;

\c :regress_db
DROP DATABASE sfc_plain;
DROP DATABASE sfc_dropped;
