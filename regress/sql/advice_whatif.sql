-- Hypothetical indexes: sfcache.whatif(), and plain EXPLAIN in a session.
CREATE EXTENSION IF NOT EXISTS sfcache;
-- The result cache would turn repeated statements into hits; these tests
-- count executions, so they run without it (advice_cache.sql runs with it).
SET sfcache.cache = off;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE wi_course (
	id bigserial PRIMARY KEY,
	org_id integer NOT NULL,
	is_deleted boolean NOT NULL,
	starts_at timestamptz NOT NULL,
	data jsonb NOT NULL,
	tag_ids integer[] NOT NULL
);
INSERT INTO wi_course (org_id, is_deleted, starts_at, data, tag_ids)
SELECT i % 100, i % 10 = 0, timestamptz '2024-01-01 00:00+00' + i * interval '1 hour',
	jsonb_build_object('scope', jsonb_build_array(i % 300), 'level', i % 4),
	ARRAY[i % 500, (i * 3) % 500]
FROM generate_series(1, 20000) i;
ANALYZE wi_course;

-- btree, several columns, partial
SELECT cost_after < cost_before AS cheaper, indexes_used
FROM sfcache.whatif($$SELECT id FROM wi_course WHERE org_id = 5 AND NOT is_deleted AND starts_at > '2024-06-01'$$,
	ARRAY['CREATE INDEX wi_org_starts ON wi_course (org_id, starts_at) WHERE NOT is_deleted']);
-- GIN jsonb_path_ops, on an expression
SELECT cost_after < cost_before AS cheaper, indexes_used
FROM sfcache.whatif($$SELECT id FROM wi_course WHERE data -> 'scope' @> '[12]'$$,
	ARRAY['CREATE INDEX wi_scope ON wi_course USING gin ((data -> ''scope'') jsonb_path_ops)']);
-- jsonb_path_ops cannot serve ?, jsonb_ops can
SELECT cost_after < cost_before AS cheaper, indexes_used
FROM sfcache.whatif($$SELECT id FROM wi_course WHERE data ? 'missing'$$,
	ARRAY['CREATE INDEX wi_path ON wi_course USING gin (data jsonb_path_ops)',
		  'CREATE INDEX wi_ops ON wi_course USING gin (data jsonb_ops)']);
-- GIN on an array
SELECT cost_after < cost_before AS cheaper, indexes_used
FROM sfcache.whatif($$SELECT id FROM wi_course WHERE tag_ids && ARRAY[7]$$,
	ARRAY['CREATE INDEX wi_tags ON wi_course USING gin (tag_ids)']);
-- an index of no use is not used, and costs nothing
SELECT cost_after = cost_before AS same, indexes_used
FROM sfcache.whatif('SELECT count(*) FROM wi_course', ARRAY['CREATE INDEX ON wi_course (org_id)']);
-- names resolve with the caller's search_path
CREATE SCHEMA wi_app;
CREATE TABLE wi_app.wi_item (id int, code text);
INSERT INTO wi_app.wi_item SELECT i, 'c' || i FROM generate_series(1, 10000) i;
ANALYZE wi_app.wi_item;
SET search_path = wi_app, public;
SELECT cost_after < cost_before AS cheaper, indexes_used
FROM sfcache.whatif($$SELECT id FROM wi_item WHERE code = 'c42'$$,
	ARRAY['CREATE INDEX wi_code ON wi_item (code)']);
RESET search_path;

-- bad arguments: clear errors
SELECT * FROM sfcache.whatif('UPDATE wi_course SET org_id = 1', ARRAY['CREATE INDEX ON wi_course (org_id)']);
SELECT * FROM sfcache.whatif('SELECT 1; SELECT 2', ARRAY['CREATE INDEX ON wi_course (org_id)']);
SELECT * FROM sfcache.whatif('SELECT id FROM wi_course', ARRAY['CREATE INDEX ON wi_course (org_id']);
SELECT * FROM sfcache.whatif('SELECT id FROM wi_course', ARRAY['DROP TABLE wi_course']);
SELECT * FROM sfcache.whatif('SELECT id FROM wi_course', ARRAY['CREATE INDEX ON no_such_table (id)']);
SELECT * FROM sfcache.whatif('SELECT id FROM wi_course', ARRAY['CREATE INDEX ON wi_course (no_such_column)']);
SELECT * FROM sfcache.whatif('SELECT id FROM wi_course', ARRAY['CREATE INDEX ON wi_course USING hash (org_id)']);
SELECT * FROM sfcache.whatif('SELECT id FROM wi_course', ARRAY[NULL]);
SELECT * FROM sfcache.whatif('SELECT id FROM no_such_table', ARRAY['CREATE INDEX ON wi_course (org_id)']);

-- A session's hypothetical index shows in plain EXPLAIN only.
SELECT sfcache.hypothetical_index('CREATE INDEX wi_hypo_org ON wi_course (org_id)');
SELECT index_name, relid, access_method, estimated_size > 0 AS has_size
FROM sfcache.hypothetical_indexes();
EXPLAIN (COSTS OFF) SELECT id FROM wi_course WHERE org_id = 5;
-- executed statements never see it
SELECT count(*) FROM wi_course WHERE org_id = 5;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT id FROM wi_course WHERE org_id = 5;
SELECT sfcache.hypothetical_reset();
EXPLAIN (COSTS OFF) SELECT id FROM wi_course WHERE org_id = 5;

