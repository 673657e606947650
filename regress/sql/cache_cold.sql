-- Cold statements (sfcache.cold_after, cache_cold.c): a statement whose
-- last cold_after executions through the cache were served less than once
-- in a hundred runs as PostgreSQL plans it for 15 times as many, counted
-- as bypasses ("cold statement"), then goes through the cache again.
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

-- Off by default: 40 distinct keys all go through the cache.
SHOW sfcache.cold_after;
\o /dev/null
SELECT format('SELECT v FROM cold_item WHERE id = %s', g) FROM generate_series(1, 40) g \gexec
\o
SELECT * FROM cold_row('SELECT v FROM cold_item WHERE id =%');

-- With 20: the next 20 distinct keys make a window served 0 times in 20;
-- the 300 after it run as planned (bypasses), with the right rows.
SET sfcache.cold_after = 20;
SELECT sfcache.reset();
\o /dev/null
SELECT format('SELECT v FROM cold_item WHERE id = %s', g) FROM generate_series(41, 60) g \gexec
\o
SELECT * FROM cold_row('SELECT v FROM cold_item WHERE id =%');
SELECT v FROM cold_item WHERE id = 1;
SELECT v FROM cold_item WHERE id = 999;
SELECT * FROM cold_row('SELECT v FROM cold_item WHERE id =%');
-- EXPLAIN ANALYZE goes through the cache (a hit, in the counts below, not
-- a cold run: its output differs between majors, so it is not shown)
\o /dev/null
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT v FROM cold_item WHERE id = 2;
SELECT format('SELECT v FROM cold_item WHERE id = %s', g) FROM generate_series(101, 398) g \gexec
\o
-- 300 ran as planned, and the EXPLAIN was a hit; the next one goes
-- through the cache again (a hit: id 41 was stored before the statement
-- went cold)
SELECT * FROM cold_row('SELECT v FROM cold_item WHERE id =%');
SELECT v FROM cold_item WHERE id = 41;
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
DEALLOCATE cold_by_id;
RESET plan_cache_mode;

SELECT reason, statements > 0 AS counted FROM sfcache.bypass_counts() WHERE reason = 'cold statement';
RESET sfcache.cold_after;
DROP FUNCTION cold_row(text);
DROP TABLE cold_item;
