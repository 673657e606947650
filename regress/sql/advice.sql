-- Index advice: recording, suggestions verified with hypothetical indexes.
CREATE EXTENSION IF NOT EXISTS sfcache;
-- The result cache would turn repeated statements into hits; these tests
-- count executions, so they run without it (advice_cache.sql runs with it).
SET sfcache.cache = off;
-- A small Django-style schema; every output is deterministic (no costs,
-- only comparisons and rounded ratios).
SET max_parallel_workers_per_gather = 0;
SET sfcache.advice = on;
SET sfcache.advice_sample_rate = 1;

-- (pg_regress runs psql in the source tree's top directory)
\i regress/data/advice_lms.sql

-- Sample rate 0 records nothing.
SET sfcache.advice_sample_rate = 0;
SELECT count(*) FROM "lms_announcement" WHERE "lms_announcement"."scope_ids" @> '[12]'::jsonb;
SELECT count(*) AS recorded FROM sfcache.advice_quals;

-- A rate between 0 and 1 draws each statement with that probability (as
-- a count of losing draws, drawn once per sample: advice_hooks.c). 2,000
-- statements at 0.25: about 500 sampled (standard deviation 19; one in
-- five would be 400). The count is drawn again when the rate changes: 400
-- statements at 0.5 after one at 0.001 are sampled about 200 times, not
-- hardly ever.
SET sfcache.advice_sample_rate = 0.25;
\set ECHO none
\o /dev/null
SELECT 'SELECT count(*) FROM "lms_announcement" WHERE "lms_announcement"."scope_ids" @> ''[13]''::jsonb'
FROM generate_series(1, 2000) \gexec
\o
\set ECHO all
SELECT calls BETWEEN 420 AND 580 AS about_a_quarter FROM sfcache.advice_quals;
SELECT sfcache.advice_reset();
SET sfcache.advice_sample_rate = 0.001;
SELECT count(*) FROM "lms_announcement" WHERE "lms_announcement"."scope_ids" @> '[13]'::jsonb;
SET sfcache.advice_sample_rate = 0.5;
\set ECHO none
\o /dev/null
SELECT 'SELECT count(*) FROM "lms_announcement" WHERE "lms_announcement"."scope_ids" @> ''[13]''::jsonb'
FROM generate_series(1, 400) \gexec
\o
\set ECHO all
SELECT calls BETWEEN 140 AND 260 AS about_half FROM sfcache.advice_quals;
SELECT sfcache.advice_reset();
SET sfcache.advice_sample_rate = 1;

-- The dashboard's statements, as Django writes them.
SELECT "lms_announcement"."id", "lms_announcement"."title" FROM "lms_announcement"
WHERE "lms_announcement"."scope_ids" @> '[12]'::jsonb;
SELECT count(*) FROM "lms_announcement" WHERE "lms_announcement"."tags" ? 'urgent';
SELECT "lms_announcement"."id" FROM "lms_announcement"
WHERE "lms_announcement"."university_id" = 7 AND NOT "lms_announcement"."is_deleted"
	AND "lms_announcement"."display_time" <= '2024-03-01 00:00+00'
	AND ("lms_announcement"."end_date" IS NULL OR "lms_announcement"."end_date" >= '2024-03-01 00:00+00')
ORDER BY "lms_announcement"."display_time" DESC LIMIT 3;
SELECT "lms_announcement"."id" FROM "lms_announcement"
WHERE "lms_announcement"."university_id" = 9 AND NOT "lms_announcement"."is_deleted"
	AND "lms_announcement"."display_time" <= '2024-05-01 00:00+00'
	AND ("lms_announcement"."end_date" IS NULL OR "lms_announcement"."end_date" >= '2024-05-01 00:00+00')
ORDER BY "lms_announcement"."display_time" DESC LIMIT 3;
-- a primary key lookup and a filter returning most of the table: no advice
SELECT "lms_announcement"."title" FROM "lms_announcement" WHERE "lms_announcement"."id" = 42;
SELECT count(*) FROM "lms_announcement" WHERE NOT "lms_announcement"."is_deleted";
-- served partly by the foreign key index, most rows then removed by filter
SELECT count(*) FROM "lms_notification"
WHERE "lms_notification"."user_id" = 3 AND "lms_notification"."status" = 'unread'
	AND NOT "lms_notification"."is_deleted";

-- What was recorded (constants are not).
SELECT tablename, expression, operator, qual_role, kind, calls, rows_scanned > rows_returned AS removed_rows,
	cardinality(queryids) AS queries, constant_varies
FROM sfcache.advice_quals
ORDER BY tablename, expression, operator::text, qual_role;

-- The advice: one row per index, verified with hypothetical indexes.
SELECT tablename, index_ddl, replaces, calls, rows_scanned > rows_returned AS scans_more_than_returns,
	cardinality(queryids) > 0 AS has_queries, cost_after < cost_before AS cheaper,
	benefit >= 0.3 AS benefit_ok, estimated_size > 0 AS has_size
FROM sfcache.index_advice
ORDER BY tablename, index_ddl;

-- Once the GIN index exists, its advice goes away.
CREATE INDEX lms_announcement_scope_ids_gin ON lms_announcement USING gin (scope_ids jsonb_path_ops);
SELECT tablename, index_ddl FROM sfcache.index_advice ORDER BY tablename, index_ddl;
DROP INDEX lms_announcement_scope_ids_gin;

-- An index created for the advice silences it; the partial one is verified.
CREATE INDEX lms_announcement_partial ON lms_announcement (university_id, display_time) WHERE NOT is_deleted;
SELECT tablename, index_name FROM sfcache.index_advice ORDER BY tablename, index_name;
DROP INDEX lms_announcement_partial;

-- A higher bar drops the weaker suggestions.
SET sfcache.advice_min_benefit = 0.99;
SELECT count(*) AS suggestions FROM sfcache.index_advice;
RESET sfcache.advice_min_benefit;

-- Writes per table: INSERT, UPDATE, DELETE, COPY and TRUNCATE count, each
-- statement a write, each committed transaction an invalidation.
CREATE TABLE lms_log (id int, msg text);
BEGIN;
INSERT INTO lms_log VALUES (0, 'x');
DELETE FROM lms_log WHERE id = 0;
COMMIT;
INSERT INTO lms_log VALUES (1, 'a'), (2, 'b');
UPDATE lms_log SET msg = 'c' WHERE id = 1;
DELETE FROM lms_log WHERE id = 2;
COPY lms_log FROM stdin;
3	d
\.
TRUNCATE lms_log;
-- Written within a minute: no rate (rates come from sustained traffic).
SELECT tablename, writes, invalidations, writes_per_minute,
	invalidations_per_minute, first_seen <= last_write AS ordered
FROM sfcache.table_activity WHERE tablename = 'lms_log';
-- A view read is not listed; a materialized view refreshed is listed (its
-- invalidations), with last_write NULL: never written by a statement.
CREATE VIEW lms_log_view AS SELECT * FROM lms_log;
CREATE MATERIALIZED VIEW lms_log_mv AS SELECT * FROM lms_log;
REFRESH MATERIALIZED VIEW lms_log_mv;
SELECT tablename, last_write IS NULL AS never_written FROM sfcache.table_activity
WHERE tablename LIKE 'lms_log%' ORDER BY 1;

-- advice_reset() forgets everything; it is for superusers only.
SELECT sfcache.advice_reset();
SELECT (SELECT count(*) FROM sfcache.advice_quals) AS quals,
	(SELECT count(*) FROM sfcache.index_advice) AS advice,
	(SELECT count(*) FROM sfcache.table_activity) AS tables;

