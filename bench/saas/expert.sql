-- bench/saas/expert.sql
--
-- Owns: the index set a careful DBA writes by hand for app.sql, reading
-- its statements and schema.sql (before running the advisor on it). Every
-- statement filters by tenant, and the big tenants are the busy ones, so
-- the tenant's ForeignKey index alone reads a big customer's whole share:
--   board: the project's ForeignKey index finds ~1/10 of a tenant's tasks;
--     a (project_id, priority, created_at DESC) for the open ones would
--     serve the ORDER BY ... LIMIT: WHERE NOT is_archived AND status <> 'done'
--     cannot be used (the statement says IN (...)), so (project_id, priority,
--     created_at DESC) WHERE NOT is_archived.
--   my tasks: the assignee's ForeignKey index: ~100 tasks each; enough.
--   overdue badge: (tenant_id, due_date) WHERE NOT is_archived.
--   urgent: GIN on labels (jsonb_path_ops: only @>), ANDed with the tenant.
--   activity: (tenant_id, updated_at DESC).
--   quick search, customer: the tenant's rows after (tenant_id, ...):
--     left to the indexes above (a rare page).

CREATE INDEX IF NOT EXISTS expert_task_project_board ON tracker_task (project_id, priority, created_at DESC) WHERE NOT is_archived;
CREATE INDEX IF NOT EXISTS expert_task_tenant_due ON tracker_task (tenant_id, due_date) WHERE NOT is_archived;
CREATE INDEX IF NOT EXISTS expert_task_labels_gin ON tracker_task USING gin (labels jsonb_path_ops);
CREATE INDEX IF NOT EXISTS expert_task_tenant_updated ON tracker_task (tenant_id, updated_at DESC);
