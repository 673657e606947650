-- bench/lms/dashboard.sql
--
-- Owns: the read-only pgbench script for the LMS benchmark. One transaction
-- = one student opening the dashboard page: 12 SELECTs, all of them
-- deterministic (no now()/random() inside SQL; "now" is the fixed literal
-- Mon 2026-11-02 09:00 UTC, matching data.sql) so a result cache can serve
-- them. pgbench substitutes :vars textually (default simple protocol), so
-- each (user, class) gives a distinct, repeatable query text.
--
-- Usage:  pgbench -n -f dashboard.sql -D scale=1 -c 8 -T 10
-- (-D scale must match the psql -v scale used for data.sql)
--
-- Q4/Q5 hit the missing GIN index on lms_announcement.scope_ids and the
-- missing compound index on lms_announcement; Q8/Q9 hit the missing index on
-- lms_notification(user_id, status, is_deleted). See schema.sql.

-- Skewed user popularity; users with uid % 25 = 0 are teachers, map them to
-- the neighbouring student so every query returns rows.
\set uid random_zipfian(1, 5000 * :scale, 1.1)
\set uid :uid - (case when :uid % 25 = 0 then 1 else 0 end)
\set uni (:uid - 1) / 1000 + 1
-- One of the student's 4 classes (same formula as pg_temp.user_class in data.sql).
\set j random(0, 3)
\set cid ((:uid - 1) / 1000) * 40 + (:uid * 13 + 7 * :j) % 40 + 1

-- Q1: profile header
SELECT u.id, u.username, u.first_name, u.last_name, u.email, u.role,
       u.last_login, un.name AS university, un.timezone
FROM lms_user AS u
JOIN lms_university AS un ON un.id = u.university_id
WHERE u.id = :uid AND NOT u.is_deleted;

-- Q2: enrolled classes
SELECT c.id, c.code, c.name, c.term,
       t.first_name || ' ' || t.last_name AS teacher
FROM lms_enrollment AS e
JOIN lms_class AS c ON c.id = e.class_id
JOIN lms_user  AS t ON t.id = c.teacher_id
WHERE e.user_id = :uid AND e.status = 'active' AND NOT e.is_deleted
  AND NOT c.is_deleted
ORDER BY c.code;

-- Q3: this week's schedule (week of Mon 2026-11-02)
SELECT s.id, c.code, s.title, s.location, s.start_time, s.end_time
FROM lms_schedule AS s
JOIN lms_enrollment AS e ON e.class_id = s.class_id
JOIN lms_class AS c ON c.id = s.class_id
WHERE e.user_id = :uid AND e.status = 'active' AND NOT e.is_deleted
  AND NOT s.is_deleted
  AND s.start_time >= '2026-11-02 00:00:00+00'
  AND s.start_time <  '2026-11-09 00:00:00+00'
ORDER BY s.start_time;

-- Q4: current announcements for one of the student's classes
--     (jsonb containment on scope_ids: no GIN index -> filter)
SELECT a.id, a.title, a.is_pinned, a.display_time, a.end_date
FROM lms_announcement AS a
WHERE a.university_id = :uni AND NOT a.is_deleted
  AND a.display_time <= '2026-11-02 09:00:00+00'
  AND a.end_date     >= '2026-11-02 09:00:00+00'
  AND a.scope_ids @> ('[' || :cid::text || ']')::jsonb
ORDER BY a.is_pinned DESC, a.display_time DESC
LIMIT 20;

-- Q5: current university-wide announcements
SELECT a.id, a.title, a.is_pinned, a.display_time, a.end_date
FROM lms_announcement AS a
WHERE a.university_id = :uni AND NOT a.is_deleted
  AND a.scope = 'university'
  AND a.display_time <= '2026-11-02 09:00:00+00'
  AND a.end_date     >= '2026-11-02 09:00:00+00'
ORDER BY a.is_pinned DESC, a.display_time DESC
LIMIT 10;

-- Q6: announcements addressed to the student directly
SELECT a.id, a.title, a.display_time, r.is_read
FROM lms_announcement_recipient AS r
JOIN lms_announcement AS a ON a.id = r.announcement_id
WHERE r.user_id = :uid AND NOT a.is_deleted
  AND a.display_time <= '2026-11-02 09:00:00+00'
ORDER BY a.display_time DESC
LIMIT 10;

-- Q7: unread direct-announcement badge
SELECT count(*) AS unread_announcements
FROM lms_announcement_recipient AS r
JOIN lms_announcement AS a ON a.id = r.announcement_id
WHERE r.user_id = :uid AND NOT r.is_read AND NOT a.is_deleted
  AND a.display_time <= '2026-11-02 09:00:00+00';

-- Q8: unread notification badge (no index on lms_notification.user_id)
SELECT count(*) AS unread_notifications
FROM lms_notification
WHERE user_id = :uid AND status = 'unread' AND NOT is_deleted;

-- Q9: notification dropdown
SELECT id, kind, title, link, status, created_at
FROM lms_notification
WHERE user_id = :uid AND NOT is_deleted AND status <> 'archived'
ORDER BY created_at DESC, id DESC
LIMIT 10;

-- Q10: "continue learning": latest topic logs
SELECT t.id, c.code, t.topic, t.action, t.created_at
FROM lms_topic_log AS t
JOIN lms_class AS c ON c.id = t.class_id
WHERE t.user_id = :uid
ORDER BY t.created_at DESC, t.id DESC
LIMIT 10;

-- Q11: progress per class
SELECT t.class_id,
       count(*) FILTER (WHERE t.action = 'completed') AS completed,
       count(*) AS total,
       sum(t.duration_seconds) AS seconds_spent
FROM lms_topic_log AS t
WHERE t.user_id = :uid
GROUP BY t.class_id
ORDER BY t.class_id;

-- Q12: recent activity feed
SELECT a.id, a.verb, a.object_type, a.object_id, c.code, a.created_at
FROM lms_activity AS a
LEFT JOIN lms_class AS c ON c.id = a.class_id
WHERE a.user_id = :uid
ORDER BY a.created_at DESC, a.id DESC
LIMIT 20;
