-- EXPLAIN of a statement the cache takes: the cache node, and under it the
-- plan a miss runs, with that plan's estimates (the node's own are its
-- child's); under ANALYZE the child's actual rows on a miss, "never
-- executed" on a hit; the same in every format and with every option.
CREATE EXTENSION IF NOT EXISTS sfcache;
SET max_parallel_workers_per_gather = 0;
SET sfcache.advice_sample_rate = 0;
SELECT sfcache.flush();
SELECT sfcache.reset();
CREATE TABLE ex_course (id int PRIMARY KEY, title text, term int);
CREATE TABLE ex_term (id int PRIMARY KEY, name text);
INSERT INTO ex_term SELECT g, 'term ' || g FROM generate_series(1, 10) g;
INSERT INTO ex_course SELECT g, 'course ' || g, g % 10 + 1 FROM generate_series(1, 1000) g;
ANALYZE ex_course, ex_term;

-- plain EXPLAIN: nothing runs, the child is the plan a miss would run
EXPLAIN (COSTS OFF) SELECT title FROM ex_course WHERE id = 7;
-- with costs: the node's estimates are its child's (deterministic here:
-- an index scan of a 1000-row table with fresh statistics)
EXPLAIN SELECT title FROM ex_course WHERE id = 7;
-- ANALYZE: a miss shows the child's actual rows, a hit "never executed"
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT title FROM ex_course WHERE id = 7;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT title FROM ex_course WHERE id = 7;

-- statement kinds the cache wraps: joins, aggregates, subqueries and
-- init plans, CTEs, set operations, VALUES, TABLE, ORDER BY and LIMIT
EXPLAIN (COSTS OFF)
SELECT c.title, t.name FROM ex_course c JOIN ex_term t ON t.id = c.term WHERE c.id = 3;
EXPLAIN (COSTS OFF)
SELECT term, count(*) FROM ex_course GROUP BY term ORDER BY term LIMIT 3;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF)
SELECT title FROM ex_course WHERE term = (SELECT id FROM ex_term WHERE name = 'term 4') AND id < 30;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF)
SELECT title FROM ex_course c WHERE EXISTS (SELECT 1 FROM ex_term t WHERE t.id = c.term AND t.name = 'term 2') AND c.id < 12;
EXPLAIN (COSTS OFF)
WITH recent AS MATERIALIZED (SELECT id, title FROM ex_course WHERE id > 995)
SELECT title FROM recent ORDER BY id;
EXPLAIN (COSTS OFF)
SELECT id FROM ex_course WHERE id < 3 UNION SELECT id FROM ex_term WHERE id < 3;
EXPLAIN (COSTS OFF) VALUES (1, 'a'), (2, 'b');
EXPLAIN (COSTS OFF) TABLE ex_term;

-- prepared statements: a custom and a generic plan; the child is planned
-- with the parameters' values, as a miss plans it
PREPARE ex_by_id(int) AS SELECT title FROM ex_course WHERE id = $1;
EXPLAIN (COSTS OFF) EXECUTE ex_by_id(11);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) EXECUTE ex_by_id(11);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) EXECUTE ex_by_id(11);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) EXECUTE ex_by_id(12);
RESET plan_cache_mode;
DEALLOCATE ex_by_id;

-- options: TIMING OFF, SETTINGS, BUFFERS, costs with ANALYZE (VERBOSE and
-- SUMMARY print numbers that change from run to run: regress/t/026_explain.pl)
EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT title FROM ex_course WHERE id = 20;
EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF, SUMMARY OFF, BUFFERS OFF, SETTINGS) SELECT title FROM ex_course WHERE id = 21;
EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF, SUMMARY OFF, BUFFERS) SELECT title FROM ex_course WHERE id = 22;

-- structured formats carry the same fields; the child is the node's "Plans"
EXPLAIN (COSTS OFF, FORMAT JSON) SELECT title FROM ex_course WHERE id = 31;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF, FORMAT JSON) SELECT title FROM ex_course WHERE id = 31;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF, FORMAT YAML) SELECT title FROM ex_course WHERE id = 31;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF, FORMAT XML) SELECT title FROM ex_course WHERE id = 32;
EXPLAIN (FORMAT JSON) SELECT title FROM ex_course WHERE id = 33;

-- /* sfcache:off */ wherever a comment can stand before the statement's
-- first token: PostgreSQL's own plan, and the bypass line
/* sfcache:off */ EXPLAIN (COSTS OFF) SELECT title FROM ex_course WHERE id = 41;
EXPLAIN (COSTS OFF) /* sfcache:off */ SELECT title FROM ex_course WHERE id = 41;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) /* sfcache:off */ SELECT title FROM ex_course WHERE id = 41;
EXPLAIN /* sfcache:off */ (COSTS OFF) SELECT title FROM ex_course WHERE id = 41;
EXPLAIN ANALYZE VERBOSE -- sfcache:off
SELECT 1 FROM ex_course WHERE id = 41 \g /dev/null
EXPLAIN (COSTS OFF) /* just a comment */ SELECT title FROM ex_course WHERE id = 41;
SELECT 1 AS one; EXPLAIN (COSTS OFF) /* sfcache:off */ SELECT title FROM ex_course WHERE id = 42;
SELECT reason, statements FROM sfcache.bypass_counts() WHERE reason = 'opt-out comment';

DROP TABLE ex_course, ex_term;
