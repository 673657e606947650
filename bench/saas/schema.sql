-- bench/saas/schema.sql
--
-- Owns: the schema of the multi-tenant SaaS benchmark (a project tracker
-- written in Django 3.2: app "tracker"), as `manage.py migrate` creates
-- it: every row carries its tenant, every ForeignKey has the index Django
-- adds ("<table>_<column>_<hash>"). Nothing else.

DROP TABLE IF EXISTS tracker_task, tracker_project, tracker_member, tracker_tenant CASCADE;
CREATE TABLE "tracker_tenant" ("id" serial NOT NULL PRIMARY KEY, "name" varchar(100) NOT NULL,
	"plan" varchar(16) NOT NULL, "created_at" timestamp with time zone NOT NULL);
CREATE TABLE "tracker_member" ("id" serial NOT NULL PRIMARY KEY, "email" varchar(254) NOT NULL,
	"is_active" boolean NOT NULL,
	"tenant_id" integer NOT NULL REFERENCES "tracker_tenant" ("id") DEFERRABLE INITIALLY DEFERRED);
CREATE INDEX "tracker_member_tenant_id_6f0e2c11" ON "tracker_member" ("tenant_id");
CREATE TABLE "tracker_project" ("id" serial NOT NULL PRIMARY KEY, "name" varchar(100) NOT NULL,
	"is_archived" boolean NOT NULL,
	"tenant_id" integer NOT NULL REFERENCES "tracker_tenant" ("id") DEFERRABLE INITIALLY DEFERRED);
CREATE INDEX "tracker_project_tenant_id_9a3b7d52" ON "tracker_project" ("tenant_id");
CREATE TABLE "tracker_task" ("id" serial NOT NULL PRIMARY KEY, "title" varchar(200) NOT NULL,
	"status" varchar(16) NOT NULL, "priority" integer NOT NULL, "due_date" date NULL,
	"created_at" timestamp with time zone NOT NULL, "updated_at" timestamp with time zone NOT NULL,
	"is_archived" boolean NOT NULL, "labels" jsonb NOT NULL, "custom" jsonb NOT NULL,
	"tenant_id" integer NOT NULL REFERENCES "tracker_tenant" ("id") DEFERRABLE INITIALLY DEFERRED,
	"project_id" integer NOT NULL REFERENCES "tracker_project" ("id") DEFERRABLE INITIALLY DEFERRED,
	"assignee_id" integer NULL REFERENCES "tracker_member" ("id") DEFERRABLE INITIALLY DEFERRED);
CREATE INDEX "tracker_task_tenant_id_1c5d8e90" ON "tracker_task" ("tenant_id");
CREATE INDEX "tracker_task_project_id_4e7f2a13" ON "tracker_task" ("project_id");
CREATE INDEX "tracker_task_assignee_id_b8c1d0e6" ON "tracker_task" ("assignee_id");
