-- Observe mode (sfcache.cache = observe): the cache's bookkeeping runs as
-- in on mode (keys, lookups, a leader stores its result, invalidation),
-- but nothing is served: an execution that a stored result would have
-- served runs its own plan and counts an observed hit (and an observed
-- window hit when a validity window would have served it). Its rows are
-- those of sfcache.cache = off; hits and coalesced never move. Observed
-- coalesced followers need concurrent sessions: observe_sessions.spec.
CREATE EXTENSION IF NOT EXISTS sfcache;
\set regress_db :DBNAME
\set regress_user :USER
SELECT sfcache.flush();

CREATE TABLE watched (id int PRIMARY KEY, v int, label text);
INSERT INTO watched SELECT g, g * 10, 'row ' || g FROM generate_series(1, 50) g;
ANALYZE watched;
GRANT SELECT ON watched TO PUBLIC;

-- One statement's counters, served and observed, and whether calls is
-- the sum of the outcomes.
CREATE FUNCTION observed_row(pattern text)
RETURNS TABLE (calls bigint, hits bigint, coalesced bigint, leader_executions bigint,
			   observed_hits bigint, observed_coalesced bigint,
			   observed_window_hits bigint, window_hits bigint, stores bigint,
			   timed boolean, calls_is_sum boolean)
LANGUAGE sql AS $$
	SELECT s.calls, s.hits, s.coalesced, s.leader_executions, s.observed_hits,
		   s.observed_coalesced, s.observed_window_hits, s.window_hits, s.stores,
		   (s.observed_hits + s.observed_coalesced = 0) = (s.observed_saved_time = 0),
		   s.calls = s.hits + s.coalesced + s.observed_hits + s.observed_coalesced +
			   s.leader_executions + s.not_admitted + s.bypasses
	FROM sfcache.statements s
	WHERE s.query LIKE pattern AND s.userid = (SELECT oid FROM pg_roles WHERE rolname = current_user)
$$;
-- The cluster's served and observed counters.
CREATE VIEW observed_totals AS
	SELECT hits, coalesced, window_hits, observed_hits, observed_coalesced,
		   observed_window_hits
	FROM sfcache.stats;
SELECT sfcache.reset();

-- The setting takes the new value.
SET sfcache.cache = observe;
SHOW sfcache.cache;
-- A plain EXPLAIN (no ANALYZE) shows the cache node and says it observes.
EXPLAIN (COSTS OFF) SELECT v FROM watched WHERE id = 7;

-- The first execution leads and stores, as in on mode; the second would
-- have been a hit: it runs, with the same rows as off, and counts an
-- observed hit, never a hit.
SELECT label FROM watched WHERE id = 7;
SELECT label FROM watched WHERE id = 7;
SELECT * FROM observed_row('SELECT label FROM watched WHERE id =%');
SET sfcache.cache = off;
SELECT label FROM watched WHERE id = 7;
SET sfcache.cache = observe;

-- A write invalidates the stored result: the next execution leads again
-- (no observed hit), and sees the write.
UPDATE watched SET label = 'changed' WHERE id = 7;
SELECT label FROM watched WHERE id = 7;
SELECT * FROM observed_row('SELECT label FROM watched WHERE id =%');
SELECT label FROM watched WHERE id = 7;
SELECT * FROM observed_row('SELECT label FROM watched WHERE id =%');

-- Validity windows: v <= 200 stores the window [200, 210); v <= 205
-- would have been served by it: an observed hit and an observed window
-- hit. v <= 300 lies outside: it leads.
SELECT count(*) FROM watched WHERE v <= 200;
SELECT count(*) FROM watched WHERE v <= 205;
SELECT count(*) FROM watched WHERE v <= 300;
SELECT * FROM observed_row('SELECT count(*) FROM watched WHERE v <=%');

-- Nothing was served in the whole cluster.
SELECT * FROM observed_totals;

-- on mode counts hits and leaves the observed counters alone; the result
-- it serves is the one an observe leader stored (the same store).
SET sfcache.cache = on;
SELECT label FROM watched WHERE id = 7;
SELECT * FROM observed_row('SELECT label FROM watched WHERE id =%');
SELECT * FROM observed_totals;
RESET sfcache.cache;

-- Per role: ALTER ROLE ... SET applies at the role's next login.
CREATE ROLE sfc_observer LOGIN;
ALTER ROLE sfc_observer SET sfcache.cache = observe;
\c - sfc_observer
SHOW sfcache.cache;
SELECT label FROM watched WHERE id = 9;
SELECT label FROM watched WHERE id = 9;
SELECT * FROM observed_row('SELECT label FROM watched WHERE id =%');
\c - :regress_user
SHOW sfcache.cache;

-- Per database: ALTER DATABASE ... SET, likewise.
ALTER DATABASE :"regress_db" SET sfcache.cache = observe;
\c
SHOW sfcache.cache;
SELECT label FROM watched WHERE id = 11;
SELECT label FROM watched WHERE id = 11;
SELECT * FROM observed_row('SELECT label FROM watched WHERE id =%');
-- The forecast query of doc/operations.md ("Observe first"), as written
-- there, on the statements above (saved_s_per_hour is a time: not shown).
SELECT query, calls, would_serve_pct, observed_window_hits, saved_s_per_hour >= 0 AS timed,
	   stores, bypasses, last_bypass_reason
FROM (
SELECT s.query, s.calls,
       round(100.0 * (s.observed_hits + s.observed_coalesced) / nullif(s.calls, 0), 1) AS would_serve_pct,
       s.observed_window_hits,
       round((s.observed_saved_time / 1000
              / greatest(extract(epoch FROM now() - t.reset_at), 1) * 3600)::numeric, 2) AS saved_s_per_hour,
       s.stores, pg_size_pretty(s.bytes_stored) AS stored,
       s.bypasses, s.last_bypass_reason
FROM sfcache.statements s, sfcache.stats t
WHERE s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
ORDER BY s.observed_saved_time DESC LIMIT 20
) forecast WHERE query ~ '^SELECT (label|count\(\*\)) FROM watched' ORDER BY query, calls;
ALTER DATABASE :"regress_db" RESET sfcache.cache;
\c
SHOW sfcache.cache;
SELECT * FROM observed_totals;

DROP OWNED BY sfc_observer;
DROP ROLE sfc_observer;
DROP VIEW observed_totals;
DROP FUNCTION observed_row(text);
DROP TABLE watched;
SELECT sfcache.flush();
