-- Bad input to every SQL-callable function and setting of the extension:
-- a clear error (never a crash, never silently ignored).
CREATE EXTENSION IF NOT EXISTS sfcache;
CREATE TABLE bi_t (id int PRIMARY KEY, doc text);
CREATE SEQUENCE bi_seq;
CREATE TYPE bi_composite AS (a int);
CREATE VIEW bi_v AS SELECT id FROM bi_t;
CREATE TABLE bi_dropped (id int);
SELECT 'bi_dropped'::regclass::oid AS dropped_oid \gset
DROP TABLE bi_dropped;
-- Runs a statement and shows its error with numbers left out (OIDs vary).
CREATE FUNCTION bi_try(stmt text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	state text; msg text; detail text; hint text;
BEGIN
	EXECUTE stmt;
	RAISE NOTICE 'no error';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
		detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
	RAISE NOTICE '% %; detail: %; hint: %', state,
		regexp_replace(msg, '[0-9]+', 'N', 'g'), detail, hint;
END
$$;

-- NULL arguments
SELECT sfcache.invalidate(NULL);
SELECT sfcache.set_ttl(NULL, '1 minute');
SELECT sfcache.set_ttl('bi_t', NULL);
SELECT sfcache.reset_ttl(NULL);
SELECT sfcache.exclude(NULL);
SELECT sfcache.include(NULL);
SELECT * FROM sfcache.whatif(NULL, ARRAY[]::text[]);
SELECT * FROM sfcache.whatif('SELECT 1', NULL);
SELECT * FROM sfcache.whatif('SELECT 1', ARRAY[]::text[], NULL);
SELECT * FROM sfcache.whatif('SELECT * FROM bi_t', ARRAY[NULL]::text[]);
SELECT sfcache.hypothetical_index(NULL);
SELECT sfcache.hypothetical_index('CREATE INDEX ON bi_t (doc)', NULL);
-- strict statistics helpers return NULL for NULL
SELECT sfcache_internal.statement_keys(NULL, NULL, NULL);

-- Wrong relation kinds: an index, a sequence, a composite type, a dropped
-- relation's OID
SELECT sfcache.invalidate('bi_t_pkey');
SELECT sfcache.invalidate('bi_seq');
SELECT sfcache.invalidate('bi_composite');
SELECT bi_try(format('SELECT sfcache.invalidate(%s)', :dropped_oid));
SELECT sfcache.set_ttl('bi_t_pkey', '1 minute');
SELECT sfcache.reset_ttl('bi_seq');
SELECT sfcache.exclude('bi_composite');
SELECT bi_try(format('SELECT sfcache.include(%s)', :dropped_oid));
SELECT bi_try(format('SELECT sfcache.set_ttl(%s, ''1 minute'')', :dropped_oid));
SELECT sfcache.hypothetical_index('CREATE INDEX ON bi_seq (last_value)');
SELECT sfcache.hypothetical_index('CREATE INDEX ON bi_v (id)');

-- System relations: catalogs, information_schema, TOAST tables
SELECT sfcache.set_ttl('pg_class', '1 minute');
SELECT sfcache.exclude('pg_catalog.pg_proc');
SELECT sfcache.include('information_schema.sql_features');
SELECT sfcache.reset_ttl(1259);
DO $$
BEGIN
	PERFORM sfcache.exclude(reltoastrelid::regclass) FROM pg_class WHERE oid = 'bi_t'::regclass;
EXCEPTION WHEN feature_not_supported THEN
	RAISE NOTICE 'TOAST table refused: %', SQLERRM ~ '^cannot change cache settings of system relation pg_toast\.';
END
$$;
SELECT count(*) AS system_settings FROM sfcache.relation_settings WHERE relid::oid < 16384;

-- TTLs: negative, zero, too large, infinite
SELECT sfcache.set_ttl('bi_t', '-1s');
SELECT sfcache.set_ttl('bi_t', '0');
SELECT sfcache.set_ttl('bi_t', '1000 years');
SELECT sfcache.set_ttl('bi_t', 'infinity');
SELECT sfcache.set_ttl('bi_t', '1 year');
SELECT relid, ttl_seconds FROM sfcache.relation_settings WHERE relid = 'bi_t'::regclass;
SELECT sfcache.reset_ttl('bi_t');

-- Settings: each rejects what it cannot take, saying what it can
SET sfcache.cache = 'maybe';
SET sfcache.ttl = -1;
SET sfcache.ttl = 0;
SET sfcache.wait_timeout = '-1s';
SET sfcache.max_entry_size = 0;
SET sfcache.memory = '1GB';
SET sfcache.max_entries = 100;
SET sfcache.max_statements = 100;
SET sfcache.advice = 'perhaps';
SET sfcache.advice_sample_rate = 1.5;
SET sfcache.advice_sample_rate = -0.1;
SET sfcache.advice_min_benefit = 2;
SET sfcache.advice_max = 1000;
SET sfcache.test_hold_leader_lock = -1;
SET sfcache.test_hold_follower_lock = -1;
SET sfcache.test_hold_commit_lock = -1;
-- sfcache.immutable_functions: a comma-separated list of name or
-- schema.name
SET sfcache.immutable_functions = '"unterminated';
SET sfcache.immutable_functions = 'now,,clock_timestamp';
SET sfcache.immutable_functions = 'now,';
SET sfcache.immutable_functions = ',now';
SET sfcache.immutable_functions = 'a.b.c';
SET sfcache.immutable_functions = '.now';
SET sfcache.immutable_functions = 'pg_catalog.';
-- a name no function has is kept, with a warning ("Mixed Case"; now is in
-- pg_catalog, not public); known names say nothing
SET sfcache.immutable_functions = 'now, pg_catalog.clock_timestamp, "Mixed Case"';
SHOW sfcache.immutable_functions;
SET sfcache.immutable_functions = 'public.now';
SET sfcache.immutable_functions = 'now, pg_catalog.clock_timestamp';
SET sfcache.immutable_functions = '';
RESET sfcache.immutable_functions;

-- whatif() and hypothetical_index() need SELECT on what they read
CREATE ROLE bi_reader;
CREATE TABLE bi_secret (id int, v int);
CREATE VIEW bi_secret_view AS SELECT id FROM bi_secret;
CREATE ROLE bi_view_owner;
CREATE VIEW bi_secret_view2 AS SELECT id FROM bi_secret;
ALTER VIEW bi_secret_view2 OWNER TO bi_view_owner;
GRANT SELECT ON bi_t, bi_secret_view, bi_secret_view2 TO bi_reader;
SET ROLE bi_reader;
SELECT * FROM sfcache.whatif('SELECT * FROM bi_secret WHERE v = 1', ARRAY[]::text[]);
SELECT * FROM sfcache.whatif('SELECT * FROM bi_t WHERE id IN (SELECT id FROM bi_secret)', ARRAY[]::text[]);
SELECT * FROM sfcache.whatif('WITH s AS (SELECT v FROM bi_secret) SELECT * FROM s', ARRAY[]::text[]);
-- a view read with its owner's privileges: allowed if its owner may read
SELECT cost_before > 0 AS estimated FROM sfcache.whatif('SELECT * FROM bi_secret_view', ARRAY[]::text[]);
SELECT * FROM sfcache.whatif('SELECT * FROM bi_secret_view2', ARRAY[]::text[]);
SELECT * FROM sfcache.whatif('SELECT * FROM bi_t', ARRAY['CREATE INDEX ON bi_secret (v)']);
SELECT sfcache.hypothetical_index('CREATE INDEX ON bi_secret (v)');
SELECT cost_before > 0 AS estimated FROM sfcache.whatif('SELECT * FROM bi_t WHERE doc = $$x$$', ARRAY['CREATE INDEX ON bi_t (doc)']);
SELECT sfcache.hypothetical_index('CREATE INDEX bi_t_doc_hypo ON bi_t (doc)');
SELECT sfcache.hypothetical_reset();
RESET ROLE;

DROP VIEW bi_secret_view, bi_secret_view2, bi_v;
DROP TABLE bi_secret, bi_t;
DROP ROLE bi_reader;
DROP ROLE bi_view_owner;
DROP FUNCTION bi_try(text);
DROP SEQUENCE bi_seq;
DROP TYPE bi_composite;
