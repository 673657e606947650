-- Honest counters: sfcache.statements counts each client execution once,
-- in exactly one of hits, coalesced, leader_executions, not_admitted and
-- bypasses (calls is their sum); window_hits is a part of hits. Each step
-- below runs one execution and shows that one column moved by one.
-- (Coalesced followers and hand-offs need concurrent sessions:
-- singleflight.spec and leader_failure.spec.)
CREATE EXTENSION IF NOT EXISTS sfcache;
SELECT sfcache.flush();

CREATE TABLE counted (id int PRIMARY KEY, payload text);
INSERT INTO counted SELECT g, repeat('x', 10) FROM generate_series(1, 2000) g;
ANALYZE counted;

-- The row of one statement, and whether calls is the sum.
CREATE FUNCTION counted_row(pattern text)
RETURNS TABLE (calls bigint, hits bigint, coalesced bigint, leader_executions bigint,
			   not_admitted bigint, window_hits bigint, bypasses bigint,
			   last_bypass_reason text, stores bigint, calls_is_sum boolean)
LANGUAGE sql AS $$
	SELECT s.calls, s.hits, s.coalesced, s.leader_executions, s.not_admitted,
		   s.window_hits, s.bypasses, s.last_bypass_reason, s.stores,
		   s.calls = s.hits + s.coalesced + s.leader_executions + s.not_admitted + s.bypasses
	FROM sfcache.statements s WHERE s.query LIKE pattern
$$;
SELECT sfcache.reset();

-- A miss that leads (and stores): leader_executions 1.
SELECT payload FROM counted WHERE id = 1;
SELECT * FROM counted_row('SELECT payload FROM counted WHERE id =%');
-- A hit: hits 1.
SELECT payload FROM counted WHERE id = 1;
SELECT * FROM counted_row('SELECT payload FROM counted WHERE id =%');
-- A miss refused by admission: not_admitted 1 (not a bypass).
SET sfcache.admission = on;
SELECT payload FROM counted WHERE id = 2;
SELECT * FROM counted_row('SELECT payload FROM counted WHERE id =%');
RESET sfcache.admission;
-- A leader whose result cannot be stored (too large): a bypass.
SET sfcache.max_entry_size = '1kB';
SELECT count(*) FROM (SELECT payload FROM counted WHERE id <= 500) s;
SELECT payload FROM counted WHERE id <= 500 \g /dev/null
SELECT * FROM counted_row('SELECT payload FROM counted WHERE id <=%');
RESET sfcache.max_entry_size;
-- A bypass at execution (sfcache.cache = off with a cache plan): a bypass.
PREPARE by_id (int) AS SELECT payload FROM counted AS p WHERE id = $1;
EXECUTE by_id(3);
SELECT * FROM counted_row('SELECT payload FROM counted AS p WHERE id = $1');
SET sfcache.cache = off;
EXECUTE by_id(3);
SELECT * FROM counted_row('SELECT payload FROM counted AS p WHERE id = $1');
RESET sfcache.cache;

-- A bypass decided at planning counts once per execution, not per
-- planning: a generic plan of a row-locking SELECT is planned once and
-- executed three times.
SET plan_cache_mode = force_generic_plan;
PREPARE locking (int) AS SELECT payload FROM counted WHERE id = $1 FOR SHARE;
EXECUTE locking(1);
SELECT * FROM counted_row('SELECT payload FROM counted WHERE id = $1 FOR SHARE');
EXECUTE locking(2);
EXECUTE locking(3);
SELECT * FROM counted_row('SELECT payload FROM counted WHERE id = $1 FOR SHARE');
RESET plan_cache_mode;
-- A plain EXPLAIN does not execute: nothing moves; EXPLAIN ANALYZE does.
EXPLAIN (COSTS OFF) EXECUTE locking(4);
SELECT * FROM counted_row('SELECT payload FROM counted WHERE id = $1 FOR SHARE');
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) EXECUTE locking(4);
SELECT * FROM counted_row('SELECT payload FROM counted WHERE id = $1 FOR SHARE');
-- The simple protocol: one bypass per statement.
SELECT payload FROM counted AS c WHERE id = 5 FOR SHARE;
SELECT * FROM counted_row('%counted AS c WHERE id = $1 FOR SHARE');

-- A statement run by a function is not the client's: not counted (the
-- global row below has 5 row-lock bypasses: 4 prepared, 1 simple).
CREATE FUNCTION counted_payload(int) RETURNS text LANGUAGE plpgsql AS
$$ BEGIN RETURN (SELECT payload FROM counted WHERE id = $1 FOR SHARE); END $$;
SELECT counted_payload(6);
SELECT * FROM counted_row('%counted AS c WHERE id = $1 FOR SHARE');

-- The global row agrees: every execution above is one outcome.
SELECT hits, coalesced, leader_executions, not_admitted, window_hits,
	   bypass_reasons -> 'row lock' AS row_lock, bypass_reasons -> 'too large' AS too_large
FROM sfcache.stats;
SELECT reason FROM sfcache.bypass_counts() WHERE reason = 'not admitted';

-- Times, in milliseconds: leaders ran, hits saved (each one its leader's
-- run; the one hit above saved what the first leader spent), nobody
-- waited; the global row is the statements' sum.
SELECT leader_time > 0 AS leaders_ran, saved_time > 0 AS hits_saved, wait_time
FROM sfcache.stats;
SELECT bool_and(round(g.t::numeric, 3) = round(s.t::numeric, 3)) AS sums_agree
FROM (SELECT unnest(ARRAY[leader_time, window_time, wait_time, saved_time]) AS t,
			 generate_series(1, 4) AS i FROM sfcache.stats) g
JOIN (SELECT unnest(ARRAY[sum(leader_time), sum(window_time), sum(wait_time), sum(saved_time)]) AS t,
			 generate_series(1, 4) AS i FROM sfcache.statements) s USING (i);

DEALLOCATE by_id;
DEALLOCATE locking;
DROP FUNCTION counted_payload(int);
DROP FUNCTION counted_row(text);
DROP TABLE counted;
