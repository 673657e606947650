-- Prepared statements hit, with custom and generic plans alike: the
-- parameters are part of the key, read at each execution.
CREATE EXTENSION IF NOT EXISTS sfcache;
CREATE TABLE notice (id int PRIMARY KEY, body text);
INSERT INTO notice SELECT g, 'notice ' || g FROM generate_series(1, 10) g;

PREPARE by_id(int) AS SELECT body FROM notice WHERE id = $1;
SET plan_cache_mode = force_custom_plan;
EXECUTE by_id(1);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) EXECUTE by_id(1);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) EXECUTE by_id(2);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) EXECUTE by_id(1);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) EXECUTE by_id(3);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) EXECUTE by_id(3);
EXECUTE by_id(3);
-- NULL and text parameters
PREPARE by_body(text) AS SELECT id FROM notice WHERE body = $1;
EXECUTE by_body('notice 4');
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) EXECUTE by_body('notice 4');
EXECUTE by_body(NULL);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) EXECUTE by_body(NULL);

-- a write invalidates the generic plan's results
UPDATE notice SET body = 'changed' WHERE id = 3;
EXECUTE by_id(3);
-- DDL replans the prepared statement; results follow
ALTER TABLE notice ADD COLUMN seen bool DEFAULT false;
EXECUTE by_id(3);
PREPARE all_cols(int) AS SELECT * FROM notice WHERE id = $1;
EXECUTE all_cols(3);
ALTER TABLE notice DROP COLUMN seen;
EXECUTE all_cols(3);
-- a generic plan made in a transaction that wrote the table bypasses there,
-- and caches once that transaction is over
BEGIN;
UPDATE notice SET body = 'notice 9' WHERE id = 9;
PREPARE in_write(int) AS SELECT body FROM notice WHERE id = $1;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) EXECUTE in_write(9);
COMMIT;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) EXECUTE in_write(9);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) EXECUTE in_write(9);
EXECUTE in_write(9);
RESET plan_cache_mode;
DEALLOCATE ALL;
DROP TABLE notice;
