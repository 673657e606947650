-- A row lock (SELECT ... FOR UPDATE) sets xmax without writing the relation:
-- a stored result with xmax keeps the old value.
CREATE TABLE xr (id int, k int);
INSERT INTO xr VALUES (1, 1);
SELECT xmax = 0 AS unlocked FROM xr;	-- t, stored
SELECT id FROM xr FOR UPDATE;		-- autocommit: the lock's xid stays in xmax
SELECT xmax = 0 AS unlocked FROM xr;	-- t (stale); cache off: f
