-- Keys (cache_key.c, cache_key_memo.c): a statement seen before is
-- keyed from its memoized shape and its constants; statements that differ
-- only in a constant, a typmod, a null or a type get different keys, also
-- once the shape is memoized (the same query id, the same blanked tree).
CREATE EXTENSION IF NOT EXISTS sfcache;
SELECT sfcache.flush();
SELECT sfcache.reset();

CREATE TABLE pupil (id int PRIMARY KEY, name text, score numeric);
INSERT INTO pupil SELECT g, 'pupil number ' || g, g * 1.25 FROM generate_series(1, 20) g;

-- Ten constants through one shape: each its own key, each row its own.
SELECT name FROM pupil WHERE id = 1;
SELECT name FROM pupil WHERE id = 2;
SELECT name FROM pupil WHERE id = 3;
SELECT name FROM pupil WHERE id = 4;
SELECT name FROM pupil WHERE id = 1;
SELECT name FROM pupil WHERE id = 2;
SELECT name FROM pupil WHERE id = 3;
SELECT name FROM pupil WHERE id = 4;
SELECT hits, misses, entries FROM sfcache.stats;

-- A typmod: the same text shape, another length.
SELECT name::varchar(5) FROM pupil WHERE id = 7;
SELECT name::varchar(9) FROM pupil WHERE id = 7;
SELECT name::varchar(5) FROM pupil WHERE id = 7;
SELECT name::varchar(9) FROM pupil WHERE id = 7;
SELECT score::numeric(6,1) FROM pupil WHERE id = 7;
SELECT score::numeric(6,3) FROM pupil WHERE id = 7;
SELECT score::numeric(6,1) FROM pupil WHERE id = 7;
SELECT score::numeric(6,3) FROM pupil WHERE id = 7;

-- A null constant and a value whose datum is all zero bits.
SELECT coalesce(NULL::int, -1) AS c FROM pupil WHERE id = 1;
SELECT coalesce(0::int, -1) AS c FROM pupil WHERE id = 1;
SELECT coalesce(NULL::int, -1) AS c FROM pupil WHERE id = 1;
SELECT coalesce(0::int, -1) AS c FROM pupil WHERE id = 1;

-- Text constants of other lengths, and one constant in two places.
SELECT name || 'ab' AS n FROM pupil WHERE id = 2;
SELECT name || 'abc' AS n FROM pupil WHERE id = 2;
SELECT name || 'ab' AS n FROM pupil WHERE id = 2;
SELECT name || 'abc' AS n FROM pupil WHERE id = 2;
SELECT id FROM pupil WHERE id IN (3, 5) ORDER BY id;
SELECT id FROM pupil WHERE id IN (5, 3) ORDER BY id;
SELECT id FROM pupil WHERE id IN (3, 6) ORDER BY id;
SELECT id FROM pupil WHERE id IN (3, 6) ORDER BY id;

-- Sort order: the same constants, another tree.
SELECT id FROM pupil WHERE id < 4 ORDER BY id;
SELECT id FROM pupil WHERE id < 4 ORDER BY id DESC;
SELECT id FROM pupil WHERE id < 4 ORDER BY id;
SELECT id FROM pupil WHERE id < 4 ORDER BY id DESC;
-- Every variant above was a miss once, then a hit.
SELECT hits, misses, entries FROM sfcache.stats;

-- White space and EXPLAIN do not change a key: these hit.
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT name FROM pupil WHERE id = 1;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT   name   FROM pupil   WHERE id =   2;

DROP TABLE pupil;
