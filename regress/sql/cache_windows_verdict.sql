-- Windows that do not pay are not computed (cache_stats.c,
-- CacheStatsTakeWindows): a windowed statement's leaders compute windows
-- while they serve at least one execution (a window hit) per 8 leaders
-- that computed them, counted over 16 such leaders. Below that, the next
-- 240 leaders store points (served again only for the same constant), with
-- no watch on their scan and no index probes.
CREATE EXTENSION IF NOT EXISTS sfcache;
SELECT sfcache.flush();
SET max_parallel_workers_per_gather = 0;

-- t = 10 * id, no index: a sequential scan gives the windows
-- [10k, 10k + 10) of "t <= c".
CREATE TABLE spread (id int PRIMARY KEY, t int);
INSERT INTO spread SELECT g, 10 * g FROM generate_series(1, 1000) g;
ANALYZE spread;
\set seen 'SELECT hits, misses, window_hits FROM sfcache.stats'

-- Constants spread over windows: 16 leaders, each in a window of its own,
-- and one window hit among them (16 served in the window [10, 20)).
SELECT sfcache.reset();
SELECT count(*) FROM spread WHERE t <= 15;
SELECT count(*) FROM spread WHERE t <= 16;
SELECT format('SELECT count(*) FROM spread WHERE t <= %s', 10 * g + 5)
	FROM generate_series(2, 16) g \gexec
:seen;
-- The 17th leader stores a point: 506 lies in 505's window [500, 510),
-- but misses; 506 again is served (an exact hit, not a window hit).
SELECT count(*) FROM spread WHERE t <= 505;
SELECT count(*) FROM spread WHERE t <= 506;
SELECT count(*) FROM spread WHERE t <= 506;
:seen;

-- Windows that serve: each of 16 leaders is followed by a window hit, so
-- the 17th leader computes its window, and serves the next constant in it.
SELECT sfcache.flush();
SELECT sfcache.reset();
SELECT format('SELECT count(*) FROM spread WHERE t <= %s; SELECT count(*) FROM spread WHERE t <= %s',
			  10 * g + 5, 10 * g + 6)
	FROM generate_series(1, 16) g \gexec
:seen;
SELECT count(*) FROM spread WHERE t <= 505;
SELECT count(*) FROM spread WHERE t <= 506;
:seen;

DROP TABLE spread;
