-- A hit checks every privilege a real execution would: EXECUTE on each
-- function the statement calls (operators' and aggregates' too), not only
-- the relations and columns. A REVOKE also drops what was computed.
CREATE EXTENSION IF NOT EXISTS sfcache;
CREATE ROLE sfc_priv_user;
CREATE TABLE course (id int PRIMARY KEY, title text, seats int);
INSERT INTO course VALUES (1, 'algebra', 30), (2, 'botany', 12);
GRANT SELECT ON course TO sfc_priv_user;
CREATE FUNCTION shout(text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT upper($1) || '!' $$;
CREATE FUNCTION half(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS $$ SELECT $1 * 2 > $2 $$;
CREATE OPERATOR %>% (LEFTARG = int, RIGHTARG = int, FUNCTION = half);
CREATE FUNCTION seat_sum(int, int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT coalesce($1, 0) + $2 $$;
CREATE AGGREGATE total_seats(int) (SFUNC = seat_sum, STYPE = int);
-- PUBLIC has EXECUTE by default: the role goes through a group
REVOKE EXECUTE ON FUNCTION shout(text), half(int, int), total_seats(int) FROM PUBLIC;
CREATE ROLE sfc_priv_group;
GRANT EXECUTE ON FUNCTION shout(text), half(int, int), total_seats(int) TO sfc_priv_group;
GRANT sfc_priv_group TO sfc_priv_user;

SET ROLE sfc_priv_user;
SELECT shout(title) FROM course WHERE id = 1;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT shout(title) FROM course WHERE id = 1;
SELECT id FROM course WHERE seats %>% 40 ORDER BY id;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT id FROM course WHERE seats %>% 40 ORDER BY id;
SELECT total_seats(seats) FROM course;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT total_seats(seats) FROM course;
PREPARE shouted AS SELECT shout(title) FROM course WHERE id = $1;
EXECUTE shouted(2);
EXECUTE shouted(2);
RESET ROLE;

-- leaving the group: refused, on a hit as in a real execution
REVOKE sfc_priv_group FROM sfc_priv_user;
SET ROLE sfc_priv_user;
SELECT shout(title) FROM course WHERE id = 1;
SELECT id FROM course WHERE seats %>% 40 ORDER BY id;
SELECT total_seats(seats) FROM course;
EXECUTE shouted(2);
RESET ROLE;

-- a REVOKE on the function: refused, and the stored results are gone
GRANT EXECUTE ON FUNCTION shout(text) TO sfc_priv_user;
SET ROLE sfc_priv_user;
SELECT shout(title) FROM course WHERE id = 1;
SELECT shout(title) FROM course WHERE id = 1;
RESET ROLE;
REVOKE EXECUTE ON FUNCTION shout(text) FROM sfc_priv_user;
SET ROLE sfc_priv_user;
SELECT shout(title) FROM course WHERE id = 1;
EXPLAIN (COSTS OFF) SELECT shout(title) FROM course WHERE id = 1;
RESET ROLE;
GRANT EXECUTE ON FUNCTION shout(text) TO sfc_priv_user;
SET ROLE sfc_priv_user;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT shout(title) FROM course WHERE id = 1;
RESET ROLE;

DEALLOCATE shouted;
DROP TABLE course;
DROP AGGREGATE total_seats(int);
DROP FUNCTION shout(text), seat_sum(int, int);
DROP OPERATOR %>% (int, int);
DROP FUNCTION half(int, int);
DROP ROLE sfc_priv_user, sfc_priv_group;
