-- Partial indexes in the configuration search: a candidate that extends
-- an existing index (a ForeignKey's) also comes as the new partial index an
-- expert would write, when every statement it serves carries the same
-- constant restriction (Django's filter(is_archived=False), SQLAlchemy's
-- is_archived == false()); a key that is mostly NULL (a sparse JSON field,
-- an optional date) comes as WHERE key IS NOT NULL, which every strict
-- comparison on it implies.  The predicate is always one the planner can
-- prove from the statements' quals (predicate_implied_by), and the share of
-- the table it holds is measured on a sample, so the search weighs the
-- partial index's true bytes.  Outputs are deterministic (ANALYZE and the
-- sample read every row of these tables).
CREATE EXTENSION IF NOT EXISTS sfcache;
SET sfcache.cache = off;
SET max_parallel_workers_per_gather = 0;
SET sfcache.advice = on;
SET sfcache.advice_sample_rate = 1;

-- A Django 3.2 tracker: every task carries its tenant (the ForeignKey's
-- index "part_task_tenant_id_1c5d8e90"), 5% are archived, 40% have no due
-- date, 20% a "customer" custom field.
CREATE TABLE part_task ("id" serial NOT NULL PRIMARY KEY, "status" varchar(16) NOT NULL,
	"due_date" date NULL, "is_archived" boolean NOT NULL, "custom" jsonb NOT NULL,
	"tenant_id" integer NOT NULL);
CREATE INDEX "part_task_tenant_id_1c5d8e90" ON "part_task" ("tenant_id");
INSERT INTO part_task (status, due_date, is_archived, custom, tenant_id)
SELECT CASE WHEN i % 9 < 5 THEN 'done' ELSE 'todo' END,
	CASE WHEN i % 5 < 3 THEN date '2026-11-02' + ((i * 7) % 120 - 60) END,
	i % 20 = 0,
	CASE WHEN i % 5 = 0 THEN jsonb_build_object('customer', 'customer ' || (i % 40)) ELSE '{}' END,
	1 + (i / 3) % 100
FROM generate_series(1, 30000) i;
VACUUM ANALYZE part_task;

CREATE FUNCTION pg_temp.advice() RETURNS TABLE (index_ddl text, replaces name)
LANGUAGE sql AS $$
	SELECT index_ddl, replaces FROM sfcache.index_advice ORDER BY index_ddl
$$;

-- Django: Task.objects.filter(tenant_id=t, due_date__lt=date(2026, 11, 2),
-- is_archived=False).count(), for a few tenants.
SELECT sfcache.advice_reset();
SELECT COUNT(*) AS "__count" FROM "part_task" WHERE ("part_task"."due_date" < '2026-11-02'::date AND NOT "part_task"."is_archived" AND "part_task"."tenant_id" = 7);
SELECT COUNT(*) AS "__count" FROM "part_task" WHERE ("part_task"."due_date" < '2026-11-02'::date AND NOT "part_task"."is_archived" AND "part_task"."tenant_id" = 8);
SELECT COUNT(*) AS "__count" FROM "part_task" WHERE ("part_task"."due_date" < '2026-11-02'::date AND NOT "part_task"."is_archived" AND "part_task"."tenant_id" = 9);
-- Per statement (sfcache.advice_search = off): the foreign key's index
-- extended, as before.
SET sfcache.advice_search = off;
SELECT * FROM pg_temp.advice();
RESET sfcache.advice_search;
-- The search: a new partial index, beside the foreign key's, not replacing it.
SELECT * FROM pg_temp.advice();

-- SQLAlchemy: select(func.count()).select_from(Task).where(Task.tenant_id
-- == t, Task.is_archived == false(), Task.due_date < '2026-11-02'): the same.
SELECT sfcache.advice_reset();
SELECT count(*) AS count_1 
FROM part_task 
WHERE part_task.tenant_id = 7 AND part_task.is_archived = false AND part_task.due_date < '2026-11-02' \g /dev/null
SELECT count(*) AS count_1 
FROM part_task 
WHERE part_task.tenant_id = 8 AND part_task.is_archived = false AND part_task.due_date < '2026-11-02' \g /dev/null
SELECT * FROM pg_temp.advice();

-- One statement without the restriction (Django: Task.objects.filter(
-- tenant_id=t, due_date__lt=...), archived tasks included): no index the
-- search suggests is restricted to the tasks it would miss.  Every index
-- whose predicate tests is_archived serves only statements that test it,
-- and the unrestricted statement has an index of its own.
SELECT COUNT(*) AS "__count" FROM "part_task" WHERE ("part_task"."due_date" < '2026-11-02'::date AND "part_task"."tenant_id" = 7);
SELECT COUNT(*) AS "__count" FROM "part_task" WHERE ("part_task"."due_date" < '2026-11-02'::date AND "part_task"."tenant_id" = 8);
SELECT * FROM pg_temp.advice();
SELECT array_agg(DISTINCT q) AS restricted FROM sfcache.advice_quals, unnest(queryids) q
WHERE expression = 'is_archived' \gset
SELECT index_name, index_ddl LIKE '%WHERE%is_archived%' AS restricted,
	queryids <@ :'restricted'::bigint[] AS serves_only_restricted
FROM sfcache.index_advice ORDER BY 1;

-- A sparse key: Django's Task.objects.filter(tenant_id=t,
-- custom__customer='customer 5'): 20% of the rows have the field, and the
-- strict = on it implies (custom -> 'customer') IS NOT NULL.  The partial
-- index holds a fifth of the rows, and the search knows it (the planner's
-- own estimate of IS NOT NULL on an expression without statistics is 99.5%).
SELECT sfcache.advice_reset();
SELECT "part_task"."id" FROM "part_task" WHERE (("part_task"."custom" -> 'customer') = '"customer 5"' AND "part_task"."tenant_id" = 7) \g /dev/null
SELECT "part_task"."id" FROM "part_task" WHERE (("part_task"."custom" -> 'customer') = '"customer 6"' AND "part_task"."tenant_id" = 8) \g /dev/null
SELECT * FROM pg_temp.advice();
SELECT estimated_size AS partial_size FROM sfcache.index_advice \gset
SELECT sfcache.hypothetical_index('CREATE INDEX t_plain ON part_task (tenant_id, (custom -> ''customer''))') AS plain \gset
SELECT round(:partial_size::numeric / estimated_size, 1) AS partial_over_plain
FROM sfcache.hypothetical_indexes() WHERE index_name = :'plain';
SELECT sfcache.hypothetical_reset();
-- Its real size, built: the estimate's share is the measured one.
CREATE INDEX t_real_partial ON part_task (tenant_id, (custom -> 'customer')) WHERE (custom -> 'customer') IS NOT NULL;
CREATE INDEX t_real_plain ON part_task (tenant_id, (custom -> 'customer'));
SELECT round(pg_relation_size('t_real_partial')::numeric / pg_relation_size('t_real_plain'), 1) AS real_partial_over_plain;
DROP INDEX t_real_partial, t_real_plain;

-- The planner uses that partial index only where the statement implies its
-- predicate: the what-if planner says so for both.
SELECT indexes_used FROM sfcache.whatif(
	$$SELECT "part_task"."id" FROM "part_task" WHERE (("part_task"."custom" -> 'customer') = '"customer 5"' AND "part_task"."tenant_id" = 7)$$,
	ARRAY['CREATE INDEX t_sparse ON part_task (tenant_id, (custom -> ''customer'')) WHERE (custom -> ''customer'') IS NOT NULL']);
SELECT indexes_used FROM sfcache.whatif(
	$$SELECT "part_task"."id" FROM "part_task" WHERE ("part_task"."tenant_id" = 7 AND NOT ("part_task"."custom" ? 'customer'))$$,
	ARRAY['CREATE INDEX t_sparse ON part_task (tenant_id, (custom -> ''customer'')) WHERE (custom -> ''customer'') IS NOT NULL']);

-- A key that is rarely NULL gets no IS NOT NULL variant (it would hold
-- nearly every row): a NOT NULL column, and an expression of one.
SELECT sfcache.advice_reset();
SELECT "part_task"."id" FROM "part_task" WHERE (UPPER("part_task"."status"::text) = UPPER('Todo') AND "part_task"."tenant_id" = 7) \g /dev/null
SELECT "part_task"."id" FROM "part_task" WHERE (UPPER("part_task"."status"::text) = UPPER('Todo') AND "part_task"."tenant_id" = 8) \g /dev/null
SELECT * FROM pg_temp.advice();

-- Narrowed to the rows that have the field: Django's
-- Task.objects.filter(custom__customer='customer 5') across tenants.  The
-- greedy pass takes the partial index, then the covering form (INCLUDE
-- (id, custom): an index-only scan) for what that adds; the removal pass
-- drops the partial one, and the narrowing pass takes the covering one
-- back to the partial one (fewer columns, and IS NOT NULL: a fifth of the
-- bytes), not to the plain index (before, the plain one: 5x the bytes).
SELECT sfcache.advice_reset();
SELECT "part_task"."id" FROM "part_task" WHERE (("part_task"."custom" -> 'customer') = '"customer 5"') \g /dev/null
SELECT "part_task"."id" FROM "part_task" WHERE (("part_task"."custom" -> 'customer') = '"customer 6"') \g /dev/null
SELECT index_ddl, estimated_size < 300000 AS a_fifth FROM sfcache.index_advice;

-- A LIMIT's ORDER BY in mixed directions: Django's
-- Task.objects.filter(tenant_id=t, is_archived=False, status__in=['todo',
-- 'doing']).order_by('due_date', '-id')[:20].  The ORDER BY keys go into
-- an index in the statement's directions (id DESC: no scan direction
-- gives due_date ASC, id DESC otherwise).  The search also weighs the form
-- without the IN list before them (after it the index returns each
-- status's rows apart, unordered): here a tenant's 300 rows sort cheaply,
-- and the form with status, read index-only, costs less.
SELECT sfcache.advice_reset();
SELECT "part_task"."id", "part_task"."status" FROM "part_task" WHERE (NOT "part_task"."is_archived" AND "part_task"."status" IN ('todo', 'doing') AND "part_task"."tenant_id" = 7) ORDER BY "part_task"."due_date" ASC, "part_task"."id" DESC LIMIT 20 \g /dev/null
SELECT "part_task"."id", "part_task"."status" FROM "part_task" WHERE (NOT "part_task"."is_archived" AND "part_task"."status" IN ('todo', 'doing') AND "part_task"."tenant_id" = 8) ORDER BY "part_task"."due_date" ASC, "part_task"."id" DESC LIMIT 20 \g /dev/null
SELECT * FROM pg_temp.advice();
SELECT sfcache.hypothetical_index(index_ddl) FROM sfcache.index_advice \gset
EXPLAIN (COSTS OFF) SELECT "part_task"."id", "part_task"."status" FROM "part_task" WHERE (NOT "part_task"."is_archived" AND "part_task"."status" IN ('todo', 'doing') AND "part_task"."tenant_id" = 7) ORDER BY "part_task"."due_date" ASC, "part_task"."id" DESC LIMIT 20;
SELECT sfcache.hypothetical_reset();

SELECT sfcache.advice_reset();
DROP TABLE part_task;
