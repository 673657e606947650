-- Window advice (advice_window.c): a leader whose validity window came out
-- as a point for want of an index on its range column records it, and
-- sfcache.window_advice proposes the btree index on that column with the
-- windows starved, the statements and what their sampled executions
-- scanned. A window the scan or an index gave records nothing; with the
-- index, nothing is shown.
CREATE EXTENSION IF NOT EXISTS sfcache;
SELECT sfcache.flush();
SELECT sfcache.advice_reset();
SET max_parallel_workers_per_gather = 0;
SET sfcache.advice_sample_rate = 1;

CREATE TABLE wa_event (id int PRIMARY KEY, created_at int, kind int);
INSERT INTO wa_event SELECT g, 10 * g, g % 5 FROM generate_series(1, 20000) g;
ANALYZE wa_event;

-- The whole table read: the scan gives the window, nothing is starved
SELECT count(*) FROM wa_event WHERE created_at <= 1005;
SELECT count(*) FROM wa_event WHERE created_at <= 1009;
SELECT tablename, expression, operator, qual_role, calls FROM sfcache.advice_quals
WHERE qual_role = 'window';

-- A LIMIT stops the scan: each leader's window is a point (a miss for 6),
-- starved for want of an index on created_at
SELECT sfcache.reset();
SELECT id FROM wa_event WHERE created_at >= 5 LIMIT 1;
SELECT id FROM wa_event WHERE created_at >= 6 LIMIT 1;
SELECT id FROM wa_event WHERE created_at >= 6 LIMIT 1;
SELECT hits, misses, window_hits FROM sfcache.stats;
SELECT tablename, expression, operator, qual_role, kind, calls FROM sfcache.advice_quals
WHERE qual_role = 'window';
SELECT schemaname, tablename, column_name, index_name, index_ddl, windows_starved,
	cardinality(queryids) AS statements, calls, rows_scanned,
	time_ms >= 0 AS timed, estimated_size BETWEEN 300000 AND 700000 AS sized
FROM sfcache.window_advice;
-- the query id is the statement's, as sfcache.statements has it
SELECT s.query FROM sfcache.window_advice w
JOIN sfcache.statements s ON s.queryid = ANY (w.queryids);

-- A name taken by another relation of the schema: _2, as index_advice does
CREATE TABLE wa_event_created_at_idx ();
SELECT index_name, index_ddl FROM sfcache.window_advice;
DROP TABLE wa_event_created_at_idx;

-- A result admission does not keep gets no window at all: nothing starved
SET sfcache.admission = on;
SELECT sfcache.reset();
SELECT id, kind FROM wa_event WHERE created_at >= 12 LIMIT 1;
SELECT not_admitted FROM sfcache.stats;
RESET sfcache.admission;
SELECT windows_starved FROM sfcache.window_advice;

-- sfcache.advice = off: nothing recorded
SET sfcache.advice = off;
SELECT id FROM wa_event WHERE created_at >= 7 LIMIT 1;
RESET sfcache.advice;
SELECT windows_starved FROM sfcache.window_advice;

-- A partial index does not serve the windows: still starved, still shown
CREATE INDEX wa_event_late ON wa_event (created_at) WHERE created_at > 100000;
SELECT id FROM wa_event WHERE created_at >= 8 LIMIT 1;
SELECT index_name, windows_starved FROM sfcache.window_advice;
DROP INDEX wa_event_late;

-- With the btree index on the column: the suggestion goes at once, and the
-- windows come from index probes (a window hit), recording nothing
CREATE INDEX wa_event_created_at_idx ON wa_event (created_at);
SELECT count(*) FROM sfcache.window_advice;
SELECT sfcache.advice_reset();
SELECT sfcache.reset();
SELECT id FROM wa_event WHERE created_at >= 9 LIMIT 1;
SELECT id FROM wa_event WHERE created_at >= 10 LIMIT 1;
SELECT hits, misses, window_hits FROM sfcache.stats;
SELECT count(*) FROM sfcache.advice_quals WHERE qual_role = 'window';
SELECT count(*) FROM sfcache.window_advice;

DROP TABLE wa_event;
SELECT sfcache.advice_reset();
