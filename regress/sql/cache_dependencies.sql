-- Every object a result depends on invalidates it when it changes:
-- domains (constraints), types (enum labels), text search configurations
-- and dictionaries, operators, collations; functions and relations too.
CREATE EXTENSION IF NOT EXISTS sfcache;
CREATE DOMAIN score_d AS int;
CREATE TABLE result (id int PRIMARY KEY, score int, body text);
INSERT INTO result VALUES (1, 50, 'the cats are running'), (2, -5, 'a dog runs');
CREATE VIEW result_scores AS SELECT id, score::score_d AS score FROM result;

-- a domain gets a constraint the cached rows violate
SELECT id, score FROM result_scores ORDER BY id;
SELECT id, score FROM result_scores ORDER BY id;
ALTER DOMAIN score_d ADD CONSTRAINT non_negative CHECK (VALUE >= 0) NOT VALID;
SELECT id, score FROM result_scores ORDER BY id;
ALTER DOMAIN score_d DROP CONSTRAINT non_negative;
SELECT id, score FROM result_scores ORDER BY id;
SELECT id, score FROM result_scores ORDER BY id;
UPDATE result SET score = NULL WHERE id = 2;
SELECT id, score FROM result_scores ORDER BY id;
SELECT id, score FROM result_scores ORDER BY id;
ALTER DOMAIN score_d SET NOT NULL;
SELECT id, score FROM result_scores ORDER BY id;
ALTER DOMAIN score_d DROP NOT NULL;

-- a text search configuration gets another dictionary
CREATE TEXT SEARCH CONFIGURATION sfc_ts (COPY = simple);
SELECT id, to_tsvector('sfc_ts', body)::text FROM result ORDER BY id;
SELECT id, to_tsvector('sfc_ts', body)::text FROM result ORDER BY id;
ALTER TEXT SEARCH CONFIGURATION sfc_ts ALTER MAPPING FOR asciiword WITH english_stem;
SELECT id, to_tsvector('sfc_ts', body)::text FROM result ORDER BY id;
-- ... and a dictionary changes its options
CREATE TEXT SEARCH DICTIONARY sfc_dict (TEMPLATE = simple, STOPWORDS = english);
ALTER TEXT SEARCH CONFIGURATION sfc_ts ALTER MAPPING FOR asciiword WITH sfc_dict;
SELECT id, to_tsvector('sfc_ts', body)::text FROM result ORDER BY id;
SELECT id, to_tsvector('sfc_ts', body)::text FROM result ORDER BY id;
ALTER TEXT SEARCH DICTIONARY sfc_dict (ACCEPT = false);
SELECT id, to_tsvector('sfc_ts', body)::text FROM result ORDER BY id;

-- an enum label renamed: the stored value is an OID, sent as its new label
CREATE TYPE mood AS ENUM ('sad', 'happy');
CREATE TABLE feeling (id int, m mood);
INSERT INTO feeling VALUES (1, 'happy');
SELECT m, m::text AS label FROM feeling;
SELECT m, m::text AS label FROM feeling;
ALTER TYPE mood RENAME VALUE 'happy' TO 'glad';
SELECT m, m::text AS label FROM feeling;

-- a change inside a transaction is an own write for every statement
SELECT id, score FROM result_scores ORDER BY id;
BEGIN;
ALTER DOMAIN score_d ADD CONSTRAINT small CHECK (VALUE < 1000);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT id, score FROM result_scores ORDER BY id;
ROLLBACK;

-- creating an unrelated type or table drops nothing
SELECT id, score FROM result_scores ORDER BY id;
CREATE TYPE unrelated AS (a int);
CREATE TABLE unrelated_table (a int);
DROP TABLE unrelated_table;
DROP TYPE unrelated;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT id, score FROM result_scores ORDER BY id;

DROP VIEW result_scores;
DROP TABLE result, feeling;
DROP DOMAIN score_d;
DROP TYPE mood;
DROP TEXT SEARCH CONFIGURATION sfc_ts;
DROP TEXT SEARCH DICTIONARY sfc_dict;

-- a composite type gets another attribute: its cached values had the old shape
CREATE TYPE pair AS (a int, b int);
SELECT ROW(1, 2)::pair AS p FROM (VALUES (1)) v(x);
SELECT ROW(1, 2)::pair AS p FROM (VALUES (1)) v(x);
ALTER TYPE pair ADD ATTRIBUTE c int;
SELECT ROW(1, 2)::pair AS p FROM (VALUES (1)) v(x);
DROP TYPE pair;
