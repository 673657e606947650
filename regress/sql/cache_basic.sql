-- The result cache: hits and misses, what EXPLAIN shows, flush and
-- invalidate, and the statistics views.
CREATE EXTENSION IF NOT EXISTS sfcache;
SELECT sfcache.flush();
SELECT sfcache.reset();

CREATE TABLE course (id int PRIMARY KEY, title text, credits int);
INSERT INTO course SELECT g, 'course ' || g, g % 5 FROM generate_series(1, 100) g;

-- First a miss (this backend leads), then a hit.
SELECT count(*), sum(credits) FROM course;
SELECT count(*), sum(credits) FROM course;
SELECT hits, misses, stores, entries FROM sfcache.stats;

-- EXPLAIN shows the cache node; ANALYZE shows what happened.
EXPLAIN (COSTS OFF) SELECT title FROM course WHERE id = 7;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT title FROM course WHERE id = 7;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT title FROM course WHERE id = 7;
-- Another constant is another key.
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT title FROM course WHERE id = 8;

-- Rows come back identical, in order, with NULLs and wide values.
INSERT INTO course VALUES (101, NULL, NULL), (102, repeat('x', 5000), 3);
SELECT id, length(title), credits FROM course WHERE id > 99 ORDER BY id;
SELECT id, length(title), credits FROM course WHERE id > 99 ORDER BY id;
-- Columns only used for sorting do not reach the client.
SELECT title FROM course WHERE id BETWEEN 5 AND 8 ORDER BY credits DESC, id;
SELECT title FROM course WHERE id BETWEEN 5 AND 8 ORDER BY credits DESC, id;
-- An empty result is cached too.
SELECT * FROM course WHERE id < 0;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT * FROM course WHERE id < 0;

-- sfcache.invalidate() and sfcache.flush() drop results.
SELECT sfcache.invalidate('course');
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT title FROM course WHERE id = 7;
SELECT sfcache.flush();
SELECT entries FROM sfcache.stats;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT title FROM course WHERE id = 7;

-- Per statement: calls, hits, leader executions, distinct keys.
SELECT sfcache.reset();
SELECT title FROM course WHERE id = 1;
SELECT title FROM course WHERE id = 1;
SELECT title FROM course WHERE id = 2;
SELECT query, calls, hits, leader_executions, stores, bypasses, distinct_keys
FROM sfcache.statements WHERE query LIKE 'SELECT title FROM course%';

-- sfcache.cache = off bypasses, counted under "disabled".
SET sfcache.cache = off;
EXPLAIN (COSTS OFF) SELECT title FROM course WHERE id = 1;
RESET sfcache.cache;

-- sfcache.cache = coalesce merges concurrent identical statements but keeps
-- nothing: one after the other, each leads.
SET sfcache.cache = coalesce;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT title FROM course WHERE id = 3;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT title FROM course WHERE id = 3;
SELECT title FROM course WHERE id = 3;
RESET sfcache.cache;

-- A backend memoizes the key of a statement text it sees again and again
-- (cache_key_memo.c). The same text analyzed into another tree is another
-- statement all the same: another relation under another search_path,
-- another constant under another TimeZone.
CREATE SCHEMA memo_a;
CREATE SCHEMA memo_b;
CREATE TABLE memo_a.t (v text);
CREATE TABLE memo_b.t (v text);
INSERT INTO memo_a.t VALUES ('a');
INSERT INTO memo_b.t VALUES ('b');
SELECT sfcache.reset();
SET search_path = memo_a;
SELECT v FROM t;
SELECT v FROM t;
SELECT v FROM t;
SELECT v FROM t;
SET search_path = memo_b;
SELECT v FROM t;
SELECT v FROM t;
SET search_path = memo_a;
SELECT v FROM t;
RESET search_path;
SELECT calls, hits, leader_executions, distinct_keys
FROM sfcache.statements WHERE query = 'SELECT v FROM t' ORDER BY calls DESC;
CREATE TABLE memo_a.ts (t timestamptz);
INSERT INTO memo_a.ts VALUES ('2026-01-01 00:00:00+00');
SET TimeZone = 'UTC';
SELECT count(*) FROM memo_a.ts WHERE t = '2026-01-01 00:00:00';
SELECT count(*) FROM memo_a.ts WHERE t = '2026-01-01 00:00:00';
SELECT count(*) FROM memo_a.ts WHERE t = '2026-01-01 00:00:00';
SET TimeZone = 'Asia/Tokyo';
SELECT count(*) FROM memo_a.ts WHERE t = '2026-01-01 00:00:00';
RESET TimeZone;
SET client_min_messages = warning;
DROP SCHEMA memo_a, memo_b CASCADE;
RESET client_min_messages;

-- Invalid settings are refused.
SET sfcache.cache = sometimes;
SET sfcache.wait_timeout = -1;
SET sfcache.memory = '1GB';
SET sfcache.ttl = 0;

SELECT bypass_reasons ? 'volatile or stable function' AS counted_volatile FROM sfcache.stats;
DROP TABLE course;
