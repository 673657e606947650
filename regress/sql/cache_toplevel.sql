-- Only the client's own statements are wrapped: queries of functions,
-- triggers (deferred ones fire at COMMIT, outside any executor) and
-- PL/pgSQL expressions run as PostgreSQL plans them, and a client's SELECT
-- under DECLARE, CREATE TABLE AS or COPY is counted as not a plain SELECT.
CREATE EXTENSION IF NOT EXISTS sfcache;
CREATE TABLE enrolment (id int PRIMARY KEY, student int, course int);
CREATE TABLE audit (id serial, note text);
INSERT INTO enrolment VALUES (1, 10, 100);

-- a deferred constraint trigger whose PL/pgSQL reads a table and raises
-- a notice with a simple expression
CREATE FUNCTION enrolment_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	n int;
BEGIN
	SELECT count(*) INTO n FROM enrolment WHERE student = NEW.student;
	RAISE NOTICE '% sees % enrolments', TG_NAME, n;
	INSERT INTO audit (note) VALUES (TG_NAME || ' ' || n);
	RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER enrolment_deferred AFTER INSERT ON enrolment
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION enrolment_check();
BEGIN;
INSERT INTO enrolment VALUES (2, 10, 101);
INSERT INTO enrolment VALUES (3, 10, 102);
COMMIT;
SELECT note FROM audit ORDER BY id;
-- the same at the end of an implicit transaction, and SET CONSTRAINTS
INSERT INTO enrolment VALUES (4, 11, 100);
BEGIN;
INSERT INTO enrolment VALUES (5, 11, 101);
SET CONSTRAINTS ALL IMMEDIATE;
COMMIT;
SELECT note FROM audit ORDER BY id;
-- the statement inside the trigger was not cached as a client's statement
SELECT count(*) AS trigger_shapes FROM sfcache.statements
WHERE query LIKE 'SELECT count(*)%' AND query LIKE '%= NEW.student';

-- PL/pgSQL expressions and queries, in a DO block and a function
DO $$
DECLARE
	t text := 'do ' || 'block';
BEGIN
	RAISE NOTICE '%', t;
	PERFORM count(*) FROM enrolment;
END $$;
CREATE FUNCTION course_count(s int) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
	RETURN (SELECT count(*) FROM enrolment WHERE student = s);
END $$;
SELECT course_count(10), course_count(10);

-- a client's SELECT under DECLARE, CREATE TABLE AS, COPY: not a plain SELECT
SELECT sfcache.reset();
BEGIN;
DECLARE c CURSOR FOR SELECT student FROM enrolment WHERE id = 1;
FETCH ALL FROM c;
CLOSE c;
COMMIT;
CREATE TABLE enrolment_copy AS SELECT student FROM enrolment WHERE id = 1;
COPY (SELECT student FROM enrolment WHERE id = 1) TO STDOUT;
SELECT reason, statements FROM sfcache.bypass_counts() WHERE reason = 'not a plain SELECT';

-- a client's EXECUTE and EXPLAIN EXECUTE are its own statements
PREPARE one_student AS SELECT student FROM enrolment WHERE id = $1;
EXECUTE one_student(1);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) EXECUTE one_student(1);
DEALLOCATE one_student;

DROP TABLE enrolment, audit, enrolment_copy;
DROP FUNCTION enrolment_check(), course_count(int);

-- PL/pgSQL run while PostgreSQL plans or starts a statement the cache does
-- not take, or evaluates EXECUTE's parameters: planned as usual
CREATE FUNCTION double_it(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$BEGIN RETURN $1 * 2; END$$;
CREATE TABLE doubled (a int);
INSERT INTO doubled VALUES (double_it(1));
SELECT a FROM doubled;
CREATE FUNCTION int_eq_pl(int, int) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$BEGIN RETURN $1 = $2; END$$;
CREATE OPERATOR === (FUNCTION = int_eq_pl, LEFTARG = int, RIGHTARG = int, RESTRICT = eqsel);
INSERT INTO doubled SELECT g % 10 FROM generate_series(1, 100) g;
ANALYZE doubled;
UPDATE doubled SET a = a WHERE a === 5;
CREATE FUNCTION make_pair(int, int) RETURNS int[] LANGUAGE plpgsql AS $$DECLARE x int[]; BEGIN x[1] := $1; x[2] := $2; RETURN x; END$$;
PREPARE by_pair(int[]) AS SELECT count(*) FROM doubled WHERE ARRAY[a, a] = $1;
EXECUTE by_pair(make_pair(5, 5));
DEALLOCATE by_pair;
CREATE FUNCTION one() RETURNS int LANGUAGE plpgsql STABLE AS $$BEGIN RETURN 1; END$$;
CREATE TABLE pruned (a int) PARTITION BY LIST (a);
CREATE TABLE pruned_1 PARTITION OF pruned FOR VALUES IN (1);
CREATE TABLE pruned_2 PARTITION OF pruned FOR VALUES IN (2);
INSERT INTO pruned VALUES (1), (2);
SET plan_cache_mode = force_generic_plan;
PREPARE pruned_one AS SELECT a FROM pruned WHERE a = one();
EXECUTE pruned_one;
RESET plan_cache_mode;
DEALLOCATE pruned_one;
DROP TABLE doubled, pruned;
DROP OPERATOR === (int, int);
DROP FUNCTION double_it(int), int_eq_pl(int, int), make_pair(int, int), one();
