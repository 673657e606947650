-- TTLs: sfcache.ttl for every statement, sfcache.set_ttl() per relation,
-- the smallest among a statement's relations applying.
CREATE EXTENSION IF NOT EXISTS sfcache;
CREATE TABLE term (id int PRIMARY KEY, name text);
CREATE TABLE holiday (id int PRIMARY KEY, term int);
INSERT INTO term VALUES (1, 'autumn'), (2, 'spring');
INSERT INTO holiday VALUES (1, 1);

SELECT sfcache.set_ttl('holiday', '1 second');
SELECT relid, ttl_seconds, excluded FROM sfcache.relation_settings ORDER BY relid::text;
EXPLAIN (COSTS OFF) SELECT name FROM term WHERE id = 1;
EXPLAIN (COSTS OFF) SELECT t.name FROM term t JOIN holiday h ON h.term = t.id;

SELECT t.name FROM term t JOIN holiday h ON h.term = t.id;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT t.name FROM term t JOIN holiday h ON h.term = t.id;
SELECT pg_sleep(1.2);
-- expired: led again
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT t.name FROM term t JOIN holiday h ON h.term = t.id;
SELECT expirations > 0 AS expired FROM sfcache.stats;

-- the session TTL applies too
SET sfcache.ttl = 1;
SELECT name FROM term WHERE id = 2;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT name FROM term WHERE id = 2;
SELECT pg_sleep(1.2);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT name FROM term WHERE id = 2;
RESET sfcache.ttl;

-- a relation's own TTL may also be longer than sfcache.ttl
SELECT sfcache.set_ttl('term', '1 hour');
EXPLAIN (COSTS OFF) SELECT name FROM term WHERE id = 1;
EXPLAIN (COSTS OFF) SELECT t.name FROM term t JOIN holiday h ON h.term = t.id;
-- and a prepared statement follows a change of TTL
PREPARE term_name(int) AS SELECT name FROM term WHERE id = $1;
EXPLAIN (COSTS OFF) EXECUTE term_name(1);
SELECT sfcache.set_ttl('term', '2 hours');
EXPLAIN (COSTS OFF) EXECUTE term_name(1);
DEALLOCATE term_name;
SELECT sfcache.reset_ttl('term');
SELECT sfcache.invalidate(1::regclass);

SELECT sfcache.reset_ttl('holiday');
EXPLAIN (COSTS OFF) SELECT t.name FROM term t JOIN holiday h ON h.term = t.id;
DROP TABLE term, holiday;
