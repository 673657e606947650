-- Admission (cache_admit.c): a result is kept from the second miss of its
-- key on; a key missed once is computed, not stored. The suite's
-- configuration turns admission off; this test turns it on.
CREATE EXTENSION IF NOT EXISTS sfcache;
SET sfcache.admission = on;
SELECT sfcache.flush();
SELECT sfcache.reset();

CREATE TABLE student (id int PRIMARY KEY, name text);
INSERT INTO student SELECT g, 'student ' || g FROM generate_series(1, 50) g;

-- Seen once: a miss, not stored ("not admitted").
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT name FROM student WHERE id = 1;
SELECT hits, misses, stores, entries FROM sfcache.stats;
-- Seen again: a miss, stored; then a hit.
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT name FROM student WHERE id = 1;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT name FROM student WHERE id = 1;
SELECT name FROM student WHERE id = 1;
SELECT hits, misses, stores, entries FROM sfcache.stats;
SELECT reason, statements FROM sfcache.bypass_counts() WHERE reason = 'not admitted';

-- A key of its own: another constant is counted apart.
SELECT name FROM student WHERE id = 2;
SELECT name FROM student WHERE id = 3;
SELECT name FROM student WHERE id = 2;
SELECT name FROM student WHERE id = 2;
SELECT name FROM student WHERE id = 3;
SELECT hits, misses, stores, entries FROM sfcache.stats;

-- A morning rush: three keys, each read three times, are stored from
-- their second read; the third round hits every one.
SELECT sfcache.flush();
SELECT sfcache.reset();
SELECT name FROM student WHERE id = 11 \g /dev/null
SELECT name FROM student WHERE id = 12 \g /dev/null
SELECT name FROM student WHERE id = 13 \g /dev/null
SELECT name FROM student WHERE id = 11 \g /dev/null
SELECT name FROM student WHERE id = 12 \g /dev/null
SELECT name FROM student WHERE id = 13 \g /dev/null
SELECT name FROM student WHERE id = 11 \g /dev/null
SELECT name FROM student WHERE id = 12 \g /dev/null
SELECT name FROM student WHERE id = 13 \g /dev/null
SELECT hits, misses, stores, entries FROM sfcache.stats;

-- Aging: admission remembers a first miss for one to two periods of
-- sfcache.admission_period (60 s), cut from sfcache.test_admission_clock
-- here: a key read again 59 s later, across a period boundary, is stored;
-- one read again two periods later is a first miss again.
SELECT sfcache.flush();
SELECT sfcache.reset();
SET sfcache.test_admission_clock = 6030;	-- period 100 is 6000-6059
SELECT name FROM student WHERE id = 21;
SELECT name FROM student WHERE id = 22;
SET sfcache.test_admission_clock = 6089;	-- 59 s later, the next period
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT name FROM student WHERE id = 21;
SET sfcache.test_admission_clock = 6150;	-- 22: 120 s later, two periods on
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT name FROM student WHERE id = 22;
SELECT stores FROM sfcache.stats;
RESET sfcache.test_admission_clock;

-- A stream of one-off keys (20,000 distinct parameters of a prepared
-- statement, each executed once by the client) stays out of the cache:
-- almost none is stored (the doorkeeper's false positive rate is about
-- 1e-7 at 20,000 keys, cache_admit.c), while keys read twice within the
-- same stream still are. bench/admission-stream runs the 10-minute
-- stream of 600 keys a second.
SELECT sfcache.flush();
SELECT sfcache.reset();
CREATE TABLE ledger (id int PRIMARY KEY, amount int);
INSERT INTO ledger SELECT g, g % 97 FROM generate_series(1, 20000) g;
PREPARE one_off (int) AS SELECT amount FROM ledger WHERE id = $1;
PREPARE twice (int) AS SELECT amount, 'twice' FROM ledger WHERE id = $1;
-- admission alone: by default the one-off statement would go cold after
-- its first 100 executions (cache_cold.sql) and skip the cache altogether
SET sfcache.cold_after = 0;
\set ECHO none
\o /dev/null
SELECT CASE WHEN g % 1000 = 0 THEN format('EXECUTE twice(%s)', g / 1000)
			ELSE format('EXECUTE one_off(%s)', g) END
FROM generate_series(1, 20000) g \gexec
SELECT format('EXECUTE twice(%s)', g) FROM generate_series(1, 20) g \gexec
\o
\set ECHO all
SELECT calls, not_admitted, leader_executions, bypasses, last_bypass_reason, stores <= 5 AS almost_none_stored
FROM sfcache.statements WHERE query = 'SELECT amount FROM ledger WHERE id = $1';
SELECT calls, not_admitted, leader_executions, stores
FROM sfcache.statements WHERE query = 'SELECT amount, $2 FROM ledger WHERE id = $1';
DEALLOCATE one_off;
DEALLOCATE twice;
RESET sfcache.cold_after;
DROP TABLE ledger;

-- A new workload gets in whatever an old one counted: admission never
-- compares a key with an eviction victim, so the second miss of a new key
-- stores it even after an old key was missed many times.
SELECT sfcache.flush();
SELECT sfcache.reset();
SELECT name FROM student WHERE id = 31;
SELECT sfcache.invalidate('student');
SELECT name FROM student WHERE id = 31;
SELECT sfcache.invalidate('student');
SELECT name FROM student WHERE id = 31;
SELECT sfcache.invalidate('student');
SELECT name FROM student WHERE id = 32;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT name FROM student WHERE id = 32;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT name FROM student WHERE id = 32;

-- sfcache.admission = off keeps a result from its first miss.
SELECT sfcache.flush();
SET sfcache.admission = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT name FROM student WHERE id = 41;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT name FROM student WHERE id = 41;
RESET sfcache.admission;

-- sfcache.flush() forgets the counts too.
SET sfcache.admission = on;
SELECT name FROM student WHERE id = 42;
SELECT sfcache.flush();
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT name FROM student WHERE id = 42;

-- Only a superuser sets the window.
CREATE ROLE sfc_admission_user;
SET ROLE sfc_admission_user;
SET sfcache.admission_window = 10;
SET sfcache.admission = off;
RESET ROLE;
DROP ROLE sfc_admission_user;

DROP TABLE student;
