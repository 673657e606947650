-- What is never cached, and the reason it is counted under.
CREATE EXTENSION IF NOT EXISTS sfcache;
CREATE TABLE lesson (id int PRIMARY KEY, starts timestamptz, topic text);
INSERT INTO lesson SELECT g, '2026-11-02 09:00+00'::timestamptz + g * interval '1 day', 'topic ' || g
FROM generate_series(1, 20) g;
CREATE SEQUENCE lesson_seq;
SELECT sfcache.reset();

-- stable or volatile functions, session values, sequences
EXPLAIN (COSTS OFF) SELECT count(*) FROM lesson WHERE starts < now();
EXPLAIN (COSTS OFF) SELECT id FROM lesson WHERE id = (random() * 0)::int + 1;
EXPLAIN (COSTS OFF) SELECT current_user, count(*) FROM lesson;
EXPLAIN (COSTS OFF) SELECT nextval('lesson_seq'), id FROM lesson WHERE id = 1;
EXPLAIN (COSTS OFF) SELECT last_value FROM lesson_seq;
-- immutable functions are fine, and so are those an administrator names
EXPLAIN (COSTS OFF) SELECT upper(topic) FROM lesson WHERE id = 1;
SET sfcache.immutable_functions = 'pg_catalog.now, no_such_function';
EXPLAIN (COSTS OFF) SELECT count(*) FROM lesson WHERE starts < now();
SET sfcache.immutable_functions = 'random';
EXPLAIN (COSTS OFF) SELECT count(*) FROM lesson WHERE starts < now();
SET sfcache.immutable_functions = 'public.now';
EXPLAIN (COSTS OFF) SELECT count(*) FROM lesson WHERE starts < now();
RESET sfcache.immutable_functions;
-- row locks
EXPLAIN (COSTS OFF) SELECT * FROM lesson WHERE id = 1 FOR UPDATE;
EXPLAIN (COSTS OFF) SELECT * FROM (SELECT * FROM lesson FOR SHARE) s WHERE id = 1;
-- temporary tables, catalogs
CREATE TEMP TABLE scratch AS SELECT 1 AS x;
EXPLAIN (COSTS OFF) SELECT x FROM scratch;
SELECT count(*) FROM pg_class WHERE relname = 'lesson';
-- data-modifying CTE
EXPLAIN (COSTS OFF) WITH d AS (DELETE FROM lesson WHERE id = 0 RETURNING *) SELECT * FROM d;
-- anonymous records, whose type is local to a backend
EXPLAIN (COSTS OFF) SELECT (id, topic) FROM lesson WHERE id = 1;
-- the opt-out comment
/* sfcache:off */ SELECT topic FROM lesson WHERE id = 2;
/* sfcache:off */ EXPLAIN (COSTS OFF) SELECT topic FROM lesson WHERE id = 2;
-- (only a leading comment counts)
EXPLAIN (COSTS OFF) /* sfcache:off */ SELECT topic FROM lesson WHERE id = 2;

-- isolation levels other than READ COMMITTED run uncached
BEGIN ISOLATION LEVEL REPEATABLE READ;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT topic FROM lesson WHERE id = 3;
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT topic FROM lesson WHERE id = 3;
COMMIT;
BEGIN ISOLATION LEVEL READ COMMITTED;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT topic FROM lesson WHERE id = 3;
COMMIT;
-- ... and the per-relation settings they read while planning take no
-- predicate lock: the only SIReadLock is on the table the statement scans,
-- none on sfcache.relation_settings (set_ttl/reset_ttl make this backend
-- read the settings again, in the SERIALIZABLE transaction)
SELECT sfcache.set_ttl('lesson', '1 hour');
SELECT sfcache.reset_ttl('lesson');
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT count(*) FROM lesson;
SELECT locktype, relation::regclass FROM pg_locks
WHERE pid = pg_backend_pid() AND mode = 'SIReadLock' ORDER BY 1, 2::text;
COMMIT;

-- statements inside functions are not top level
CREATE FUNCTION lesson_topic(int) RETURNS text LANGUAGE sql STABLE AS
$$ SELECT topic FROM lesson WHERE id = $1 $$;
SELECT lesson_topic(1);

-- a result over sfcache.max_entry_size runs uncached (and still returns every row)
SET sfcache.max_entry_size = '1kB';
SELECT count(*), min(length(t)) FROM (SELECT repeat(topic, 100) AS t FROM lesson) s;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT repeat(topic, 100) FROM lesson;
SELECT length(string_agg(t, '')) FROM (SELECT repeat(topic, 100) AS t FROM lesson) s;
RESET sfcache.max_entry_size;

-- sfcache.exclude() and sfcache.include()
SELECT sfcache.exclude('lesson');
EXPLAIN (COSTS OFF) SELECT topic FROM lesson WHERE id = 4;
SELECT sfcache.include('lesson');
EXPLAIN (COSTS OFF) SELECT topic FROM lesson WHERE id = 4;

-- Bypasses count executions (cache_plan.c): a plain EXPLAIN shows the
-- reason but runs nothing, so only the statements that ran are counted
-- here (EXPLAIN ANALYZE, and the SELECTs that called sfcache functions).
SELECT reason, statements FROM sfcache.bypass_counts() WHERE statements > 0 ORDER BY reason;

-- bad arguments
SELECT sfcache.exclude('lesson_seq');
SELECT sfcache.exclude(NULL);
SELECT sfcache.set_ttl('lesson', NULL);
SELECT sfcache.set_ttl('lesson', '-1 minute');
SELECT sfcache.set_ttl('lesson', '0');
SELECT sfcache.set_ttl('lesson_pkey', '1 minute');
SELECT sfcache.set_ttl('no_such_table', '1 minute');

DROP TABLE lesson, scratch;
DROP SEQUENCE lesson_seq;
DROP FUNCTION lesson_topic(int);
