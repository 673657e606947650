-- bench/saas/app.sql
--
-- Owns: the read side of the multi-tenant benchmark: one transaction = one
-- member of one tenant (zipfian: the big customers are the busy ones)
-- using the tracker, as the Django views query it: every queryset goes
-- through the tenant's manager (.filter(tenant_id=...)), the text is what
-- Django 3.2 with psycopg2 sends for the querysets in the comments.
--
-- Usage: pgbench -n -f app.sql@9 -f writer.sql@1 -D scale=1 -c 4 -T 10

\set tid random_zipfian(1, 200 * :scale, 1.2)
\set pid (:tid - 1) * 10 + random(1, 10)
\set mid (:tid - 1) * 50 + random(1, 50)

-- board: Task.objects.filter(tenant_id=tid, project_id=pid, is_archived=False,
--   status__in=['todo', 'doing', 'review']).order_by('priority', '-created_at')[:100]
SELECT "tracker_task"."id", "tracker_task"."title", "tracker_task"."status", "tracker_task"."priority", "tracker_task"."due_date", "tracker_task"."assignee_id" FROM "tracker_task" WHERE ("tracker_task"."is_archived" = false AND "tracker_task"."project_id" = :pid AND "tracker_task"."status" IN ('todo', 'doing', 'review') AND "tracker_task"."tenant_id" = :tid) ORDER BY "tracker_task"."priority" ASC, "tracker_task"."created_at" DESC LIMIT 100;

-- my tasks: Task.objects.filter(tenant_id=tid, assignee_id=mid).exclude(status='done').order_by('due_date')[:50]
SELECT "tracker_task"."id", "tracker_task"."title", "tracker_task"."status", "tracker_task"."due_date", "tracker_task"."project_id" FROM "tracker_task" WHERE ("tracker_task"."assignee_id" = :mid AND "tracker_task"."tenant_id" = :tid AND NOT ("tracker_task"."status" = 'done')) ORDER BY "tracker_task"."due_date" ASC LIMIT 50;

-- overdue badge: Task.objects.filter(tenant_id=tid, due_date__lt=today, is_archived=False).exclude(status='done').count()
SELECT COUNT(*) AS "__count" FROM "tracker_task" WHERE ("tracker_task"."due_date" < '2026-11-02'::date AND "tracker_task"."is_archived" = false AND "tracker_task"."tenant_id" = :tid AND NOT ("tracker_task"."status" = 'done'));

-- urgent: Task.objects.filter(tenant_id=tid, labels__contains=['urgent']).exclude(status='done')
SELECT "tracker_task"."id", "tracker_task"."title", "tracker_task"."status", "tracker_task"."assignee_id" FROM "tracker_task" WHERE ("tracker_task"."labels" @> '["urgent"]' AND "tracker_task"."tenant_id" = :tid AND NOT ("tracker_task"."status" = 'done'));

-- activity: Task.objects.filter(tenant_id=tid).order_by('-updated_at')[:20]
SELECT "tracker_task"."id", "tracker_task"."title", "tracker_task"."status", "tracker_task"."updated_at" FROM "tracker_task" WHERE "tracker_task"."tenant_id" = :tid ORDER BY "tracker_task"."updated_at" DESC LIMIT 20;

-- quick search: Task.objects.filter(tenant_id=tid, title__istartswith='fix').order_by('-created_at')[:20]
SELECT "tracker_task"."id", "tracker_task"."title", "tracker_task"."status" FROM "tracker_task" WHERE ("tracker_task"."tenant_id" = :tid AND UPPER("tracker_task"."title"::text) LIKE UPPER('fix%')) ORDER BY "tracker_task"."created_at" DESC LIMIT 20;

-- a customer's tasks: Task.objects.filter(tenant_id=tid, custom__customer='customer 5')
SELECT "tracker_task"."id", "tracker_task"."title", "tracker_task"."status" FROM "tracker_task" WHERE ("tracker_task"."custom" -> 'customer') = '"customer 5"' AND "tracker_task"."tenant_id" = :tid;
