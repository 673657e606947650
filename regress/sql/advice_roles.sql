-- The advice views show other roles' statements only to members of
-- pg_read_all_stats (as pg_stat_statements does).
CREATE EXTENSION IF NOT EXISTS sfcache;
-- The result cache would turn repeated statements into hits; these tests
-- count executions, so they run without it (advice_cache.sql runs with it).
SET sfcache.cache = off;
SET max_parallel_workers_per_gather = 0;
SET sfcache.advice_sample_rate = 1;
SELECT sfcache.advice_reset();
CREATE TABLE ro_event (id int, kind int, payload jsonb);
INSERT INTO ro_event SELECT i, i % 1000, jsonb_build_object('k', i % 50) FROM generate_series(1, 20000) i;
ANALYZE ro_event;
GRANT SELECT ON ro_event TO PUBLIC;
CREATE ROLE advice_reader;
CREATE ROLE advice_other;

-- recorded as the superuser
SELECT count(*) FROM ro_event WHERE kind = 7;
-- recorded as advice_other
SET ROLE advice_other;
SELECT count(*) FROM ro_event WHERE payload @> '{"k": 3}';
RESET ROLE;

SELECT expression, role::text = 'advice_other' AS by_other FROM sfcache.advice_quals ORDER BY expression;

SET ROLE advice_reader;
SELECT count(*) AS quals_seen FROM sfcache.advice_quals;
SELECT count(*) AS advice_seen FROM sfcache.index_advice;
SELECT sfcache.advice_reset();
RESET ROLE;

SET ROLE advice_other;
SELECT expression, role::text = 'advice_other' AS by_other FROM sfcache.advice_quals ORDER BY expression;
SELECT tablename, index_name FROM sfcache.index_advice ORDER BY index_name;
RESET ROLE;

GRANT pg_read_all_stats TO advice_reader;
SET ROLE advice_reader;
SELECT expression, role::text = 'advice_other' AS by_other FROM sfcache.advice_quals ORDER BY expression;
SELECT tablename, index_name FROM sfcache.index_advice ORDER BY index_name;
RESET ROLE;

SELECT sfcache.advice_reset();
DROP TABLE ro_event;
DROP ROLE advice_reader;
DROP ROLE advice_other;

