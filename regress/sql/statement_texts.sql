-- Statement texts hold no data: sfcache.statements shows each statement's
-- own text with its constants as $n (as pg_stat_statements does), never
-- the EXPLAIN or PREPARE around it nor the other statements of its string;
-- sfcache.literal_texts (superuser only) keeps the constants.
CREATE EXTENSION IF NOT EXISTS sfcache;
SELECT sfcache.reset();
CREATE TABLE inbox (id int PRIMARY KEY, user_id int, status text, score float8);
INSERT INTO inbox SELECT g, g % 50, CASE WHEN g % 3 = 0 THEN 'unread' ELSE 'read' END, g / 7.0
FROM generate_series(1, 200) g;

\o /dev/null
SELECT count(*) FROM inbox WHERE user_id = 42 AND status = 'unread';
SELECT id FROM inbox WHERE score > -1.5 AND status <> E'arch\'ived' ORDER BY id LIMIT 3 OFFSET 1;
SELECT count(*) FROM inbox WHERE status = $$dollar quoted$$ OR user_id = 4711;
-- two statements in one string: each has its own text
SELECT max(id) FROM inbox WHERE user_id = 4243 \; SELECT min(id) FROM inbox WHERE status = 'multi';
-- the first time this shape is seen is under EXPLAIN: its text is its own
EXPLAIN (COSTS OFF) SELECT status FROM inbox WHERE id = 9117;
-- the same after another statement of its string (up to 17 the parser
-- gives it no span of its own: its constant tells which it is); without a
-- constant it cannot be told, and it has no text
SELECT count(*) FROM inbox WHERE user_id = 5150 \; EXPLAIN (COSTS OFF) SELECT user_id FROM inbox WHERE id = 6160;
SELECT count(*) FROM inbox WHERE user_id = 5151 \; EXPLAIN (COSTS OFF) SELECT max(score) FROM inbox;
-- a prepared statement keeps its $1; its constant is numbered after it
PREPARE by_user (int) AS SELECT count(*) FROM inbox WHERE status = 'prepared' AND user_id = $1;
EXECUTE by_user(7);
\o

SELECT query FROM sfcache.statements WHERE query LIKE '%inbox%' ORDER BY query;
-- no literal above reached the view
SELECT count(*) AS literals FROM sfcache.statements
WHERE query ~ '(42|unread|1\.5|ived|dollar|4243|4711|multi|9117|5150|5151|6160|prepared|EXPLAIN|PREPARE)';

-- sfcache.literal_texts keeps the constants (of statements first seen with it)
SET sfcache.literal_texts = on;
\o /dev/null
SELECT sum(id) FROM inbox WHERE user_id = 17 AND status = 'literal';
EXPLAIN (COSTS OFF) SELECT avg(score) FROM inbox WHERE user_id = 18;
\o
RESET sfcache.literal_texts;
SELECT query FROM sfcache.statements
WHERE query LIKE 'SELECT sum(id)%' OR query LIKE 'SELECT avg(score)%' ORDER BY query;

-- only a superuser sets it
CREATE ROLE texts_reader;
SET ROLE texts_reader;
SET sfcache.literal_texts = on;
RESET ROLE;
DROP ROLE texts_reader;

DEALLOCATE by_user;
DROP TABLE inbox;
