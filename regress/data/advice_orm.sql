-- regress/data/advice_orm.sql
--
-- Owns: the tables regress/sql/advice_orm.sql records ORM-written
-- statements on: orm_announcement as Django 3.2's migrate creates it
-- (app "orm", jsonb and text[] fields), chat_message as SQLAlchemy 1.4's
-- create_all does; deterministic data with the selectivities of a real
-- application (a filter returns under 5% of its table), analyzed.

CREATE TABLE "orm_announcement" ("id" serial NOT NULL PRIMARY KEY, "university_id" integer NOT NULL, "author_id" integer NOT NULL, "editor_id" integer NULL, "title" varchar(200) NOT NULL, "slug" varchar(200) NOT NULL, "email" varchar(200) NOT NULL, "status" varchar(20) NOT NULL, "priority" integer NOT NULL, "is_deleted" boolean NOT NULL, "is_pinned" boolean NULL, "display_time" timestamp with time zone NOT NULL, "scope_ids" jsonb NOT NULL, "tags" jsonb NOT NULL, "data" jsonb NOT NULL, "labels" text[] NOT NULL);
CREATE TABLE chat_message (
	id SERIAL NOT NULL,
	room_id INTEGER NOT NULL,
	sender_id INTEGER NOT NULL,
	body VARCHAR NOT NULL,
	is_read BOOLEAN,
	sent_at TIMESTAMP WITH TIME ZONE NOT NULL,
	meta JSONB NOT NULL,
	PRIMARY KEY (id)
);

INSERT INTO orm_announcement (university_id, author_id, editor_id, title, slug, email, status,
	priority, is_deleted, is_pinned, display_time, scope_ids, tags, data, labels)
SELECT 1 + i % 50, 1 + i % 500, CASE WHEN i % 4 = 0 THEN NULL ELSE 1 + (i * 7) % 500 END,
	CASE WHEN i % 500 = 1 THEN 'Exam ' ELSE 'News ' END || i,
	CASE WHEN i % 500 = 2 THEN 'exam-' ELSE 'news-' END || i,
	'User' || i || '@Example.com',
	CASE WHEN i % 500 = 3 THEN 'draft' WHEN i % 500 = 4 THEN 'review'
		WHEN i % 30 = 0 THEN 'archived' ELSE 'published' END,
	i % 1000, i % 10 = 0,
	CASE WHEN i % 20 = 0 THEN true WHEN i % 3 = 0 THEN false END,
	timestamptz '2024-01-01 00:00+00' + i * interval '17 minutes',
	jsonb_build_array(i % 500, (i * 7) % 500),
	CASE WHEN i % 500 = 5 THEN '{"urgent": true}' WHEN i % 500 = 6 THEN '{"pinned": true}'
		ELSE '{"source": "feed"}' END::jsonb,
	jsonb_build_object('kind', CASE WHEN i % 500 = 7 THEN 'quiz' ELSE 'news' END),
	CASE WHEN i % 500 = 8 THEN ARRAY['exam'] WHEN i % 500 = 9 THEN ARRAY['deadline']
		ELSE ARRAY['news'] END
FROM generate_series(1, 20000) i;
INSERT INTO chat_message (room_id, sender_id, body, is_read, sent_at, meta)
SELECT 1 + i % 1000, 1 + (i * 13) % 2000,
	CASE WHEN i % 500 = 10 THEN 'Hello ' ELSE 'see you ' END || i,
	CASE WHEN i % 20 = 0 THEN NULL WHEN i % 7 = 0 THEN false ELSE true END,
	timestamptz '2024-01-01 00:00+00' + i * interval '1 minute',
	jsonb_build_object('kind', CASE WHEN i % 500 = 11 THEN 'system' ELSE 'text' END)
FROM generate_series(1, 30000) i;
ANALYZE orm_announcement, chat_message;

SELECT sfcache.advice_reset();
