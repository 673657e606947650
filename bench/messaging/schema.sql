-- bench/messaging/schema.sql
--
-- Owns: the schema of the messaging backend (a Slack-like chat written in
-- Django 3.2: app "chat"), as `manage.py migrate` creates it: serial ids,
-- deferrable foreign keys, the index Django adds for every ForeignKey
-- ("<table>_<column>_<hash>") and the unique index of unique_together.
-- Nothing else: no one has looked at the queries yet.

DROP TABLE IF EXISTS chat_message, chat_membership, chat_room, chat_user CASCADE;
CREATE TABLE "chat_user" ("id" serial NOT NULL PRIMARY KEY, "username" varchar(150) NOT NULL UNIQUE,
	"display_name" varchar(100) NOT NULL, "is_active" boolean NOT NULL, "last_seen" timestamp with time zone NULL);
CREATE TABLE "chat_room" ("id" serial NOT NULL PRIMARY KEY, "name" varchar(80) NOT NULL,
	"is_direct" boolean NOT NULL, "is_archived" boolean NOT NULL, "created_at" timestamp with time zone NOT NULL);
CREATE TABLE "chat_membership" ("id" serial NOT NULL PRIMARY KEY, "last_read_at" timestamp with time zone NULL,
	"is_muted" boolean NOT NULL, "joined_at" timestamp with time zone NOT NULL,
	"room_id" integer NOT NULL REFERENCES "chat_room" ("id") DEFERRABLE INITIALLY DEFERRED,
	"user_id" integer NOT NULL REFERENCES "chat_user" ("id") DEFERRABLE INITIALLY DEFERRED);
ALTER TABLE "chat_membership" ADD CONSTRAINT "chat_membership_room_id_user_id_5e0b4e6c_uniq" UNIQUE ("room_id", "user_id");
CREATE INDEX "chat_membership_room_id_8e2a1c6d" ON "chat_membership" ("room_id");
CREATE INDEX "chat_membership_user_id_3f9d0b27" ON "chat_membership" ("user_id");
CREATE TABLE "chat_message" ("id" serial NOT NULL PRIMARY KEY, "body" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL, "edited_at" timestamp with time zone NULL,
	"is_deleted" boolean NOT NULL, "mentions" jsonb NOT NULL, "attachments" jsonb NOT NULL,
	"room_id" integer NOT NULL REFERENCES "chat_room" ("id") DEFERRABLE INITIALLY DEFERRED,
	"sender_id" integer NOT NULL REFERENCES "chat_user" ("id") DEFERRABLE INITIALLY DEFERRED,
	"reply_to_id" integer NULL REFERENCES "chat_message" ("id") DEFERRABLE INITIALLY DEFERRED);
CREATE INDEX "chat_message_room_id_5b1f6a3e" ON "chat_message" ("room_id");
CREATE INDEX "chat_message_sender_id_c2d4e8f1" ON "chat_message" ("sender_id");
CREATE INDEX "chat_message_reply_to_id_0a7c9b44" ON "chat_message" ("reply_to_id");
