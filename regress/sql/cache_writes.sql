-- Every write path invalidates: after each write, the next read sees it.
-- Each case reads once (leader), once more (hit), writes, reads again.
CREATE EXTENSION IF NOT EXISTS sfcache;
\set hit 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF)'
CREATE TABLE enrollment (id int PRIMARY KEY, student int, course int, grade int);
INSERT INTO enrollment SELECT g, g % 10, g % 7, 50 FROM generate_series(1, 50) g;
CREATE VIEW grade_total AS SELECT sum(grade) AS total FROM enrollment;

-- INSERT
SELECT count(*) FROM enrollment;
:hit SELECT count(*) FROM enrollment;
INSERT INTO enrollment VALUES (51, 1, 1, 60);
SELECT count(*) FROM enrollment;

-- UPDATE
UPDATE enrollment SET grade = grade + 1 WHERE id = 1;
SELECT count(*) FROM enrollment;
SELECT sum(grade) FROM enrollment;
:hit SELECT sum(grade) FROM enrollment;
UPDATE enrollment SET grade = grade + 1 WHERE id = 2;
SELECT sum(grade) FROM enrollment;

-- DELETE
DELETE FROM enrollment WHERE id = 51;
SELECT count(*) FROM enrollment;

-- INSERT ... ON CONFLICT
INSERT INTO enrollment VALUES (1, 1, 1, 100) ON CONFLICT (id) DO UPDATE SET grade = excluded.grade;
SELECT sum(grade) FROM enrollment;

-- MERGE
SELECT sum(grade) FROM enrollment;
MERGE INTO enrollment e USING (VALUES (2, 0)) v(id, grade) ON e.id = v.id
	WHEN MATCHED THEN UPDATE SET grade = v.grade;
SELECT sum(grade) FROM enrollment;

-- a view over the table
SELECT total FROM grade_total;
:hit SELECT total FROM grade_total;
UPDATE enrollment SET grade = 0 WHERE id = 3;
SELECT total FROM grade_total;

-- COPY FROM
COPY enrollment FROM stdin;
60	1	1	10
\.
SELECT count(*) FROM enrollment;

-- a PL/pgSQL function and an SQL function that write
CREATE FUNCTION bump_plpgsql() RETURNS void LANGUAGE plpgsql AS
$$ BEGIN UPDATE enrollment SET grade = grade + 10 WHERE id = 4; END $$;
CREATE FUNCTION bump_sql() RETURNS void LANGUAGE sql AS
$$ UPDATE enrollment SET grade = grade + 10 WHERE id = 4 $$;
SELECT grade FROM enrollment WHERE id = 4;
:hit SELECT grade FROM enrollment WHERE id = 4;
SELECT bump_plpgsql();
SELECT grade FROM enrollment WHERE id = 4;
SELECT bump_sql();
SELECT grade FROM enrollment WHERE id = 4;
DO $$ BEGIN UPDATE enrollment SET grade = 7 WHERE id = 4; END $$;
SELECT grade FROM enrollment WHERE id = 4;

-- a trigger that writes another table
CREATE TABLE grade_log (n int);
INSERT INTO grade_log VALUES (0);
CREATE FUNCTION log_grade() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN UPDATE grade_log SET n = n + 1; RETURN NEW; END $$;
CREATE TRIGGER log_grade AFTER UPDATE ON enrollment FOR EACH ROW EXECUTE FUNCTION log_grade();
SELECT n FROM grade_log;
:hit SELECT n FROM grade_log;
UPDATE enrollment SET grade = 1 WHERE id = 5;
SELECT n FROM grade_log;

-- foreign-key actions
CREATE TABLE student (id int PRIMARY KEY);
CREATE TABLE submission (id int PRIMARY KEY, student int REFERENCES student ON DELETE CASCADE);
INSERT INTO student VALUES (1), (2);
INSERT INTO submission VALUES (1, 1), (2, 1), (3, 2);
SELECT count(*) FROM submission;
:hit SELECT count(*) FROM submission;
DELETE FROM student WHERE id = 1;
SELECT count(*) FROM submission;

-- partitions: write to a partition, read the parent; write through the
-- parent, read the partition
CREATE TABLE activity (term int, n int) PARTITION BY LIST (term);
CREATE TABLE activity_1 PARTITION OF activity FOR VALUES IN (1);
CREATE TABLE activity_2 PARTITION OF activity FOR VALUES IN (2);
INSERT INTO activity VALUES (1, 1), (2, 2);
SELECT sum(n) FROM activity;
:hit SELECT sum(n) FROM activity;
INSERT INTO activity_2 VALUES (2, 40);
SELECT sum(n) FROM activity;
SELECT sum(n) FROM activity_1;
:hit SELECT sum(n) FROM activity_1;
INSERT INTO activity VALUES (1, 300);
SELECT sum(n) FROM activity_1;
UPDATE activity SET term = 2 WHERE n = 300;
SELECT sum(n) FROM activity_1;

-- a materialized view, refreshed
CREATE MATERIALIZED VIEW student_count AS SELECT count(*) AS n FROM student;
SELECT n FROM student_count;
:hit SELECT n FROM student_count;
INSERT INTO student VALUES (3);
SELECT n FROM student_count;
REFRESH MATERIALIZED VIEW student_count;
SELECT n FROM student_count;

-- DDL on a relation
SELECT * FROM student ORDER BY id;
ALTER TABLE student ADD COLUMN name text DEFAULT 'anonymous';
SELECT * FROM student ORDER BY id;
ALTER TABLE student ALTER COLUMN name SET DEFAULT 'x';
UPDATE student SET name = DEFAULT WHERE id = 2;
SELECT * FROM student ORDER BY id;

-- TRUNCATE
SELECT count(*) FROM grade_log;
:hit SELECT count(*) FROM grade_log;
TRUNCATE grade_log;
SELECT count(*) FROM grade_log;

-- redefining an immutable function that a cached result called
CREATE FUNCTION bonus(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 + 1';
SELECT bonus(grade) FROM enrollment WHERE id = 7;
:hit SELECT bonus(grade) FROM enrollment WHERE id = 7;
CREATE OR REPLACE FUNCTION bonus(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 + 100';
SELECT bonus(grade) FROM enrollment WHERE id = 7;
DROP FUNCTION bonus(int);

-- writes in a transaction become visible to others' cached reads on commit;
-- in the writing transaction itself the cache is bypassed (own write)
BEGIN;
UPDATE enrollment SET grade = 99 WHERE id = 6;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT grade FROM enrollment WHERE id = 6;
SELECT grade FROM enrollment WHERE id = 6;
ROLLBACK;
SELECT grade FROM enrollment WHERE id = 6;
:hit SELECT grade FROM enrollment WHERE id = 6;
BEGIN;
DELETE FROM enrollment WHERE id = 6;
SELECT grade FROM enrollment WHERE id = 6;
COMMIT;
SELECT grade FROM enrollment WHERE id = 6;

-- a savepoint rolled back still counts as a write of the transaction
BEGIN;
SAVEPOINT s;
INSERT INTO student VALUES (9);
ROLLBACK TO SAVEPOINT s;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT count(*) FROM student;
COMMIT;

DROP TABLE enrollment, grade_log, submission, student, activity CASCADE;
DROP FUNCTION bump_plpgsql(), bump_sql(), log_grade();

-- A result keeps an out-of-line (TOASTed) value as its pointer, so nothing
-- may remove that value while the result is served: VACUUM FULL (which
-- rewrites the table) invalidates it, and so does a write to the table,
-- before VACUUM can remove the old value. Misses: the first read, after
-- VACUUM FULL, after the UPDATE; hits: the two reads after a miss.
CREATE TABLE doc (id int PRIMARY KEY, body text);
ALTER TABLE doc ALTER body SET STORAGE EXTERNAL;
INSERT INTO doc SELECT 1, string_agg(md5(i::text), '') FROM generate_series(1, 200) i;
INSERT INTO doc VALUES (2, 'short');
SELECT sfcache.reset();
SELECT body FROM doc WHERE id = 1 \gset v1_
SELECT body FROM doc WHERE id = 1 \gset v2_
VACUUM FULL doc;
SELECT body FROM doc WHERE id = 1 \gset v3_
UPDATE doc SET body = body || 'x' WHERE id = 1;
VACUUM doc;
SELECT body FROM doc WHERE id = 1 \gset v4_
SELECT body FROM doc WHERE id = 1 \gset v5_
SELECT md5(:'v1_body') = md5(:'v2_body') AND md5(:'v1_body') = md5(:'v3_body') AS same_before,
	md5(:'v4_body') = md5(:'v5_body') AND :'v5_body' = :'v1_body' || 'x' AS updated_after;
SELECT hits, leader_executions FROM sfcache.statements WHERE query = 'SELECT body FROM doc WHERE id = $1';
DROP TABLE doc;
