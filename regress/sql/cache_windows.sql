-- Validity windows (doc/DESIGN.md, "Validity windows"): a constant only
-- compared with <, <=, >, >= (BETWEEN) against a column is blanked in the
-- key; the entry keeps, per such constant, the interval in which it may
-- move without changing which rows pass, and serves only inside it.
CREATE EXTENSION IF NOT EXISTS sfcache;
SELECT sfcache.flush();
SELECT sfcache.reset();
\set o 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF)'
SET TimeZone = 'UTC';
SET DateStyle = 'ISO';

-- Values 10, 20, 20, 30 and a NULL; no index: the windows come from a
-- sequential scan.
CREATE TABLE w (id int PRIMARY KEY, v int);
INSERT INTO w VALUES (1, 10), (2, 20), (3, 20), (4, 30), (5, NULL);

-- v <= c: [max v <= c, min v > c)
:o SELECT count(*) FROM w WHERE v <= 20;
:o SELECT count(*) FROM w WHERE v <= 29;
SELECT count(*) FROM w WHERE v <= 29;
:o SELECT count(*) FROM w WHERE v <= 30;
SELECT count(*) FROM w WHERE v <= 30;
:o SELECT count(*) FROM w WHERE v <= 19;
SELECT count(*) FROM w WHERE v <= 19;
-- exactly at the lower bound: inside
:o SELECT count(*) FROM w WHERE v <= 10;
-- v < c: (max v < c, min v >= c]
:o SELECT count(*) FROM w WHERE v < 20;
:o SELECT count(*) FROM w WHERE v < 11;
SELECT count(*) FROM w WHERE v < 11;
:o SELECT count(*) FROM w WHERE v < 10;
SELECT count(*) FROM w WHERE v < 10;
-- v >= c: (max v < c, min v >= c]
:o SELECT count(*) FROM w WHERE v >= 20;
:o SELECT count(*) FROM w WHERE v >= 11;
:o SELECT count(*) FROM w WHERE v >= 21;
SELECT count(*) FROM w WHERE v >= 21;
-- v > c: [max v <= c, min v > c)
:o SELECT count(*) FROM w WHERE v > 20;
:o SELECT count(*) FROM w WHERE v > 29;
SELECT count(*) FROM w WHERE v > 29;
:o SELECT count(*) FROM w WHERE v > 30;
SELECT count(*) FROM w WHERE v > 30;
-- the constant on the left
:o SELECT count(*) FROM w WHERE 25 >= v;
:o SELECT count(*) FROM w WHERE 21 >= v;
SELECT count(*) FROM w WHERE 21 >= v;
-- no row on one side: that bound is open
:o SELECT count(*) FROM w WHERE v < 1000;
:o SELECT count(*) FROM w WHERE v < 100000;
SELECT count(*) FROM w WHERE v < 100000;
:o SELECT count(*) FROM w WHERE v > -5;
:o SELECT count(*) FROM w WHERE v > -50000;
-- BETWEEN: two windowed constants, each its own window
:o SELECT array_agg(id ORDER BY id) FROM w WHERE v BETWEEN 15 AND 25;
:o SELECT array_agg(id ORDER BY id) FROM w WHERE v BETWEEN 11 AND 29;
SELECT array_agg(id ORDER BY id) FROM w WHERE v BETWEEN 11 AND 29;
:o SELECT array_agg(id ORDER BY id) FROM w WHERE v BETWEEN 11 AND 30;
SELECT array_agg(id ORDER BY id) FROM w WHERE v BETWEEN 11 AND 30;
:o SELECT array_agg(id ORDER BY id) FROM w WHERE v BETWEEN 10 AND 30;
SELECT array_agg(id ORDER BY id) FROM w WHERE v BETWEEN 10 AND 30;
-- a NULL constant is keyed, not windowed
:o SELECT count(*) FROM w WHERE v <= NULL;
:o SELECT count(*) FROM w WHERE v <= NULL;
-- not windowed: an OR branch, a function argument, equality
:o SELECT count(*) FROM w WHERE v <= 20 OR v IS NULL;
:o SELECT count(*) FROM w WHERE v <= 21 OR v IS NULL;
:o SELECT count(*) FROM w WHERE abs(v) <= 21;
:o SELECT count(*) FROM w WHERE v = 20;

-- A write that moves a boundary invalidates, and the next window is new.
:o SELECT count(*) FROM w WHERE v <= 25;
INSERT INTO w VALUES (6, 22);
:o SELECT count(*) FROM w WHERE v <= 25;
SELECT count(*) FROM w WHERE v <= 25;
:o SELECT count(*) FROM w WHERE v <= 21;
SELECT count(*) FROM w WHERE v <= 21;

-- Prepared statements: a parameter used only in a range is windowed; one
-- also used elsewhere (here the select list) stays in the key.
SET plan_cache_mode = force_generic_plan;
PREPARE p1(int) AS SELECT count(*) FROM w AS p WHERE v > $1;
:o EXECUTE p1(20);
:o EXECUTE p1(21);
EXECUTE p1(21);
:o EXECUTE p1(22);
EXECUTE p1(22);
:o EXECUTE p1(NULL);
PREPARE p2(int) AS SELECT $1 AS c, count(*) FROM w AS p WHERE v > $1;
:o EXECUTE p2(20);
:o EXECUTE p2(21);
EXECUTE p2(21);
-- the same parameter in two ranges: both windows hold
PREPARE p3(int) AS SELECT count(*) FROM w AS p WHERE v >= $1 AND v <= $1;
:o EXECUTE p3(15);
:o EXECUTE p3(12);
EXECUTE p3(12);
:o EXECUTE p3(20);
EXECUTE p3(20);
RESET plan_cache_mode;

-- Through an index (with filters of the same clause: only rows of courses
-- 3 and 22 count), as Django 3.2 writes timezone.now(): every key would
-- be new. The SQL is what Django 3.2 sends (log_statement = all) for an app "dash".
CREATE TABLE dash_course (id serial PRIMARY KEY, title text NOT NULL);
CREATE TABLE dash_announcement (
	id serial PRIMARY KEY,
	course_id integer NOT NULL REFERENCES dash_course,
	title text NOT NULL,
	display_time timestamptz NOT NULL,
	end_date timestamptz NOT NULL,
	score numeric(8, 2) NOT NULL,
	day date NOT NULL);
CREATE INDEX ON dash_announcement (display_time);
CREATE INDEX ON dash_announcement (end_date);
INSERT INTO dash_course (title) SELECT 'course ' || g FROM generate_series(1, 30) g;
INSERT INTO dash_announcement (course_id, title, display_time, end_date, score, day)
	SELECT 1 + g % 30, 'a' || g,
		'2026-11-01 00:00+00'::timestamptz + g * interval '1 hour',
		'2026-11-01 00:00+00'::timestamptz + g * interval '1 hour' + interval '3 days',
		g / 10.0, '2026-11-01'::date + g / 24
	FROM generate_series(1, 2000) g;
ANALYZE dash_announcement;
:o SELECT "dash_announcement"."id", "dash_announcement"."course_id", "dash_announcement"."title", "dash_announcement"."display_time", "dash_announcement"."end_date", "dash_announcement"."score", "dash_announcement"."day" FROM "dash_announcement" WHERE ("dash_announcement"."course_id" IN (3, 22) AND "dash_announcement"."display_time" <= '2026-12-01T19:31:07.123456+00:00'::timestamptz AND "dash_announcement"."end_date" >= '2026-12-01T19:31:07.123456+00:00'::timestamptz) ORDER BY "dash_announcement"."display_time" DESC LIMIT 20;
SELECT "dash_announcement"."id", "dash_announcement"."course_id", "dash_announcement"."title", "dash_announcement"."display_time", "dash_announcement"."end_date", "dash_announcement"."score", "dash_announcement"."day" FROM "dash_announcement" WHERE ("dash_announcement"."course_id" IN (3, 22) AND "dash_announcement"."display_time" <= '2026-12-01T19:31:07.654321+00:00'::timestamptz AND "dash_announcement"."end_date" >= '2026-12-01T19:31:07.654321+00:00'::timestamptz) ORDER BY "dash_announcement"."display_time" DESC LIMIT 20;
-- another time zone (part of the key: it changes what timestamptz input
-- means), the same instants written otherwise: inside
SET TimeZone = 'America/New_York';
:o SELECT "dash_announcement"."id", "dash_announcement"."course_id", "dash_announcement"."title", "dash_announcement"."display_time", "dash_announcement"."end_date", "dash_announcement"."score", "dash_announcement"."day" FROM "dash_announcement" WHERE ("dash_announcement"."course_id" IN (3, 22) AND "dash_announcement"."display_time" <= '2026-12-01 15:00:00'::timestamptz AND "dash_announcement"."end_date" >= '2026-12-01 15:00:00'::timestamptz) ORDER BY "dash_announcement"."display_time" DESC LIMIT 20;
:o SELECT "dash_announcement"."id", "dash_announcement"."course_id", "dash_announcement"."title", "dash_announcement"."display_time", "dash_announcement"."end_date", "dash_announcement"."score", "dash_announcement"."day" FROM "dash_announcement" WHERE ("dash_announcement"."course_id" IN (3, 22) AND "dash_announcement"."display_time" <= '2026-12-01T20:59:59.999999+00:00'::timestamptz AND "dash_announcement"."end_date" >= '2026-12-01T20:59:59.999999+00:00'::timestamptz) ORDER BY "dash_announcement"."display_time" DESC LIMIT 20;
-- 16:00 New York is 21:00 UTC, a display_time of course 22: outside
:o SELECT "dash_announcement"."id", "dash_announcement"."course_id", "dash_announcement"."title", "dash_announcement"."display_time", "dash_announcement"."end_date", "dash_announcement"."score", "dash_announcement"."day" FROM "dash_announcement" WHERE ("dash_announcement"."course_id" IN (3, 22) AND "dash_announcement"."display_time" <= '2026-12-01 16:00:00'::timestamptz AND "dash_announcement"."end_date" >= '2026-12-01 16:00:00'::timestamptz) ORDER BY "dash_announcement"."display_time" DESC LIMIT 20;
SELECT "dash_announcement"."id", "dash_announcement"."course_id", "dash_announcement"."title", "dash_announcement"."display_time", "dash_announcement"."end_date", "dash_announcement"."score", "dash_announcement"."day" FROM "dash_announcement" WHERE ("dash_announcement"."course_id" IN (3, 22) AND "dash_announcement"."display_time" <= '2026-12-01 16:00:00'::timestamptz AND "dash_announcement"."end_date" >= '2026-12-01 16:00:00'::timestamptz) ORDER BY "dash_announcement"."display_time" DESC LIMIT 20;
SET TimeZone = 'UTC';
-- numeric and date (Django: score__gt=Decimal('12.50'), day__lt=date)
:o SELECT "dash_announcement"."id" FROM "dash_announcement" WHERE ("dash_announcement"."day" < '2026-11-02'::date AND "dash_announcement"."score" > 1.50);
:o SELECT "dash_announcement"."id" FROM "dash_announcement" WHERE ("dash_announcement"."day" < '2026-11-01'::date AND "dash_announcement"."score" > 1.55);
:o SELECT "dash_announcement"."id" FROM "dash_announcement" WHERE ("dash_announcement"."day" < '2026-11-02'::date AND "dash_announcement"."score" > 1.599);
SELECT "dash_announcement"."id" FROM "dash_announcement" WHERE ("dash_announcement"."day" < '2026-11-02'::date AND "dash_announcement"."score" > 1.599);
:o SELECT "dash_announcement"."id" FROM "dash_announcement" WHERE ("dash_announcement"."day" < '2026-11-02'::date AND "dash_announcement"."score" > 2.2);
SELECT "dash_announcement"."id" FROM "dash_announcement" WHERE ("dash_announcement"."day" < '2026-11-02'::date AND "dash_announcement"."score" > 2.2);
-- joins: the windowed column on either side (Django's select_related and
-- a reverse relation)
:o SELECT "dash_announcement"."id", "dash_course"."title" FROM "dash_announcement" INNER JOIN "dash_course" ON ("dash_announcement"."course_id" = "dash_course"."id") WHERE "dash_announcement"."display_time" <= '2026-11-01T05:31:07.123456+00:00'::timestamptz;
:o SELECT "dash_announcement"."id", "dash_course"."title" FROM "dash_announcement" INNER JOIN "dash_course" ON ("dash_announcement"."course_id" = "dash_course"."id") WHERE "dash_announcement"."display_time" <= '2026-11-01T05:59:59.999999+00:00'::timestamptz;
SELECT "dash_announcement"."id", "dash_course"."title" FROM "dash_announcement" INNER JOIN "dash_course" ON ("dash_announcement"."course_id" = "dash_course"."id") WHERE "dash_announcement"."display_time" <= '2026-11-01T05:59:59.999999+00:00'::timestamptz;
:o SELECT DISTINCT "dash_course"."title" FROM "dash_course" INNER JOIN "dash_announcement" ON ("dash_course"."id" = "dash_announcement"."course_id") WHERE "dash_announcement"."end_date" >= '2026-12-24T01:31:07.123456+00:00'::timestamptz;
:o SELECT DISTINCT "dash_course"."title" FROM "dash_course" INNER JOIN "dash_announcement" ON ("dash_course"."id" = "dash_announcement"."course_id") WHERE "dash_announcement"."end_date" >= '2026-12-24T01:00:00.000001+00:00'::timestamptz;
SELECT DISTINCT "dash_course"."title" FROM "dash_course" INNER JOIN "dash_announcement" ON ("dash_course"."id" = "dash_announcement"."course_id") WHERE "dash_announcement"."end_date" >= '2026-12-24T01:00:00.000001+00:00'::timestamptz ORDER BY 1;
-- the nullable side of a LEFT JOIN, restricted in its ON clause
:o SELECT c.id, count(a.id) FROM dash_course c LEFT JOIN dash_announcement a ON a.course_id = c.id AND a.display_time < '2026-11-01 03:30+00' WHERE c.id <= 5 GROUP BY c.id ORDER BY c.id;
:o SELECT c.id, count(a.id) FROM dash_course c LEFT JOIN dash_announcement a ON a.course_id = c.id AND a.display_time < '2026-11-01 04:00+00' WHERE c.id <= 5 GROUP BY c.id ORDER BY c.id;
SELECT c.id, count(a.id) FROM dash_course c LEFT JOIN dash_announcement a ON a.course_id = c.id AND a.display_time < '2026-11-01 04:00+00' WHERE c.id <= 5 GROUP BY c.id ORDER BY c.id;
:o SELECT c.id, count(a.id) FROM dash_course c LEFT JOIN dash_announcement a ON a.course_id = c.id AND a.display_time < '2026-11-01 04:00:00.000001+00' WHERE c.id <= 5 GROUP BY c.id ORDER BY c.id;
SELECT c.id, count(a.id) FROM dash_course c LEFT JOIN dash_announcement a ON a.course_id = c.id AND a.display_time < '2026-11-01 04:00:00.000001+00' WHERE c.id <= 5 GROUP BY c.id ORDER BY c.id;

-- timestamp without time zone
CREATE TABLE ev (id int PRIMARY KEY, at timestamp);
INSERT INTO ev VALUES (1, '2026-12-01 10:00'), (2, '2026-12-01 12:00'), (3, NULL);
:o SELECT id FROM ev WHERE at <= '2026-12-01 11:00:00.000001' ORDER BY id;
:o SELECT id FROM ev WHERE at <= '2026-12-01 11:59:59.999999' ORDER BY id;
:o SELECT id FROM ev WHERE at <= '2026-12-01 12:00' ORDER BY id;
SELECT id FROM ev WHERE at <= '2026-12-01 12:00' ORDER BY id;

-- text: the comparison's collation orders the window, not the column's
CREATE TABLE names (id int PRIMARY KEY, name text COLLATE "C");
INSERT INTO names VALUES (1, 'Bob'), (2, 'alice'), (3, 'carol');
:o SELECT array_agg(id ORDER BY id) FROM names WHERE name < 'b';
:o SELECT array_agg(id ORDER BY id) FROM names WHERE name < 'a';
SELECT array_agg(id ORDER BY id) FROM names WHERE name < 'a';
:o SELECT array_agg(id ORDER BY id) FROM names WHERE name < 'b' COLLATE "en-x-icu";
:o SELECT array_agg(id ORDER BY id) FROM names WHERE name < 'bz' COLLATE "en-x-icu";
SELECT array_agg(id ORDER BY id) FROM names WHERE name < 'bz' COLLATE "en-x-icu";
:o SELECT array_agg(id ORDER BY id) FROM names WHERE name < 'C' COLLATE "en-x-icu";
SELECT array_agg(id ORDER BY id) FROM names WHERE name < 'C' COLLATE "en-x-icu";

-- Served by a window: counted as hits and as window hits.
SELECT hits >= window_hits AND window_hits > 0 AS counted FROM sfcache.stats;
SELECT sum(window_hits) = (SELECT window_hits FROM sfcache.stats) AS per_statement
FROM sfcache.statements;
-- (the prepared statements' texts are their own, without PREPARE: their
-- alias tells them from the simple statements, which have $n too)
SELECT window_hits, query FROM sfcache.statements
WHERE query LIKE '%FROM w AS p WHERE%' ORDER BY query;

DROP TABLE w, dash_announcement, dash_course, ev, names;
