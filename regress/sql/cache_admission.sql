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

-- Aging: every sfcache.admission_window misses the counts halve, so a key
-- missed once long ago is forgotten; its next miss is a first one again.
SELECT sfcache.flush();
SELECT sfcache.reset();
SET sfcache.admission_window = 4;
SELECT name FROM student WHERE id = 21;		-- 21 seen once
SELECT name FROM student WHERE id = 22;
SELECT name FROM student WHERE id = 23;
SELECT name FROM student WHERE id = 24;		-- 4th miss: counts halve
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT name FROM student WHERE id = 21;
-- ... while a key missed twice within the window is admitted
SELECT name FROM student WHERE id = 25;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT name FROM student WHERE id = 25;
SELECT stores FROM sfcache.stats;
RESET sfcache.admission_window;

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
