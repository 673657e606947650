-- bench/saas/writer.sql
--
-- Owns: the write side of the multi-tenant benchmark: 50% a task created
-- (Task.objects.create), 50% a task moved to another status (.save() of
-- the changed fields, by primary key).

\set tid random_zipfian(1, 200 * :scale, 1.2)
\set pid (:tid - 1) * 10 + random(1, 10)
\set mid (:tid - 1) * 50 + random(1, 50)
\set op random(1, 100)
\set task random(1, 400000 * :scale)

\if :op <= 50
INSERT INTO "tracker_task" ("title", "status", "priority", "due_date", "created_at", "updated_at", "is_archived", "labels", "custom", "tenant_id", "project_id", "assignee_id") VALUES ('Task from the benchmark writer', 'todo', 2, '2026-11-09'::date, '2026-11-02T09:00:00+00:00'::timestamptz, '2026-11-02T09:00:00+00:00'::timestamptz, false, '[]', '{}', :tid, :pid, :mid) RETURNING "tracker_task"."id";
\else
UPDATE "tracker_task" SET "status" = 'doing', "updated_at" = '2026-11-02T09:00:00+00:00'::timestamptz WHERE "tracker_task"."id" = :task;
\endif
