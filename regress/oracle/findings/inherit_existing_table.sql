-- ALTER TABLE child INHERIT parent: results over the parent are not invalidated.
CREATE TABLE h (id int, k int);
INSERT INTO h VALUES (1, 1);
CREATE TABLE hc2 (id int, k int);
INSERT INTO hc2 VALUES (3, 3);
SELECT count(*) FROM h;		-- 1, stored
ALTER TABLE hc2 INHERIT h;
SELECT count(*) FROM h;		-- 1 (stale); cache off: 2
