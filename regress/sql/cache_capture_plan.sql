-- Capture from the plan (cache_capture_plan.c): a write whose plan names
-- the tracked values of every row it can write (INSERT ... VALUES; UPDATE
-- and DELETE restricted by an equality on the column) notes their tags
-- when it starts, with the capture trigger off for that statement; any
-- other write keeps the trigger. Either way, a result over another value
-- stays (hit = 1) and one over a value written is dropped (hit = 0).
-- write() runs a write and says how many times the capture trigger ran
-- (EXPLAIN ANALYZE's trigger calls): 0 when the plan captured.
CREATE EXTENSION IF NOT EXISTS sfcache;
SET sfcache.cache = on;
CREATE TABLE acct (id int PRIMARY KEY, owner int DEFAULT 5, balance int, label text);
INSERT INTO acct SELECT g, g % 10, 0, 'a' FROM generate_series(1, 50) g;
CREATE TABLE audit (n int);
CREATE FUNCTION audit_row() RETURNS trigger LANGUAGE plpgsql AS
	$$ BEGIN INSERT INTO audit VALUES (1); RETURN NULL; END $$;
CREATE FUNCTION redirect() RETURNS trigger LANGUAGE plpgsql AS
	$$ BEGIN IF NEW.label = 'redirect' THEN NEW.owner := 7; END IF; RETURN NEW; END $$;
CREATE TABLE gen (id int, a int, owner int GENERATED ALWAYS AS (a + 0) STORED);
INSERT INTO gen (id, a) VALUES (1, 5), (2, 7);
SELECT sfcache.track('acct', 'owner');
SELECT sfcache.track('gen', 'owner');
CREATE FUNCTION write(statement text) RETURNS TABLE (capture_calls bigint)
LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || statement
		INTO plan;
	RETURN QUERY SELECT coalesce(sum((t ->> 'Calls')::bigint), 0)::bigint
		FROM json_array_elements(plan -> 0 -> 'Triggers') t
		WHERE t ->> 'Trigger Name' = 'sfcache_capture';
END $$;
PREPARE r5 AS SELECT count(*), sum(balance) FROM acct WHERE owner = 5;
PREPARE r7 AS SELECT count(*), sum(balance) FROM acct WHERE owner = 7;
PREPARE g7 AS SELECT count(*) FROM gen WHERE owner = 7;
EXECUTE r5; EXECUTE r7; EXECUTE g7;

-- INSERT ... VALUES: one row, several rows, a column's default
SELECT write($$INSERT INTO acct VALUES (101, 5, 1, 'x')$$);
SELECT hits AS h FROM sfcache.stats \gset
EXECUTE r7;
SELECT hits - :h AS r7_hit FROM sfcache.stats \gset
EXECUTE r5;
SELECT hits - :h - :r7_hit AS r5_hit, :r7_hit AS r7_hit FROM sfcache.stats;
SELECT write($$INSERT INTO acct VALUES (102, 5, 1, 'x'), (103, 6, 1, 'x')$$);
SELECT write($$INSERT INTO acct (id, balance, label) VALUES (104, 1, 'x')$$);
SELECT hits AS h FROM sfcache.stats \gset
EXECUTE r7;
SELECT hits - :h AS r7_hit FROM sfcache.stats \gset
EXECUTE r5;
SELECT hits - :h - :r7_hit AS r5_hit, :r7_hit AS r7_hit FROM sfcache.stats;

-- UPDATE and DELETE restricted on the column: =, with another column, IN,
-- a cross-type constant, and no row at all
BEGIN;
SELECT write($$UPDATE acct SET balance = balance + 1 WHERE owner = 5$$);
SELECT write($$UPDATE acct SET balance = balance + 1 WHERE id = 15 AND owner = 5$$);
SELECT write($$UPDATE acct SET balance = balance + 1 WHERE owner IN (5, 6)$$);
SELECT write($$UPDATE acct SET balance = balance + 1 WHERE owner = 5::bigint$$);
SELECT write($$UPDATE acct SET balance = balance + 1 WHERE owner = 99$$);
SELECT write($$DELETE FROM acct WHERE owner = 5 AND id = 25$$);
COMMIT;
SELECT hits AS h FROM sfcache.stats \gset
EXECUTE r7;
SELECT hits - :h AS r7_hit FROM sfcache.stats \gset
EXECUTE r5;
SELECT hits - :h - :r7_hit AS r5_hit, :r7_hit AS r7_hit FROM sfcache.stats;

-- a parameter of a generic plan, read when the statement starts
SET plan_cache_mode = force_generic_plan;
PREPARE w(int) AS UPDATE acct SET balance = balance + 1 WHERE owner = $1;
SELECT write('EXECUTE w(5)');
RESET plan_cache_mode;
SELECT hits AS h FROM sfcache.stats \gset
EXECUTE r7;
SELECT hits - :h AS r7_hit FROM sfcache.stats \gset
EXECUTE r5;
SELECT hits - :h - :r7_hit AS r5_hit, :r7_hit AS r7_hit FROM sfcache.stats;

-- Writes the plan cannot name: the trigger captures them.
-- A subquery's value (a parameter of the executor, not of the client's
-- statement, though $1 has the same number and type) writes owner 7.
PREPARE ins(int) AS INSERT INTO acct VALUES ((SELECT $1 + 200), (SELECT 7), 1, 'x');
SELECT write('EXECUTE ins(5)');
SELECT hits AS h FROM sfcache.stats \gset
EXECUTE r7;
SELECT hits - :h AS r7_hit FROM sfcache.stats \gset
EXECUTE r5;
SELECT hits - :h - :r7_hit AS r5_hit, :r7_hit AS r7_hit FROM sfcache.stats;
-- An UPDATE that assigns the column moves rows from 5 to 7: both drop.
SELECT write($$UPDATE acct SET owner = 7 WHERE owner = 5 AND id = 35$$);
SELECT hits AS h FROM sfcache.stats \gset
EXECUTE r7;
SELECT hits - :h AS r7_hit FROM sfcache.stats \gset
EXECUTE r5;
SELECT hits - :h - :r7_hit AS r5_hit, :r7_hit AS r7_hit FROM sfcache.stats;
-- not restricted on the column (the trigger sees owner 5 only)
SELECT write($$UPDATE acct SET balance = 0 WHERE id = 45$$);
SELECT hits AS h FROM sfcache.stats \gset
EXECUTE r7;
SELECT hits - :h AS r7_hit FROM sfcache.stats \gset
EXECUTE r5;
SELECT hits - :h - :r7_hit AS r5_hit, :r7_hit AS r7_hit FROM sfcache.stats;
-- a PL/pgSQL variable (a parameter the plan does not hold)
DO $$ DECLARE o int := 5; BEGIN UPDATE acct SET balance = 2 WHERE owner = o; END $$;
SELECT hits AS h FROM sfcache.stats \gset
EXECUTE r7;
SELECT hits - :h AS r7_hit FROM sfcache.stats \gset
EXECUTE r5;
SELECT hits - :h - :r7_hit AS r5_hit, :r7_hit AS r7_hit FROM sfcache.stats;
-- a BEFORE ROW trigger may change the value the plan gives: it moves this
-- row to owner 7
CREATE TRIGGER redirect BEFORE INSERT OR UPDATE ON acct FOR EACH ROW EXECUTE FUNCTION redirect();
EXECUTE r5; EXECUTE r7;
SELECT write($$INSERT INTO acct VALUES (105, 5, 1, 'redirect')$$);
SELECT hits AS h FROM sfcache.stats \gset
EXECUTE r7;
SELECT hits - :h AS r7_hit FROM sfcache.stats \gset
EXECUTE r5;
SELECT hits - :h - :r7_hit AS r5_hit, :r7_hit AS r7_hit FROM sfcache.stats;
DROP TRIGGER redirect ON acct;
-- a generated column: its value is not in the plan
SELECT write($$INSERT INTO gen (id, a) VALUES (3, 7)$$);
SELECT hits AS h FROM sfcache.stats \gset
EXECUTE g7;
SELECT hits - :h AS g7_hit FROM sfcache.stats;

-- Another AFTER ROW trigger still runs while the capture trigger is off.
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON acct FOR EACH ROW EXECUTE FUNCTION audit_row();
EXECUTE r5; EXECUTE r7;
BEGIN;
SELECT write($$UPDATE acct SET balance = balance + 1 WHERE owner = 5$$);
SELECT write($$INSERT INTO acct VALUES (106, 5, 1, 'x')$$);
COMMIT;
SELECT count(*) AS audited FROM audit;
SELECT hits AS h FROM sfcache.stats \gset
EXECUTE r7;
SELECT hits - :h AS r7_hit FROM sfcache.stats \gset
EXECUTE r5;
SELECT hits - :h - :r7_hit AS r5_hit, :r7_hit AS r7_hit FROM sfcache.stats;
DROP TRIGGER audit ON acct;

-- A table the transaction already writes whole needs no capture: the
-- trigger is off whatever the plan, and every result drops.
BEGIN;
ALTER TABLE acct ALTER COLUMN label SET DEFAULT 'y';
SELECT write($$UPDATE acct SET balance = 0 WHERE id = 46$$);
COMMIT;
SELECT hits AS h FROM sfcache.stats \gset
EXECUTE r7;
SELECT hits - :h AS r7_hit FROM sfcache.stats \gset
EXECUTE r5;
SELECT hits - :h - :r7_hit AS r5_hit, :r7_hit AS r7_hit FROM sfcache.stats;

DEALLOCATE r5;
DEALLOCATE r7;
DEALLOCATE g7;
DEALLOCATE w;
DEALLOCATE ins;
DROP FUNCTION write(text);
DROP TABLE acct, audit, gen;
DROP FUNCTION audit_row(), redirect();
