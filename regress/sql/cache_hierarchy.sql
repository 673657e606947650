-- Inheritance is a hierarchy like partitioning: a cached read of a parent
-- is invalidated by every change to its members and to the hierarchy
-- itself, DDL on a member inside a transaction is an own write, and a
-- temporary or foreign member anywhere makes the parent's reads bypass.
CREATE EXTENSION IF NOT EXISTS sfcache;
CREATE TABLE animal (name text);
INSERT INTO animal VALUES ('cat');
CREATE TABLE dog () INHERITS (animal);
INSERT INTO dog VALUES ('rex');

SELECT name FROM animal ORDER BY name;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT name FROM animal ORDER BY name;

-- a write to a child (the parent is not named by the write)
INSERT INTO dog VALUES ('ace');
SELECT name FROM animal ORDER BY name;

-- a new child, then an insert into it
SELECT name FROM animal ORDER BY name;
CREATE TABLE bird () INHERITS (animal);
INSERT INTO bird VALUES ('tweety');
SELECT name FROM animal ORDER BY name;

-- a grandchild
SELECT name FROM animal ORDER BY name;
CREATE TABLE puppy () INHERITS (dog);
INSERT INTO puppy VALUES ('bit');
SELECT name FROM animal ORDER BY name;

-- an existing table that starts to inherit
CREATE TABLE fish (name text);
INSERT INTO fish VALUES ('nemo');
SELECT name FROM animal ORDER BY name;
ALTER TABLE fish INHERIT animal;
SELECT name FROM animal ORDER BY name;

-- NO INHERIT, read, ROLLBACK: the uncommitted state is not stored for others
SELECT name FROM animal ORDER BY name;
BEGIN;
ALTER TABLE fish NO INHERIT animal;
SELECT name FROM animal ORDER BY name;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT name FROM animal ORDER BY name;
ROLLBACK;
SELECT name FROM animal ORDER BY name;

-- DROP TABLE of a child inside a transaction is an own write
SELECT name FROM animal ORDER BY name;
BEGIN;
DROP TABLE bird;
SELECT name FROM animal ORDER BY name;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT name FROM animal ORDER BY name;
ROLLBACK;
SELECT name FROM animal ORDER BY name;
DROP TABLE bird;
SELECT name FROM animal ORDER BY name;

-- a prepared statement planned before the hierarchy changed
PREPARE animals AS SELECT name FROM animal ORDER BY name;
EXECUTE animals;
EXECUTE animals;
CREATE TABLE cow () INHERITS (animal);
INSERT INTO cow VALUES ('daisy');
EXECUTE animals;

-- a temporary child: one session's rows; the parent's reads bypass
CREATE TEMP TABLE ghost () INHERITS (animal);
INSERT INTO ghost VALUES ('casper');
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT name FROM animal ORDER BY name;
EXECUTE animals;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) EXECUTE animals;
-- a temporary grandchild, and one under a partitioned table's partition
DROP TABLE ghost;
CREATE TEMP TABLE ghost_puppy () INHERITS (puppy);
EXPLAIN (COSTS OFF) SELECT name FROM animal;
EXPLAIN (COSTS OFF) SELECT name FROM dog;
EXPLAIN (COSTS OFF) SELECT name FROM ONLY animal;
DROP TABLE ghost_puppy;

-- a foreign member of a partitioned table
CREATE TABLE mark (course int, score int) PARTITION BY LIST (course);
CREATE TABLE mark_1 PARTITION OF mark FOR VALUES IN (1);
INSERT INTO mark VALUES (1, 90);
EXPLAIN (COSTS OFF) SELECT score FROM mark;
-- (postgres_fdw back into this database: it is built on every major)
CREATE EXTENSION postgres_fdw;
DO $$ BEGIN
	EXECUTE format('CREATE SERVER sfc_loopback FOREIGN DATA WRAPPER postgres_fdw OPTIONS (dbname %L, port %L)',
				   current_database(), current_setting('port'));
END $$;
CREATE USER MAPPING FOR CURRENT_USER SERVER sfc_loopback;
CREATE TABLE mark_far (course int, score int);
CREATE FOREIGN TABLE mark_2 PARTITION OF mark FOR VALUES IN (2)
	SERVER sfc_loopback OPTIONS (table_name 'mark_far');
EXPLAIN (COSTS OFF) SELECT score FROM mark WHERE course = 1;
EXPLAIN (COSTS OFF) SELECT score FROM mark_1;
-- ... and of an inheritance parent
CREATE TABLE alien_far (LIKE animal);
CREATE FOREIGN TABLE alien () INHERITS (animal) SERVER sfc_loopback OPTIONS (table_name 'alien_far');
EXPLAIN (COSTS OFF) SELECT name FROM animal;
SELECT count(*) FROM animal;
DROP FOREIGN TABLE alien, mark_2;
EXPLAIN (COSTS OFF) SELECT score FROM mark WHERE course = 1;

-- a partition attached and detached
CREATE TABLE mark_3 (course int, score int);
INSERT INTO mark_3 VALUES (3, 50);
SELECT course, score FROM mark ORDER BY course;
SELECT course, score FROM mark ORDER BY course;
ALTER TABLE mark ATTACH PARTITION mark_3 FOR VALUES IN (3);
SELECT course, score FROM mark ORDER BY course;
SELECT course, score FROM mark ORDER BY course;
ALTER TABLE mark DETACH PARTITION mark_3;
SELECT course, score FROM mark ORDER BY course;

SELECT reason, statements > 0 AS counted FROM sfcache.bypass_counts()
WHERE reason IN ('temporary relation', 'foreign relation') ORDER BY reason;

DEALLOCATE animals;
DROP TABLE animal, fish, mark, mark_3, mark_far, alien_far CASCADE;
DROP USER MAPPING FOR CURRENT_USER SERVER sfc_loopback;
DROP SERVER sfc_loopback;
DROP EXTENSION postgres_fdw;
