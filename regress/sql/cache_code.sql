-- Every piece of code a statement can run must be IMMUTABLE for it to be
-- cached, not only the calls the query tree shows.
CREATE EXTENSION IF NOT EXISTS sfcache;
CREATE TABLE score (id int PRIMARY KEY, student int, points int);
INSERT INTO score SELECT g, g % 5, g FROM generate_series(1, 20) g;
CREATE TABLE bonus (points int);
INSERT INTO bonus VALUES (100);

-- an aggregate whose state function reads another table: CREATE AGGREGATE
-- records the aggregate itself as IMMUTABLE
CREATE FUNCTION add_bonus(state int, v int) RETURNS int LANGUAGE sql VOLATILE
AS $$ SELECT coalesce(state, 0) + v + (SELECT max(points) FROM bonus) $$;
CREATE AGGREGATE bonus_sum(int) (SFUNC = add_bonus, STYPE = int);
SELECT provolatile FROM pg_proc WHERE proname = 'bonus_sum';
EXPLAIN (COSTS OFF) SELECT bonus_sum(points) FROM score WHERE id <= 2;
SELECT bonus_sum(points) FROM score WHERE id <= 2;
UPDATE bonus SET points = 1000;
SELECT bonus_sum(points) FROM score WHERE id <= 2;
-- ... also as a window function, and through a final function
EXPLAIN (COSTS OFF) SELECT id, bonus_sum(points) OVER (ORDER BY id) FROM score WHERE id <= 2;
CREATE FUNCTION plus_bonus(int) RETURNS int LANGUAGE sql STABLE
AS $$ SELECT $1 + (SELECT max(points) FROM bonus) $$;
CREATE AGGREGATE final_bonus(int) (SFUNC = int4pl, STYPE = int, FINALFUNC = plus_bonus);
EXPLAIN (COSTS OFF) SELECT final_bonus(points) FROM score WHERE id <= 2;
-- an aggregate whose support functions are all immutable is cached
CREATE FUNCTION add_int(int, int) RETURNS int LANGUAGE sql IMMUTABLE STRICT AS $$ SELECT $1 + $2 $$;
CREATE AGGREGATE pure_sum(int) (SFUNC = add_int, STYPE = int);
EXPLAIN (COSTS OFF) SELECT pure_sum(points) FROM score WHERE id <= 2;

-- a domain whose CHECK calls a volatile function runs it on every cast
CREATE FUNCTION bonus_limit() RETURNS int LANGUAGE sql VOLATILE AS $$ SELECT max(points) FROM bonus $$;
CREATE DOMAIN capped AS int CHECK (VALUE <= bonus_limit());
EXPLAIN (COSTS OFF) SELECT points::capped FROM score WHERE id = 1;
CREATE DOMAIN positive AS int CHECK (VALUE > 0);
EXPLAIN (COSTS OFF) SELECT points::positive FROM score WHERE id = 1;

-- a type whose comparison is volatile, used by ORDER BY, DISTINCT, GROUP BY,
-- a join, and inside an array and a composite
CREATE TYPE grade AS (v int);
CREATE FUNCTION grade_cmp(a grade, b grade) RETURNS int LANGUAGE plpgsql VOLATILE
AS $$ BEGIN RETURN CASE WHEN (a).v < (b).v THEN -1 WHEN (a).v > (b).v THEN 1 ELSE 0 END; END $$;
CREATE FUNCTION grade_lt(grade, grade) RETURNS bool LANGUAGE sql IMMUTABLE AS $$ SELECT grade_cmp($1, $2) < 0 $$;
CREATE FUNCTION grade_le(grade, grade) RETURNS bool LANGUAGE sql IMMUTABLE AS $$ SELECT grade_cmp($1, $2) <= 0 $$;
CREATE FUNCTION grade_eq(grade, grade) RETURNS bool LANGUAGE sql IMMUTABLE AS $$ SELECT grade_cmp($1, $2) = 0 $$;
CREATE FUNCTION grade_ge(grade, grade) RETURNS bool LANGUAGE sql IMMUTABLE AS $$ SELECT grade_cmp($1, $2) >= 0 $$;
CREATE FUNCTION grade_gt(grade, grade) RETURNS bool LANGUAGE sql IMMUTABLE AS $$ SELECT grade_cmp($1, $2) > 0 $$;
CREATE OPERATOR <<< (LEFTARG = grade, RIGHTARG = grade, FUNCTION = grade_lt);
CREATE OPERATOR <<= (LEFTARG = grade, RIGHTARG = grade, FUNCTION = grade_le);
CREATE OPERATOR === (LEFTARG = grade, RIGHTARG = grade, FUNCTION = grade_eq);
CREATE OPERATOR >>= (LEFTARG = grade, RIGHTARG = grade, FUNCTION = grade_ge);
CREATE OPERATOR >>> (LEFTARG = grade, RIGHTARG = grade, FUNCTION = grade_gt);
CREATE OPERATOR CLASS grade_ops DEFAULT FOR TYPE grade USING btree AS
	OPERATOR 1 <<<, OPERATOR 2 <<=, OPERATOR 3 ===, OPERATOR 4 >>=, OPERATOR 5 >>>,
	FUNCTION 1 grade_cmp(grade, grade);
CREATE TABLE graded (id int PRIMARY KEY, g grade);
INSERT INTO graded SELECT i, ROW(i % 3)::grade FROM generate_series(1, 6) i;
EXPLAIN (COSTS OFF) SELECT id FROM graded ORDER BY g USING <<<, id;
EXPLAIN (COSTS OFF) SELECT DISTINCT g FROM graded;
EXPLAIN (COSTS OFF) SELECT g, count(*) FROM graded GROUP BY g;
EXPLAIN (COSTS OFF) SELECT a.id FROM graded a JOIN graded b ON a.g === b.g WHERE a.id = 1;
EXPLAIN (COSTS OFF) SELECT max(ARRAY[g]) IS NULL FROM graded;
-- the same type with an immutable comparison is cached
CREATE OR REPLACE FUNCTION grade_cmp(a grade, b grade) RETURNS int LANGUAGE plpgsql IMMUTABLE
AS $$ BEGIN RETURN CASE WHEN (a).v < (b).v THEN -1 WHEN (a).v > (b).v THEN 1 ELSE 0 END; END $$;
EXPLAIN (COSTS OFF) SELECT id FROM graded ORDER BY g USING <<<, id;

-- sfcache.bypass_counts() counts them all as "volatile or stable function"
SELECT statements > 0 AS counted FROM sfcache.bypass_counts()
WHERE reason = 'volatile or stable function';

DROP TABLE graded, score, bonus;
DROP TYPE grade CASCADE;
DROP DOMAIN capped, positive;
