-- Cold statements (sfcache.cold_after, cache_cold.c): a statement whose
-- last cold_after executions through the cache were served less than once
-- in a hundred runs as PostgreSQL plans it for 15 times as many (doubled
-- for each cold verdict in a row, up to 8 times), counted as bypasses
-- ("cold statement"), then goes through the cache again. One cold
-- execution in 64 goes through the cache all the same, and ends the cold
-- run if it is served.
CREATE EXTENSION IF NOT EXISTS sfcache;
SELECT sfcache.flush();
SELECT sfcache.reset();
CREATE TABLE cold_item (id int PRIMARY KEY, v text);
INSERT INTO cold_item SELECT g, 'v' || g FROM generate_series(1, 1000) g;
ANALYZE cold_item;

CREATE FUNCTION cold_row(pattern text)
RETURNS TABLE (calls bigint, hits bigint, leader_executions bigint, bypasses bigint,
			   last_bypass_reason text, calls_is_sum boolean)
LANGUAGE sql AS $$
	SELECT calls, hits, leader_executions, bypasses, last_bypass_reason,
		   calls = hits + coalesced + leader_executions + not_admitted + bypasses
	FROM sfcache.statements WHERE query LIKE pattern
$$;

-- One execution planned as a bypass first (sfcache.cache = off): the
-- backend remembers why that query id bypassed, and must not count a
-- cold execution a second time under that reason.
SET sfcache.cache = off;
SELECT v FROM cold_item WHERE id = 1;
RESET sfcache.cache;

-- 100 by default: 40 distinct keys all go through the cache.
SHOW sfcache.cold_after;
\o /dev/null
SELECT format('SELECT v FROM cold_item WHERE id = %s', g) FROM generate_series(1, 40) g \gexec
\o
SELECT * FROM cold_row('SELECT v FROM cold_item WHERE id =%');

-- With 20: the next 20 distinct keys make a window served 0 times in 20;
-- the 300 after it run as planned (bypasses), with the right rows, but
-- for one in 64 (4 of 300), which goes through the cache as a sample.
-- (Long runs of statements are not echoed.)
SET sfcache.cold_after = 20;
SELECT sfcache.reset();
\o /dev/null
SELECT format('SELECT v FROM cold_item WHERE id = %s', g) FROM generate_series(41, 60) g \gexec
\o
SELECT * FROM cold_row('SELECT v FROM cold_item WHERE id =%');
SELECT v FROM cold_item WHERE id = 1;
SELECT v FROM cold_item WHERE id = 999;
SELECT * FROM cold_row('SELECT v FROM cold_item WHERE id =%');
\set ECHO none
\o /dev/null
SELECT format('SELECT v FROM cold_item WHERE id = %s', g) FROM generate_series(101, 398) g \gexec
\o
\set ECHO all
SELECT * FROM cold_row('SELECT v FROM cold_item WHERE id =%');

-- The next window (20 keys never seen) makes it cold again, for twice as
-- long (a second cold verdict in a row): 600, so the 400 after the window
-- all run cold, 6 of them as samples (with 300, a window of 20 would go
-- through the cache among them).
\set ECHO none
\o /dev/null
SELECT format('SELECT v FROM cold_item WHERE id = %s', g) FROM generate_series(2001, 2420) g \gexec
\o
\set ECHO all
SELECT * FROM cold_row('SELECT v FROM cold_item WHERE id =%');

-- A herd on the cold statement: one key again and again. Its samples go
-- through the cache: once one has stored the row (as admission lets it:
-- cache_admission.sql), the next is a hit, which ends the cold run (66
-- bypasses, not 200); the rest are hits.
\set ECHO none
\o /dev/null
SELECT 'SELECT v FROM cold_item WHERE id = 777' FROM generate_series(1, 250) g \gexec
\o
\set ECHO all
SELECT * FROM cold_row('SELECT v FROM cold_item WHERE id =%');
SELECT v FROM cold_item WHERE id = 777;

-- EXPLAIN ANALYZE goes through the cache (a hit, in the counts: its output
-- differs between majors, so it is not shown)
\o /dev/null
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT v FROM cold_item WHERE id = 777;
\o
SELECT * FROM cold_row('SELECT v FROM cold_item WHERE id =%');

-- A statement that is served (the same key again and again) never goes cold.
\o /dev/null
SELECT format('SELECT count(*) FROM cold_item WHERE v = %L', 'v7') FROM generate_series(1, 40) \gexec
\o
SELECT calls, hits, bypasses FROM sfcache.statements WHERE query LIKE 'SELECT count(*) FROM cold_item WHERE v =%';

-- A prepared statement's generic plan: cold executions run its kept child.
SET plan_cache_mode = force_generic_plan;
PREPARE cold_by_id(int) AS SELECT v FROM cold_item AS p WHERE id = $1;
\o /dev/null
SELECT format('EXECUTE cold_by_id(%s)', g) FROM generate_series(501, 520) g \gexec
\o
EXECUTE cold_by_id(7);
EXECUTE cold_by_id(700);
SELECT * FROM cold_row('SELECT v FROM cold_item AS p WHERE id = $1');

-- DDL on its table: the plan cache analyses and plans the statement again.
-- Its new generic plan is a cache plan too (EXPLAIN shows the cache node),
-- and its executions still run cold and are counted.
ALTER TABLE cold_item ADD COLUMN w int;
EXECUTE cold_by_id(8);
EXECUTE cold_by_id(9);
EXECUTE cold_by_id(10);
SELECT * FROM cold_row('SELECT v FROM cold_item AS p WHERE id = $1');
EXPLAIN (COSTS OFF) EXECUTE cold_by_id(11);
DEALLOCATE cold_by_id;

-- The same for a statement without parameters, cold because its table
-- changes before each execution: no result is ever served.
PREPARE cold_count AS SELECT count(*) FROM cold_item WHERE v LIKE 'v1%';
\set ECHO none
\o /dev/null
SELECT 'UPDATE cold_item SET w = 1 WHERE id = 1', 'EXECUTE cold_count'
FROM generate_series(1, 22) \gexec
\o
\set ECHO all
SELECT * FROM cold_row('SELECT count(*) FROM cold_item WHERE v LIKE%');
ALTER TABLE cold_item DROP COLUMN w;
\set ECHO none
\o /dev/null
SELECT 'UPDATE cold_item SET v = v WHERE id = 1', 'EXECUTE cold_count'
FROM generate_series(1, 3) \gexec
\o
\set ECHO all
SELECT * FROM cold_row('SELECT count(*) FROM cold_item WHERE v LIKE%');
EXPLAIN (COSTS OFF) EXECUTE cold_count;
EXECUTE cold_count;
DEALLOCATE cold_count;
RESET plan_cache_mode;

-- A statement served often enough whose executions through the cache cost
-- more time than the runs its hits saved is cold too (a lookup, windows or
-- a store slower than the query; here sfcache.test_added_cache_time adds
-- a second to each execution's time in the cache), in two windows in a
-- row: one costly window is not enough (on a busy server one in ten of a
-- statement that pays comes out so). Two keys in turn, windows of 40: 38
-- of the first window's 40 are hits, all of the second's (a hit then saved
-- the last window's mean run), and the statement is cold for 600. Its
-- samples are hits: seven in a row do not end this cold run (a costly
-- statement's samples are served now and then, a third of them or more),
-- the eighth in a row does (a herd): 504 bypasses, not 63.
CREATE FUNCTION cold_alternating(n int) RETURNS SETOF text LANGUAGE sql AS
$$SELECT format('SELECT v FROM cold_item WHERE id = %s AND v <> %L', 800 + g % 2, 'x')
  FROM generate_series(1, n) g$$;
SET sfcache.cold_after = 40;
SET sfcache.test_added_cache_time = '1s';
\set ECHO none
\o /dev/null
SELECT cold_alternating(80) \gexec
\o
\set ECHO all
-- two windows: 78 hits, not cold yet (one costly window would have made
-- the second's 40 bypasses)
SELECT * FROM cold_row('SELECT v FROM cold_item WHERE id = $1 AND%');
\set ECHO none
\o /dev/null
SELECT cold_alternating(512) \gexec
\o
\set ECHO all
SELECT * FROM cold_row('SELECT v FROM cold_item WHERE id = $1 AND%');
-- Without the added time its hits pay: it stays warm (40 more hits).
RESET sfcache.test_added_cache_time;
\set ECHO none
\o /dev/null
SELECT cold_alternating(40) \gexec
\o
\set ECHO all
SELECT * FROM cold_row('SELECT v FROM cold_item WHERE id = $1 AND%');
-- The setting is for sfcache's tests: a server without
-- sfcache.enable_test_holds refuses it (001_preload.pl).

SELECT reason, statements > 0 AS counted FROM sfcache.bypass_counts() WHERE reason = 'cold statement';

-- A backend takes a cold statement's executions in leases of up to 16
-- (cache_stats.c): those it runs reach the statement's bypasses when it
-- reads sfcache.statements (as above), at its next visit, or when it
-- exits. Cold after 20 distinct keys, then 10 more run cold: another
-- backend sees all 30 once this one has exited.
SET sfcache.cold_after = 20;
SELECT sfcache.reset();
\set ECHO none
\o /dev/null
SELECT format('SELECT v FROM cold_item WHERE id = %s', g) FROM generate_series(3001, 3030) g \gexec
\o
\set ECHO all
CREATE FUNCTION cold_backend_gone(p int) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1..3000 LOOP
		PERFORM pg_stat_clear_snapshot();
		IF NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = p) THEN
			RETURN true;
		END IF;
		PERFORM pg_sleep(0.01);
	END LOOP;
	RETURN false;
END $$;
SELECT pg_backend_pid() AS cold_pid \gset
\c
SELECT cold_backend_gone(:cold_pid);
SELECT * FROM cold_row('SELECT v FROM cold_item WHERE id =%');
-- sfcache.reset() voids a lease: the statement starts warm, so the
-- execution after it goes through the cache (a leader, no bypass).
SET sfcache.cold_after = 20;
SELECT v FROM cold_item WHERE id = 3031;
SELECT sfcache.reset();
SELECT v FROM cold_item WHERE id = 3032;
SELECT * FROM cold_row('SELECT v FROM cold_item WHERE id =%');
RESET sfcache.cold_after;
DROP FUNCTION cold_row(text);
DROP FUNCTION cold_alternating(int);
DROP FUNCTION cold_backend_gone(int);
DROP TABLE cold_item;
