-- Validity windows found in the leader's own scan (cache_window_scan.c):
-- a sequential, bitmap heap or index scan that reads every row passing a
-- windowed conjunct's filters gives its bounds, on a table of any size,
-- with no second scan. Anything else falls back to index probes on the
-- windowed column, or to a point (served again only for the same value).
-- Which rows a window spans is read from the counters: a constant inside
-- the window is a window hit, one outside a miss.
CREATE EXTENSION IF NOT EXISTS sfcache;
SELECT sfcache.flush();
SET max_parallel_workers_per_gather = 0;

-- 200,000 rows, more than the 100,000 the second scan of earlier versions
-- read before giving up; t = 10 * id, NULL for every 7th id; grp = id % 10;
-- no index on t.
CREATE TABLE big (id int PRIMARY KEY, t int, grp int, name text);
INSERT INTO big
	SELECT g, CASE WHEN g % 7 = 0 THEN NULL ELSE 10 * g END, g % 10, 'n' || lpad(g::text, 7, '0')
	FROM generate_series(1, 200000) g;
ANALYZE big;
\set seen 'SELECT hits, misses, window_hits FROM sfcache.stats'

-- A sequential scan, t <= c: [max t <= c, min t > c) = [1000000, 1000010)
EXPLAIN (COSTS OFF) SELECT count(*) FROM big WHERE t <= 1000005;
SELECT sfcache.reset();
SELECT count(*) FROM big WHERE t <= 1000005;
SELECT count(*) FROM big WHERE t <= 1000000;
SELECT count(*) FROM big WHERE t <= 1000009;
:seen;
-- outside: a miss, whose own window is new
SELECT count(*) FROM big WHERE t <= 1000010;
SELECT count(*) FROM big WHERE t <= 999999;
:seen;

-- t > c across a NULL: id 100002 has no t, so [1000010, 1000030)
SELECT sfcache.reset();
SELECT count(*) FROM big WHERE t > 1000015;
SELECT count(*) FROM big WHERE t > 1000010;
SELECT count(*) FROM big WHERE t > 1000029;
:seen;
SELECT count(*) FROM big WHERE t > 1000030;
:seen;

-- t < c and t >= c: (max t < c, min t >= c], a boundary exactly at a value
SELECT sfcache.reset();
SELECT count(*) FROM big WHERE t < 1000000;
SELECT count(*) FROM big WHERE t < 999991;
SELECT count(*) FROM big WHERE t < 999990;
:seen;
SELECT count(*) FROM big WHERE t >= 500001;
SELECT count(*) FROM big WHERE t >= 500010;
SELECT count(*) FROM big WHERE t >= 500011;
:seen;

-- Filters: only rows of grp 3 count, (999930, 1000030]
SELECT sfcache.reset();
SELECT count(*) FROM big WHERE grp = 3 AND t >= 1000005;
SELECT count(*) FROM big WHERE grp = 3 AND t >= 999931;
SELECT count(*) FROM big WHERE grp = 3 AND t >= 1000030;
:seen;
SELECT count(*) FROM big WHERE grp = 3 AND t >= 1000031;
SELECT count(*) FROM big WHERE grp = 3 AND t >= 999930;
:seen;

-- A text column (bounds are copies of the values): ['n0100005', 'n0100006')
SELECT sfcache.reset();
SELECT count(*) FROM big WHERE name <= 'n0100005x';
SELECT count(*) FROM big WHERE name <= 'n0100005zzz';
SELECT count(*) FROM big WHERE name <= 'n0100006';
:seen;

-- A bitmap heap scan whose index condition is a filter: rows of grp 4,
-- (999940, 1000040]
CREATE INDEX big_grp ON big (grp);
SET enable_seqscan = off;
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM big WHERE grp = 4 AND t >= 1000005;
SELECT sfcache.reset();
SELECT count(*) FROM big WHERE grp = 4 AND t >= 1000005;
SELECT count(*) FROM big WHERE grp = 4 AND t >= 999941;
SELECT count(*) FROM big WHERE grp = 4 AND t >= 1000040;
:seen;
SELECT count(*) FROM big WHERE grp = 4 AND t >= 1000041;
:seen;

-- An index scan whose condition is a filter: rows of grp 5; id 99995 has
-- no t, so (999850, 1000050]
SET enable_bitmapscan = off;
SET enable_indexscan = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM big WHERE grp = 5 AND t >= 1000005;
SELECT sfcache.reset();
SELECT count(*) FROM big WHERE grp = 5 AND t >= 1000005;
SELECT count(*) FROM big WHERE grp = 5 AND t >= 999851;
SELECT count(*) FROM big WHERE grp = 5 AND t >= 1000050;
:seen;
SELECT count(*) FROM big WHERE grp = 5 AND t >= 999850;
:seen;

-- A partial index misses rows: one whose predicate the windowed conjunct
-- implies reads no row of grp 6 with t <= 1000000, so its scan cannot give
-- the window; without an index on t the window is a point
CREATE INDEX big_grp_late ON big (grp) WHERE t > 1000000;
DROP INDEX big_grp;
EXPLAIN (COSTS OFF) SELECT count(*) FROM big WHERE grp = 6 AND t > 1000005;
SELECT sfcache.reset();
SELECT count(*) FROM big WHERE grp = 6 AND t > 1000005;
SELECT count(*) FROM big WHERE grp = 6 AND t > 999000;
:seen;
DROP INDEX big_grp_late;
CREATE INDEX big_grp ON big (grp);

-- An index scan on the windowed column itself reads only one side: the
-- window comes from index probes, [1000000, 1000010) as above
CREATE INDEX big_t ON big (t);
EXPLAIN (COSTS OFF) SELECT count(*) FROM big WHERE t <= 1000005;
SELECT sfcache.reset();
SELECT count(*) FROM big WHERE t <= 1000005;
SELECT count(*) FROM big WHERE t <= 1000009;
SELECT count(*) FROM big WHERE t <= 1000010;
:seen;
DROP INDEX big_t;
RESET enable_seqscan;
RESET enable_indexscan;
RESET enable_bitmapscan;

-- A LIMIT stops the scan before its end: without an index on t the window
-- is a point, served again for the same constant only
EXPLAIN (COSTS OFF) SELECT id FROM big WHERE t >= 5 LIMIT 1;
SELECT sfcache.reset();
SELECT id FROM big WHERE t >= 5 LIMIT 1;
SELECT id FROM big WHERE t >= 5 LIMIT 1;
SELECT id FROM big WHERE t >= 6 LIMIT 1;
:seen;

-- Two occurrences of the table: the window is over the one compared
SELECT sfcache.reset();
SELECT count(*) FROM big a JOIN big b ON b.id = a.id + 1 WHERE a.t <= 1000005 AND b.grp = 1;
SELECT count(*) FROM big a JOIN big b ON b.id = a.id + 1 WHERE a.t <= 1000009 AND b.grp = 1;
SELECT count(*) FROM big a JOIN big b ON b.id = a.id + 1 WHERE a.t <= 1000010 AND b.grp = 1;
:seen;

-- A parallel scan reads only part of the table in the leader: a point
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT count(*) FROM big WHERE t <= 1500005;
SELECT sfcache.reset();
SELECT count(*) FROM big WHERE t <= 1500005;
SELECT count(*) FROM big WHERE t <= 1500005;
SELECT count(*) FROM big WHERE t <= 1500006;
:seen;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- A write that moves a boundary: the entry is invalidated, and the next
-- window is [1000007, 1000010); 1000006 lies outside it and gets an entry
-- of its own, [1000000, 1000007): both serve from then on
SELECT count(*) FROM big WHERE t <= 1000008;
INSERT INTO big VALUES (300001, 1000007, 0, 'x');
SELECT sfcache.reset();
SELECT count(*) FROM big WHERE t <= 1000008;
SELECT count(*) FROM big WHERE t <= 1000006;
SELECT count(*) FROM big WHERE t <= 1000007;
SELECT count(*) FROM big WHERE t <= 1000009;
:seen;

-- Constants that alternate between windows (two widgets, app servers
-- whose clocks differ) keep an entry each, up to 8 per statement
SELECT sfcache.flush();
SELECT sfcache.reset();
SELECT count(*) FROM big WHERE t <= 1200005;
SELECT count(*) FROM big WHERE t <= 1700005;
SELECT count(*) FROM big WHERE t <= 1200006;
SELECT count(*) FROM big WHERE t <= 1700006;
SELECT count(*) FROM big WHERE t <= 1200007;
SELECT count(*) FROM big WHERE t <= 1700009;
:seen;
SELECT entries FROM sfcache.stats;

-- The integer and timestamp orders are compared as integers, not through
-- fmgr: bigint beyond int32 and below zero, smallint, date, timestamp and
-- timestamptz before their epochs (negative). Rows g = 1..200000 but no
-- multiple of 5: the row of g = 50000 is missing, its neighbours 49999
-- and 50001 are the bounds.
CREATE TABLE wide AS
	SELECT g, (g - 100000)::bigint * 10000000000 AS i8,
		(g % 20000 - 10000)::smallint AS i2,
		date '2000-01-01' + (g - 100000) AS d,
		timestamp '2000-01-01' + (g - 100000) * interval '1 minute' AS ts,
		timestamptz '2000-01-01 00:00+00' + (g - 100000) * interval '1 minute' AS tz
	FROM generate_series(1, 200000) g WHERE g % 5 <> 0;
ANALYZE wide;
-- bigint, i8 <= c: [-500010000000000, -499990000000000)
SELECT sfcache.reset();
SELECT count(*) FROM wide WHERE i8 <= -500000000000000;
SELECT count(*) FROM wide WHERE i8 <= -500010000000000;
SELECT count(*) FROM wide WHERE i8 <= -499990000000001;
:seen;
SELECT count(*) FROM wide WHERE i8 <= -499990000000000;
SELECT count(*) FROM wide WHERE i8 <= -500010000000001;
:seen;
-- across zero (signed, not unsigned): [-10000000000, 10000000000)
SELECT sfcache.reset();
SELECT count(*) FROM wide WHERE i8 <= '0'::bigint;
SELECT count(*) FROM wide WHERE i8 <= -10000000000;
SELECT count(*) FROM wide WHERE i8 <= 9999999999;
:seen;
SELECT count(*) FROM wide WHERE i8 <= -10000000001;
SELECT count(*) FROM wide WHERE i8 <= 10000000000;
:seen;
-- smallint, i2 < c (no multiple of 5 is a value): (-5006, -5004]
SELECT sfcache.reset();
SELECT count(*) FROM wide WHERE i2 < '-5004'::smallint;
SELECT count(*) FROM wide WHERE i2 < '-5005'::smallint;
:seen;
SELECT count(*) FROM wide WHERE i2 < '-5006'::smallint;
SELECT count(*) FROM wide WHERE i2 < '-5003'::smallint;
:seen;
-- date, d > c: [1863-02-07, 1863-02-09)
SELECT sfcache.reset();
SELECT count(*) FROM wide WHERE d > '1863-02-08'::date;
SELECT count(*) FROM wide WHERE d > '1863-02-07'::date;
:seen;
SELECT count(*) FROM wide WHERE d > '1863-02-09'::date;
SELECT count(*) FROM wide WHERE d > '1863-02-06'::date;
:seen;
-- timestamp, ts <= c: [06:39, 06:41)
SELECT sfcache.reset();
SELECT count(*) FROM wide WHERE ts <= '1999-11-27 06:40:00'::timestamp;
SELECT count(*) FROM wide WHERE ts <= '1999-11-27 06:39:00'::timestamp;
SELECT count(*) FROM wide WHERE ts <= '1999-11-27 06:40:59.999999'::timestamp;
:seen;
SELECT count(*) FROM wide WHERE ts <= '1999-11-27 06:41:00'::timestamp;
SELECT count(*) FROM wide WHERE ts <= '1999-11-27 06:38:59.999999'::timestamp;
:seen;
-- timestamptz, tz >= c: (06:39, 06:41] UTC
SELECT sfcache.reset();
SELECT count(*) FROM wide WHERE tz >= '1999-11-27 06:40:30+00'::timestamptz;
SELECT count(*) FROM wide WHERE tz >= '1999-11-27 06:41:00+00'::timestamptz;
SELECT count(*) FROM wide WHERE tz >= '1999-11-27 06:39:00.000001+00'::timestamptz;
:seen;
SELECT count(*) FROM wide WHERE tz >= '1999-11-27 06:39:00+00'::timestamptz;
SELECT count(*) FROM wide WHERE tz >= '1999-11-27 06:41:00.000001+00'::timestamptz;
:seen;
DROP TABLE wide;

DROP TABLE big;
