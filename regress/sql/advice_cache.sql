-- The index advice and the result cache together: a statement the cache
-- serves is recorded when its real plan runs (as leader or bypassing the
-- cache); a hit scans nothing and records nothing.
CREATE EXTENSION IF NOT EXISTS sfcache;
SET max_parallel_workers_per_gather = 0;
SET sfcache.advice_sample_rate = 1;
CREATE TABLE ac_post (id int PRIMARY KEY, tags jsonb, hidden bool);
INSERT INTO ac_post SELECT g, jsonb_build_array(g % 50), g % 10 = 0 FROM generate_series(1, 5000) g;
ANALYZE ac_post;
SELECT sfcache.advice_reset();

SELECT count(*) FROM ac_post WHERE tags @> '[7]';
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT count(*) FROM ac_post WHERE tags @> '[7]';
SELECT count(*) FROM ac_post WHERE tags @> '[7]';

SELECT tablename, expression, operator::text, qual_role, calls
FROM sfcache.advice_quals WHERE tablename = 'ac_post';
SELECT tablename, index_ddl, calls FROM sfcache.index_advice WHERE tablename = 'ac_post';

DROP TABLE ac_post;
SELECT sfcache.advice_reset();
