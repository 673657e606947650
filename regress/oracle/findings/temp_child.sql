-- A temporary child of a permanent parent: the parent's cached result
-- (without the session's temporary rows) is served.
CREATE TABLE h (id int, k int);
INSERT INTO h VALUES (1, 1);
SELECT count(*) FROM h;		-- 1, stored
CREATE TEMP TABLE ht () INHERITS (h);
INSERT INTO ht VALUES (9, 9);
SELECT count(*) FROM h;		-- 1 (stale); cache off: 2
