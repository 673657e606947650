-- Settings that change a value a statement computes are part of the key:
-- each statement below is cached under one value of a setting, and must
-- compute again (not hit) under another. A setting that only changes how a
-- stored value is sent (DateStyle on a timestamptz column) needs no key.
CREATE EXTENSION IF NOT EXISTS sfcache;
CREATE TABLE measure (id int PRIMARY KEY, x float8, b bytea, t timestamp,
	ts timestamptz, iv interval, name text);
INSERT INTO measure VALUES (1, 0.1::float8 + 0.2, '\x0102ff', '2026-01-02 03:04:05',
	'2026-01-02 03:04:05+00', '1 day 02:03:04', 'grade');

-- extra_float_digits, read by float8out in x::text
SELECT x::text FROM measure WHERE id = 1;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT x::text FROM measure WHERE id = 1;
SET extra_float_digits = 0;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT x::text FROM measure WHERE id = 1;
SELECT x::text FROM measure WHERE id = 1;
RESET extra_float_digits;
SELECT x::text FROM measure WHERE id = 1;

-- bytea_output, read by byteaout in b::text
SELECT b::text FROM measure WHERE id = 1;
SET bytea_output = 'escape';
SELECT b::text FROM measure WHERE id = 1;
RESET bytea_output;

-- quote_all_identifiers, read by quote_ident()
SELECT quote_ident(name) FROM measure WHERE id = 1;
SET quote_all_identifiers = on;
SELECT quote_ident(name) FROM measure WHERE id = 1;
RESET quote_all_identifiers;

-- IntervalStyle, read by interval_out in iv::text
SELECT iv::text FROM measure WHERE id = 1;
SET IntervalStyle = 'iso_8601';
SELECT iv::text FROM measure WHERE id = 1;
RESET IntervalStyle;

-- timezone_abbreviations, read by AT TIME ZONE 'IST'
SET timezone_abbreviations = 'Default';
SELECT t AT TIME ZONE 'IST' AS at_ist FROM measure WHERE id = 1;
SET timezone_abbreviations = 'India';
SELECT t AT TIME ZONE 'IST' AS at_ist FROM measure WHERE id = 1;
RESET timezone_abbreviations;

-- a prepared statement planned under one value executes under another
PREPARE float_text AS SELECT x::text FROM measure WHERE id = $1;
EXECUTE float_text(1);
EXECUTE float_text(1);
SET extra_float_digits = -5;
EXECUTE float_text(1);
RESET extra_float_digits;
EXECUTE float_text(1);
DEALLOCATE float_text;

-- an output-only setting: the stored timestamptz is converted when sent
SET DateStyle = 'ISO, YMD';
SELECT ts FROM measure WHERE id = 1;
SET DateStyle = 'SQL, DMY';
SELECT ts FROM measure WHERE id = 1;
RESET DateStyle;

DROP TABLE measure;

-- planner settings choose the plan, and without ORDER BY the plan decides
-- the order of the rows
SET enable_hashagg = on;
SELECT x FROM (VALUES (array[1,2]), (array[1,3])) _(x) UNION SELECT x FROM (VALUES (array[1,2]), (array[1,4])) _(x);
SET enable_hashagg = off;
SELECT x FROM (VALUES (array[1,2]), (array[1,3])) _(x) UNION SELECT x FROM (VALUES (array[1,2]), (array[1,4])) _(x);
RESET enable_hashagg;
-- ... and so do the statistics ANALYZE and VACUUM leave: they drop results
CREATE TABLE planned (id int PRIMARY KEY, v int);
INSERT INTO planned SELECT g, g FROM generate_series(1, 10) g;
SELECT count(*) FROM planned;
SELECT count(*) FROM planned;
ANALYZE planned;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT count(*) FROM planned;
VACUUM planned;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT count(*) FROM planned;
DROP TABLE planned;

-- system columns that change without a write (a row lock sets xmax, VACUUM
-- FREEZE sets xmin) are never cached
CREATE TABLE locked (id int);
INSERT INTO locked VALUES (1);
SELECT xmax <> '0'::xid AS locked FROM locked;
SELECT * FROM locked FOR UPDATE;
SELECT xmax <> '0'::xid AS locked FROM locked;
EXPLAIN (COSTS OFF) SELECT xmin FROM locked;
EXPLAIN (COSTS OFF) SELECT cmin, cmax FROM locked;
EXPLAIN (COSTS OFF) SELECT ctid, tableoid::regclass FROM locked;
DROP TABLE locked;

-- CREATE INDEX and DROP INDEX change no row, but the plan and the order of
-- rows without ORDER BY: they drop results over their table
CREATE TABLE indexed (id int, v int);
INSERT INTO indexed SELECT g, g FROM generate_series(1, 10) g;
SELECT count(*) FROM indexed WHERE v > 5;
CREATE INDEX indexed_v ON indexed (v);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT count(*) FROM indexed WHERE v > 5;
DROP INDEX indexed_v;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT count(*) FROM indexed WHERE v > 5;
DROP TABLE indexed;
