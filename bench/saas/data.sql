-- bench/saas/data.sql
--
-- Owns: the deterministic data of the multi-tenant benchmark (hashes, no
-- random()), psql variable scale (default 1). Per scale: 200 tenants whose
-- sizes follow a power law (tenant 1, the largest customer, has 7% of all
-- tasks; most have a few hundred), 50 members and 10 projects per tenant,
-- 400,000 tasks: statuses todo 30%, doing 10%, review 5%, done 55%; 5%
-- archived; a due date on 60%; labels (urgent 3%, bug 10%), a custom
-- field "customer" on 20%. "Today" is 2026-11-02.

\if :{?scale}
\else
\set scale 1
\endif
CREATE FUNCTION pg_temp.u(i bigint, salt int) RETURNS float8 LANGUAGE sql IMMUTABLE
AS $$ SELECT (hashint8(i * 7919 + salt) & 2147483647)::float8 / 2147483647 $$;

INSERT INTO tracker_tenant (id, name, plan, created_at)
SELECT i, 'tenant ' || i, (ARRAY['free', 'team', 'business'])[1 + i % 3], timestamptz '2023-01-01 00:00+00' + i * interval '1 day'
FROM generate_series(1, 200 * :scale) i;
INSERT INTO tracker_member (id, email, is_active, tenant_id)
SELECT i, 'member' || i || '@example.com', i % 20 <> 0, 1 + (i - 1) / 50
FROM generate_series(1, 200 * 50 * :scale) i;
INSERT INTO tracker_project (id, name, is_archived, tenant_id)
SELECT i, 'project ' || i, i % 10 = 9, 1 + (i - 1) / 10
FROM generate_series(1, 200 * 10 * :scale) i;
SELECT setval('tracker_tenant_id_seq', 200 * :scale), setval('tracker_member_id_seq', 10000 * :scale),
	setval('tracker_project_id_seq', 2000 * :scale);

INSERT INTO tracker_task (id, title, status, priority, due_date, created_at, updated_at, is_archived,
	labels, custom, tenant_id, project_id, assignee_id)
SELECT i,
	CASE WHEN i % 25 = 0 THEN 'Fix ' ELSE 'Task ' END || i,
	CASE WHEN s < 30 THEN 'todo' WHEN s < 40 THEN 'doing' WHEN s < 45 THEN 'review' ELSE 'done' END,
	i % 5,
	CASE WHEN i % 5 < 3 THEN date '2026-11-02' + ((i % 120) - 60) END,
	timestamptz '2026-11-02 09:00+00' - (400000 * :scale - i) * interval '1 minute',
	timestamptz '2026-11-02 09:00+00' - ((hashint8(i) & 2147483647) % 525600) * interval '1 minute',
	i % 20 = 0,
	CASE WHEN i % 33 = 0 THEN '["urgent", "bug"]' WHEN i % 10 = 0 THEN '["bug"]' ELSE '[]' END::jsonb,
	CASE WHEN i % 5 = 0 THEN jsonb_build_object('customer', 'customer ' || (i % 40)) ELSE '{}' END,
	t, (t - 1) * 10 + 1 + i % 10,
	CASE WHEN i % 5 <> 4 THEN (t - 1) * 50 + 1 + (i * 7) % 50 END
FROM generate_series(1, 400000 * :scale) i,
	LATERAL (SELECT 1 + floor((200 * :scale) * pg_temp.u(i, 1) ^ 2)::int AS t,
			 (hashint8(i * 3) & 2147483647) % 100 AS s) x;
SELECT setval('tracker_task_id_seq', 400000 * :scale);
ANALYZE;
