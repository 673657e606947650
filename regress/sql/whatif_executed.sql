-- A hypothetical index never reaches a plan that is executed: plain EXPLAIN
-- and sfcache.whatif() offer one only to the planner call of the statement
-- itself, not to the queries of functions that planning runs (constant
-- folding, estimation, SQL functions evaluated), whose plans PL/pgSQL and
-- SPI keep; and forgetting the indexes makes their tables' plans again.
CREATE EXTENSION IF NOT EXISTS sfcache;
-- calls are counted by executing them: no result cache here
SET sfcache.cache = off;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE wx (id int PRIMARY KEY, org int NOT NULL, pad text);
INSERT INTO wx SELECT g, g % 500, repeat('x', 50) FROM generate_series(1, 20000) g;
ANALYZE wx;
-- an IMMUTABLE PL/pgSQL function: plain EXPLAIN folds wx_count5() into a
-- constant, running its query
CREATE FUNCTION wx_count5() RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS
$$ BEGIN RETURN (SELECT count(*) FROM wx WHERE org = 5); END $$;
-- the same with a parameter, planned generic (kept at its first call)
CREATE FUNCTION wx_count(o int) RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS
$$ BEGIN RETURN (SELECT count(*) FROM wx WHERE org = o); END $$;
-- an SQL function that cannot be inlined: evaluated while folding
CREATE FUNCTION wx_sql_count(int) RETURNS bigint LANGUAGE sql IMMUTABLE AS
$$ SELECT count(*) FROM wx WHERE org = $1 $$;
-- a STABLE PL/pgSQL function in a WHERE clause: run by the estimation
CREATE FUNCTION wx_org_of(i int) RETURNS int LANGUAGE plpgsql STABLE AS
$$ BEGIN RETURN (SELECT org FROM wx WHERE org = i % 500 LIMIT 1); END $$;
-- an SQL function that is inlined: part of the explained statement itself
CREATE FUNCTION wx_ids(int) RETURNS SETOF int LANGUAGE sql STABLE AS
$$ SELECT id FROM wx WHERE org = $1 $$;
SET plan_cache_mode = force_generic_plan;
PREPARE wx_prep(int) AS SELECT count(*) FROM wx WHERE org = $1;

SELECT sfcache.hypothetical_index('CREATE INDEX wx_hypo_org ON wx (org)');
-- the explained statement sees it
EXPLAIN (COSTS OFF) SELECT id FROM wx WHERE org = 5;
EXPLAIN (COSTS OFF) SELECT * FROM wx_ids(7);
-- the code planning runs does not
EXPLAIN (COSTS OFF) SELECT wx_count5();
EXPLAIN (COSTS OFF) SELECT wx_count(6);
EXPLAIN (COSTS OFF) SELECT wx_sql_count(8);
EXPLAIN (COSTS OFF) SELECT id FROM wx WHERE org = wx_org_of(9) AND id < 100;
-- nor EXPLAIN EXECUTE, whose plan is the prepared statement's own
EXPLAIN (COSTS OFF) EXECUTE wx_prep(10);
-- every plan made above runs, with the index and after it is gone
SELECT wx_count5(), wx_count(6), wx_sql_count(8), wx_org_of(9);
SELECT count(*) FROM wx_ids(7);
EXECUTE wx_prep(10);
SELECT sfcache.hypothetical_reset();
SELECT wx_count5(), wx_count(6), wx_sql_count(8), wx_org_of(9);
EXECUTE wx_prep(10);

-- sfcache.whatif() plans the statement it costs, not the queries of the
-- functions folded meanwhile
SELECT cost_before > 0 AS costed, indexes_used
FROM sfcache.whatif('SELECT count(*) FROM wx WHERE org = wx_count(11)',
					ARRAY['CREATE INDEX ON wx (org)']);
SELECT cost_before > cost_after AS cheaper, indexes_used
FROM sfcache.whatif('SELECT id FROM wx WHERE org = 12', ARRAY['CREATE INDEX ON wx (org)']);
SELECT wx_count(11);
SELECT wx_count(11);

DEALLOCATE wx_prep;
RESET plan_cache_mode;
DROP FUNCTION wx_count5(), wx_count(int), wx_sql_count(int), wx_org_of(int), wx_ids(int);
DROP TABLE wx;
RESET sfcache.cache;
