-- Index advice as a configuration search over the whole recorded workload:
-- merged candidates, marginal benefits, budgets.  Outputs are deterministic
-- (tables small enough for ANALYZE to read every row; no costs shown, only
-- comparisons and rounded ratios).
CREATE EXTENSION IF NOT EXISTS sfcache;
SET sfcache.cache = off;
SET max_parallel_workers_per_gather = 0;
SET sfcache.advice = on;
SET sfcache.advice_sample_rate = 1;

-- A small fixture: notifications with no index on user_id, posts with no
-- GIN index on tags.
CREATE SCHEMA srch;
SET search_path = srch, public;
CREATE TABLE srch.note (
	id bigserial PRIMARY KEY,
	user_id integer NOT NULL,
	status text NOT NULL,
	is_deleted boolean NOT NULL,
	created_at timestamptz NOT NULL
);
INSERT INTO srch.note (user_id, status, is_deleted, created_at)
SELECT i % 3000, (ARRAY['read', 'read', 'unread', 'archived'])[1 + (i / 3000) % 4], (i / 3000) % 9 = 3,
	timestamptz '2024-01-01 00:00+00' + i * interval '7 minutes'
FROM generate_series(1, 30000) i;
CREATE TABLE srch.post (id bigserial PRIMARY KEY, tags jsonb NOT NULL, title text NOT NULL);
INSERT INTO srch.post (tags, title)
SELECT jsonb_build_array(i % 400, 1000 + i % 7), 'post ' || i FROM generate_series(1, 20000) i;
ANALYZE srch.note, srch.post;
SELECT sfcache.advice_reset();

-- The workload: the unread badge and the dropdown of one user's
-- notifications (one index can serve both), and posts by tag.
SELECT count(*) FROM srch.note WHERE user_id = 7 AND status = 'unread' AND NOT is_deleted;
SELECT count(*) FROM srch.note WHERE user_id = 8 AND status = 'unread' AND NOT is_deleted;
SELECT count(*) FROM srch.note WHERE user_id = 9 AND status = 'unread' AND NOT is_deleted;
SELECT id, status FROM srch.note WHERE user_id = 7 AND NOT is_deleted ORDER BY created_at DESC LIMIT 3;
SELECT id, status FROM srch.note WHERE user_id = 8 AND NOT is_deleted ORDER BY created_at DESC LIMIT 3;
SELECT id, status FROM srch.note WHERE user_id = 9 AND NOT is_deleted ORDER BY created_at DESC LIMIT 3;
SELECT count(*) FROM srch.post WHERE tags @> '[12]';
SELECT count(*) FROM srch.post WHERE tags @> '[13]';
-- a primary key lookup: never indexed again
SELECT title FROM srch.post WHERE id = 42 AND title <> '';

-- Per statement (sfcache 0.2's advice, kept for comparison): one index for
-- each of the two notification statements, and the GIN index; names unique.
SET sfcache.advice_search = off;
SELECT tablename, index_ddl, cardinality(queryids) AS statements
FROM sfcache.index_advice ORDER BY tablename, index_ddl;
SELECT count(*) = count(DISTINCT index_name) AS unique_names FROM sfcache.index_advice;
CREATE TEMP TABLE per_statement AS SELECT * FROM sfcache.index_advice;
RESET sfcache.advice_search;

-- The search: the two notification statements get one index, which serves
-- both; the GIN index serves the posts.
SELECT tablename, index_ddl, cardinality(queryids) AS statements,
	marginal_benefit > 0 AS earns, cost_after < cost_before AS cheaper
FROM sfcache.index_advice ORDER BY tablename, index_ddl;
SELECT count(*) = count(DISTINCT index_name) AS unique_names FROM sfcache.index_advice;
CREATE TEMP TABLE searched AS SELECT * FROM sfcache.index_advice;

-- An index made worthless by another is not suggested: each per-statement
-- suggestion the search left out is for statements a chosen index serves.
SELECT p.tablename, p.index_ddl AS left_out,
	(SELECT bool_and(EXISTS (SELECT 1 FROM searched s WHERE q = ANY (s.queryids)))
	 FROM unnest(p.queryids) q) AS its_statements_served
FROM per_statement p
WHERE p.index_ddl NOT IN (SELECT index_ddl FROM searched)
ORDER BY 1, 2;

-- The marginal benefits add up to the configuration's saving.
SELECT sum(marginal_benefit) AS total_marginal FROM sfcache.index_advice \gset
SELECT statements, candidates > 0 AS has_candidates, plannings > 0 AS planned,
	plannings <= max_plannings + statements AS bounded, truncated, chosen,
	round((:total_marginal / (cost_before - cost_after))::numeric, 3) AS marginal_share
FROM sfcache.index_advice_work();

-- A budget that fits one index picks the one with the best benefit per byte
-- (the two tables' statements do not interact: marginal = on its own).
SELECT count(*) AS indexes,
	bool_and(index_name = (SELECT index_name FROM searched
		ORDER BY marginal_benefit / estimated_size DESC LIMIT 1)) AS best_per_byte
FROM sfcache.index_advice_search(max_indexes => 1);
-- A size budget: what the search spends it on, within it.
SELECT min(estimated_size) AS smallest FROM searched \gset
SELECT index_name, estimated_size <= :smallest AS within_budget
FROM sfcache.index_advice_search(max_size => :smallest) ORDER BY 1;
SELECT count(*) AS indexes FROM sfcache.index_advice_search(max_size => 0);
SELECT * FROM sfcache.index_advice_search(max_size => -1);

-- The bound on the work: a search that reaches it says so and keeps what
-- it had chosen.
SET sfcache.advice_max_plannings = 10;
SELECT count(*) <= 2 AS kept FROM sfcache.index_advice;
SELECT plannings <= max_plannings + statements AS bounded, truncated FROM sfcache.index_advice_work();
RESET sfcache.advice_max_plannings;

-- Writes are upkeep: an index on a table written far more often than read
-- is not worth it.
DO $$ BEGIN FOR i IN 1..3000 LOOP INSERT INTO srch.post (tags, title) VALUES ('[1]', 'w'); END LOOP; END $$;
SELECT writes FROM sfcache.table_activity WHERE tablename = 'post';
SELECT tablename, index_name, upkeep > 0 AS has_upkeep FROM sfcache.index_advice ORDER BY 1, 2;

-- INCLUDE columns only where they earn their bytes. A sum over many rows
-- of one post: the covering variant (post_id) INCLUDE (weight) WHERE
-- kind = 'up' reads only the index, but a plain btree index deduplicates
-- (30 posts: a posting list each) and one with an INCLUDE column cannot, so
-- the covering variant is over twice the bytes for the heap fetches it
-- saves. The greedy pass takes the plain one, then adds the covering one
-- (its extra saving clears the bar), and the removal pass drops the plain
-- one it made worthless: before the narrowing pass (and a size estimate that
-- knew of deduplication) the covering index was suggested. The narrowing
-- pass replaces it by the plain one: in the configuration without it, the
-- plain one saves more per byte.
SELECT sfcache.advice_reset();
CREATE TABLE srch.vote (id bigserial PRIMARY KEY, post_id integer NOT NULL,
	kind text NOT NULL, weight integer NOT NULL, body text NOT NULL);
INSERT INTO srch.vote (post_id, kind, weight, body)
SELECT i % 30, CASE WHEN i % 3 = 0 THEN 'down' ELSE 'up' END, i % 5, repeat('x', 100)
FROM generate_series(1, 30000) i;
VACUUM ANALYZE srch.vote;
SELECT sum(weight) FROM srch.vote WHERE post_id = 7 AND kind = 'up';
SELECT sum(weight) FROM srch.vote WHERE post_id = 8 AND kind = 'up';
SELECT tablename, index_ddl, benefit > 0.9 AS index_only FROM sfcache.index_advice;
SELECT sfcache.hypothetical_index('CREATE INDEX v_plain ON srch.vote (post_id) WHERE kind = ''up''') AS plain,
	sfcache.hypothetical_index('CREATE INDEX v_covering ON srch.vote (post_id) INCLUDE (weight) WHERE kind = ''up''') AS covering \gset
SELECT (SELECT estimated_size FROM sfcache.hypothetical_indexes() WHERE index_name = :'covering') >
	2 * (SELECT estimated_size FROM sfcache.hypothetical_indexes() WHERE index_name = :'plain') AS covering_over_twice;
SELECT sfcache.hypothetical_reset();
SELECT indexes_used FROM sfcache.whatif(
	'SELECT sum(weight) FROM srch.vote WHERE post_id = 7 AND kind = ''up''',
	ARRAY['CREATE INDEX v_incl ON srch.vote (post_id) INCLUDE (weight) WHERE kind = ''up''']);
SELECT sfcache.hypothetical_index('CREATE INDEX v_incl ON srch.vote (post_id) INCLUDE (weight) WHERE kind = ''up''');
EXPLAIN (COSTS OFF) SELECT sum(weight) FROM srch.vote WHERE post_id = 7 AND kind = 'up';
SELECT sfcache.hypothetical_reset();
SELECT sfcache.hypothetical_index('CREATE INDEX ON srch.vote USING gin (body) INCLUDE (weight)');

-- Where the width costs nothing it stays: a range of distinct ballots in
-- no order of the heap (each row a random heap fetch without INCLUDE);
-- nothing to deduplicate, and an int4 INCLUDE column fills the padding of
-- an int4 key, so the covering variant is no bigger.
SELECT sfcache.advice_reset();
CREATE TABLE srch.ballot (id bigserial PRIMARY KEY, serial integer NOT NULL,
	weight integer NOT NULL, body text NOT NULL);
INSERT INTO srch.ballot (serial, weight, body)
SELECT (i * 7919) % 30000, i % 5, repeat('x', 100) FROM generate_series(1, 30000) i;
VACUUM ANALYZE srch.ballot;
SELECT sum(weight) FROM srch.ballot WHERE serial BETWEEN 1000 AND 1300;
SELECT sum(weight) FROM srch.ballot WHERE serial BETWEEN 2000 AND 2300;
SELECT tablename, index_ddl FROM sfcache.index_advice;
SELECT sfcache.hypothetical_index('CREATE INDEX b_plain ON srch.ballot (serial)') AS plain,
	sfcache.hypothetical_index('CREATE INDEX b_covering ON srch.ballot (serial) INCLUDE (weight)') AS covering \gset
SELECT (SELECT estimated_size FROM sfcache.hypothetical_indexes() WHERE index_name = :'covering') =
	(SELECT estimated_size FROM sfcache.hypothetical_indexes() WHERE index_name = :'plain') AS same_size;
SELECT sfcache.hypothetical_reset();

-- The latest rows of a table, read whole and sorted for a LIMIT: an index
-- on the ORDER BY keys (nothing to filter, so no share of the table to
-- guard against).
SELECT sfcache.advice_reset();
CREATE TABLE srch.event (id bigserial PRIMARY KEY, created_at timestamptz NOT NULL, payload text NOT NULL);
INSERT INTO srch.event (created_at, payload)
SELECT timestamptz '2024-01-01 00:00+00' + ((i * 7919) % 30000) * interval '1 minute', 'event ' || i
FROM generate_series(1, 30000) i;
ANALYZE srch.event;
SELECT id FROM srch.event ORDER BY created_at DESC LIMIT 3;
SELECT id FROM srch.event ORDER BY created_at DESC LIMIT 3;
SELECT tablename, expression, qual_role FROM sfcache.advice_quals WHERE tablename = 'event';
SELECT tablename, index_ddl, cardinality(queryids) AS statements FROM sfcache.index_advice;

SELECT sfcache.advice_reset();
RESET search_path;
DROP SCHEMA srch CASCADE;
