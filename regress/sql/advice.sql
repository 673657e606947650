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

CREATE TABLE lms_university (id serial PRIMARY KEY, name text NOT NULL);
CREATE TABLE lms_announcement (
	id bigserial PRIMARY KEY,
	university_id integer NOT NULL REFERENCES lms_university (id),
	title text NOT NULL,
	scope_ids jsonb NOT NULL DEFAULT '[]',
	tags jsonb NOT NULL DEFAULT '{}',
	is_deleted boolean NOT NULL DEFAULT false,
	display_time timestamptz NOT NULL,
	end_date timestamptz
);
CREATE TABLE lms_notification (
	id bigserial PRIMARY KEY,
	user_id integer NOT NULL,
	status varchar(16) NOT NULL,
	is_deleted boolean NOT NULL DEFAULT false,
	created_at timestamptz NOT NULL
);
-- Django's index for a foreign key
CREATE INDEX lms_notification_user_id_5e1a1b2c ON lms_notification (user_id);

INSERT INTO lms_university (name) SELECT 'university ' || i FROM generate_series(1, 50) i;
INSERT INTO lms_announcement (university_id, title, scope_ids, tags, is_deleted, display_time, end_date)
SELECT 1 + i % 50, 'announcement ' || i,
	jsonb_build_array(i % 500, (i * 7) % 500),
	CASE WHEN i % 100 = 0 THEN '{"urgent": true}' ELSE '{"kind": "news"}' END::jsonb,
	i % 10 = 0,
	timestamptz '2024-01-01 00:00+00' + (i % 365) * interval '1 day',
	CASE WHEN i % 3 = 0 THEN NULL ELSE timestamptz '2024-01-01 00:00+00' + (i % 365 + 30) * interval '1 day' END
FROM generate_series(1, 20000) i;
INSERT INTO lms_notification (user_id, status, is_deleted, created_at)
SELECT i % 200, (ARRAY['read', 'read', 'read', 'unread', 'archived'])[1 + i % 5], i % 7 = 0,
	timestamptz '2024-01-01 00:00+00' + i * interval '1 minute'
FROM generate_series(1, 50000) i;
ANALYZE lms_university, lms_announcement, lms_notification;

SELECT sfcache.advice_reset();

-- Sample rate 0 records nothing.
SET sfcache.advice_sample_rate = 0;
SELECT count(*) FROM "lms_announcement" WHERE "lms_announcement"."scope_ids" @> '[12]'::jsonb;
SELECT count(*) AS recorded FROM sfcache.advice_quals;
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
SELECT tablename, writes, invalidations, writes_per_minute > 0 AS has_rate,
	first_seen <= last_write AS ordered
FROM sfcache.table_activity WHERE tablename = 'lms_log';

-- advice_reset() forgets everything; it is for superusers only.
SELECT sfcache.advice_reset();
SELECT (SELECT count(*) FROM sfcache.advice_quals) AS quals,
	(SELECT count(*) FROM sfcache.index_advice) AS advice,
	(SELECT count(*) FROM sfcache.table_activity) AS tables;

