-- regress/data/advice_lms.sql
--
-- Owns: the small Django-style LMS schema and data the index-advice tests
-- share (regress/sql/advice.sql includes it; regress/t/AdvisorTest.pm loads
-- it), analyzed, with the advice record reset. Deterministic.

CREATE TABLE lms_university (id serial PRIMARY KEY, name text NOT NULL);
CREATE TABLE lms_announcement (
	id bigserial PRIMARY KEY,
	university_id integer NOT NULL REFERENCES lms_university (id),
	title text NOT NULL,
	scope_ids jsonb NOT NULL DEFAULT '[]',
	tags jsonb NOT NULL DEFAULT '{}',
	is_deleted boolean NOT NULL DEFAULT false,
	display_time timestamptz NOT NULL,
	end_date timestamptz
);
CREATE TABLE lms_notification (
	id bigserial PRIMARY KEY,
	user_id integer NOT NULL,
	status varchar(16) NOT NULL,
	is_deleted boolean NOT NULL DEFAULT false,
	created_at timestamptz NOT NULL
);
-- Django's index for Notification.user_id (db_index=True), named as Django 3.2 names it
CREATE INDEX lms_notification_user_id_d774485f ON lms_notification (user_id);

INSERT INTO lms_university (name) SELECT 'university ' || i FROM generate_series(1, 50) i;
INSERT INTO lms_announcement (university_id, title, scope_ids, tags, is_deleted, display_time, end_date)
SELECT 1 + i % 50, 'announcement ' || i,
	jsonb_build_array(i % 500, (i * 7) % 500),
	CASE WHEN i % 100 = 0 THEN '{"urgent": true}' ELSE '{"kind": "news"}' END::jsonb,
	i % 10 = 0,
	timestamptz '2024-01-01 00:00+00' + (i % 365) * interval '1 day',
	CASE WHEN i % 3 = 0 THEN NULL ELSE timestamptz '2024-01-01 00:00+00' + (i % 365 + 30) * interval '1 day' END
FROM generate_series(1, 20000) i;
INSERT INTO lms_notification (user_id, status, is_deleted, created_at)
SELECT i % 200, (ARRAY['read', 'read', 'read', 'unread', 'archived'])[1 + i % 5], i % 7 = 0,
	timestamptz '2024-01-01 00:00+00' + i * interval '1 minute'
FROM generate_series(1, 50000) i;
ANALYZE lms_university, lms_announcement, lms_notification;

SELECT sfcache.advice_reset();
