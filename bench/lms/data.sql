-- bench/lms/data.sql
--
-- Owns: the deterministic data generator for the LMS benchmark schema
-- (schema.sql must have been loaded first). Re-runnable: truncates first.
--
-- Usage:  psql -v scale=1 -f schema.sql -f data.sql     (scale defaults to 1)
--
-- Determinism: no random(). Every pseudo-random value is a pure function of
-- the row id (hashint8extended(id, salt) mapped to [0,1), see pg_temp.rnd),
-- ids are assigned explicitly, and TimeZone is pinned to UTC, so two loads at
-- the same scale produce identical rows regardless of plan or row order.
--
-- Layout (per university; the university count is 5 * scale):
--   users         1000 : ids (u-1)*1000+1 .. u*1000; local index l = 1..1000;
--                        l % 25 = 0 -> teacher (40), otherwise student (960)
--   classes         40 : local index k = 0..39, taught by user l = 25*(k+1)
--   enrollments        : each student in 4 classes of its university, local
--                        class index (uid*13 + 7*j) % 40 for j = 0..3;
--                        each teacher in its one class.  dashboard.sql relies
--                        on this formula (pg_temp.user_class) to pick a
--                        class the student is enrolled in.
--   schedules          : 10 weekly sessions per class; every class has exactly
--                        one session in the week of Mon 2026-11-02
--   announcements 4000 : 75% class-scoped (scope_ids = [c] or [c1, c2]),
--                        25% university-wide (scope_ids = [])
--   per user           : 12 announcement recipients, 20 notifications,
--                        10 topic logs, 10 activities
-- At scale 1: 5 universities, 5,000 users, 200 classes, 19,400 enrollments,
-- 2,000 schedules, 20,000 announcements, 60,000 recipients, 100,000
-- notifications, 50,000 topic logs, 50,000 activities.
--
-- Time frame (UTC): fall term starts Mon 2026-09-07; the benchmark's fixed
-- "now" is Mon 2026-11-02 09:00 (used as a literal by dashboard.sql).

\set ON_ERROR_STOP on
\if :{?scale}
\else
    \set scale 1
\endif

SET client_min_messages = warning;
SET TimeZone = 'UTC';

-- Deterministic uniform value in [0,1) for (key, salt).
CREATE OR REPLACE FUNCTION pg_temp.rnd(k bigint, salt bigint)
RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT (hashint8extended(k, salt) & 9007199254740991)::float8
          / 9007199254740992::float8 $$;

-- The class a user's j-th enrollment / log / activity refers to.
-- Teachers (uid % 25 = 0) always get the one class they teach.
CREATE OR REPLACE FUNCTION pg_temp.user_class(u bigint, j int)
RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT ((u - 1) / 1000) * 40
          + CASE WHEN u % 25 = 0 THEN ((u - 1) % 1000 + 1) / 25
                 ELSE (u * 13 + 7 * (j % 4)) % 40 + 1 END $$;

BEGIN;

TRUNCATE lms_activity, lms_topic_log, lms_notification,
         lms_announcement_recipient, lms_announcement, lms_schedule,
         lms_enrollment, lms_class, lms_user, lms_university
         RESTART IDENTITY;

-- universities -------------------------------------------------------------
INSERT INTO lms_university (id, name, slug, timezone, is_deleted, created_at)
SELECT i,
       'University ' || i,
       'uni-' || i,
       (ARRAY['Asia/Tokyo', 'Asia/Seoul', 'Europe/Berlin',
              'America/New_York', 'UTC'])[1 + (i - 1) % 5],
       false,
       timestamptz '2024-01-01' + interval '1 day' * i
FROM generate_series(1, 5 * :scale) AS i;

-- users ------------------------------------------------------------------
INSERT INTO lms_user (id, university_id, username, email, first_name,
                      last_name, role, is_active, is_deleted, last_login,
                      created_at)
SELECT u,
       (u - 1) / 1000 + 1,
       'user' || u,
       'user' || u || '@uni' || ((u - 1) / 1000 + 1) || '.example.edu',
       (ARRAY['Aiko', 'Ben', 'Chen', 'Dana', 'Emil', 'Fatima', 'Goro',
              'Hana', 'Ivan', 'Jin', 'Kai', 'Lena', 'Mina', 'Noah', 'Olga',
              'Paul', 'Rin', 'Sara', 'Tom', 'Yuki'])
           [1 + floor(pg_temp.rnd(u, 101) * 20)::int],
       (ARRAY['Abe', 'Baker', 'Choi', 'Diaz', 'Endo', 'Fischer', 'Garcia',
              'Hayashi', 'Ito', 'Jung', 'Kato', 'Lee', 'Mori', 'Novak',
              'Ono', 'Park', 'Sato', 'Tanaka', 'Weber', 'Yamada'])
           [1 + floor(pg_temp.rnd(u, 102) * 20)::int],
       CASE WHEN u % 25 = 0 THEN 'teacher' ELSE 'student' END,
       u % 211 <> 0,
       u % 211 = 0,
       timestamptz '2026-10-01' + interval '1 day' * (pg_temp.rnd(u, 103) * 32),
       timestamptz '2026-06-01' + interval '1 day' * (pg_temp.rnd(u, 104) * 90)
FROM generate_series(1, 5000 * :scale) AS u;

-- classes: local index k = 0..39 -> subject k % 10, level k / 10 ----------
INSERT INTO lms_class (id, university_id, teacher_id, code, name, term,
                       status, is_deleted, created_at)
SELECT c,
       (c - 1) / 40 + 1,
       ((c - 1) / 40) * 1000 + 25 * ((c - 1) % 40 + 1),
       (ARRAY['CS', 'MATH', 'PHYS', 'CHEM', 'BIO', 'ECON', 'HIST', 'ENG',
              'PSY', 'ART'])[1 + (c - 1) % 10]
           || ' ' || (101 + 100 * (((c - 1) % 40) / 10)),
       (ARRAY['Computer Science', 'Mathematics', 'Physics', 'Chemistry',
              'Biology', 'Economics', 'History', 'English Literature',
              'Psychology', 'Art History'])[1 + (c - 1) % 10]
           || ' ' || (ARRAY['I', 'II', 'III', 'IV'])[1 + ((c - 1) % 40) / 10],
       '2026-FALL',
       'active',
       false,
       timestamptz '2026-07-01' + interval '1 day' * (pg_temp.rnd(c, 201) * 30)
FROM generate_series(1, 200 * :scale) AS c;

-- enrollments: students 4 each (j = 0..3), teachers 1 (j = 0) --------------
INSERT INTO lms_enrollment (id, class_id, user_id, role, status, is_deleted,
                            created_at)
SELECT (u - 1) * 4 + j + 1,
       pg_temp.user_class(u, j),
       u,
       CASE WHEN u % 25 = 0 THEN 'teacher' ELSE 'student' END,
       CASE WHEN u % 25 <> 0 AND pg_temp.rnd((u - 1) * 4 + j + 1, 301) < 0.05
            THEN 'dropped' ELSE 'active' END,
       false,
       timestamptz '2026-08-15'
           + interval '1 day' * (pg_temp.rnd((u - 1) * 4 + j + 1, 302) * 21)
FROM generate_series(1, 5000 * :scale) AS u
CROSS JOIN generate_series(0, 3) AS j
WHERE u % 25 <> 0 OR j = 0
ORDER BY 1;

-- schedules: class local k meets on weekday k % 5, weeks k % 8 .. k % 8 + 9
-- (week 0 = Mon 2026-09-07), so week 8 (Nov 2 - Nov 8) always has a session.
INSERT INTO lms_schedule (id, class_id, title, location, start_time,
                          end_time, is_deleted, created_at)
SELECT s.id, s.class_id,
       c.code || ' Lecture ' || (s.w + 1),
       'Building ' || chr(65 + (s.k % 6)) || ', Room ' || (100 + s.k * 7 % 300),
       s.start_time,
       s.start_time + interval '90 minutes',
       false,
       c.created_at
FROM (
    SELECT (c - 1) * 10 + w + 1 AS id,
           c AS class_id,
           (c - 1) % 40 AS k,
           w,
           timestamptz '2026-09-07'
               + interval '1 day'  * ((((c - 1) % 40) % 8 + w) * 7 + ((c - 1) % 40) % 5)
               + interval '1 hour' * (8 + ((c - 1) % 40) * 3 % 10) AS start_time
    FROM generate_series(1, 200 * :scale) AS c
    CROSS JOIN generate_series(0, 9) AS w
) AS s
JOIN lms_class AS c ON c.id = s.class_id
ORDER BY s.id;

-- announcements ---------------------------------------------------------
INSERT INTO lms_announcement (id, university_id, author_id, title, body,
                              scope, scope_ids, is_pinned, is_deleted,
                              display_time, end_date, created_at)
SELECT a.id,
       a.uni,
       (a.uni - 1) * 1000 + 25 * ((a.c1 - 1) % 40 + 1),  -- teacher of c1
       (ARRAY['Homework posted', 'Exam reminder', 'Room change',
              'Lecture cancelled', 'New reading', 'Grades released',
              'Office hours', 'Campus event'])
           [1 + floor(pg_temp.rnd(a.id, 9) * 8)::int] || ' #' || a.id,
       'Dear students, please note the following update. '
           || md5(a.id::text) || ' ' || md5((a.id + 1)::text)
           || ' Contact your instructor with any questions.',
       CASE WHEN a.is_class THEN 'class' ELSE 'university' END,
       CASE WHEN NOT a.is_class THEN '[]'::jsonb
            WHEN a.two THEN jsonb_build_array(a.c1, a.c2)
            ELSE jsonb_build_array(a.c1) END,
       pg_temp.rnd(a.id, 8) < 0.05,
       pg_temp.rnd(a.id, 7) < 0.03,
       a.display_time,
       a.display_time + interval '1 day' * (7 + pg_temp.rnd(a.id, 6) * 53),
       a.display_time - interval '1 day' * (pg_temp.rnd(a.id, 10) * 3)
FROM (
    SELECT x.id, x.uni, x.is_class, x.two, x.c1,
           (x.uni - 1) * 40
               + ((x.c1 - 1) % 40 + 1 + floor(pg_temp.rnd(x.id, 4) * 39)::int) % 40
               + 1 AS c2,
           timestamptz '2026-08-01'
               + interval '1 day' * (pg_temp.rnd(x.id, 5) * 122) AS display_time
    FROM (
        SELECT i AS id,
               (i - 1) / 4000 + 1 AS uni,
               pg_temp.rnd(i, 1) < 0.75 AS is_class,
               pg_temp.rnd(i, 3) < 0.40 AS two,
               ((i - 1) / 4000) * 40 + floor(pg_temp.rnd(i, 2) * 40)::int + 1 AS c1
        FROM generate_series(1, 20000 * :scale) AS i
    ) AS x
) AS a
ORDER BY a.id;

-- announcement recipients: 12 distinct announcements of the user's
-- university per user (offsets j * 331 mod 4000 never collide).
INSERT INTO lms_announcement_recipient (id, announcement_id, user_id, is_read,
                                        read_at, created_at)
SELECT r.id, r.announcement_id, r.user_id,
       r.is_read,
       CASE WHEN r.is_read
            THEN a.display_time + interval '1 hour' * (pg_temp.rnd(r.id, 403) * 48)
       END,
       a.display_time
FROM (
    SELECT (u - 1) * 12 + j + 1 AS id,
           ((u - 1) / 1000) * 4000
               + (floor(pg_temp.rnd(u, 401) * 4000)::int + j * 331) % 4000
               + 1 AS announcement_id,
           u AS user_id,
           pg_temp.rnd((u - 1) * 12 + j + 1, 402) < 0.6 AS is_read
    FROM generate_series(1, 5000 * :scale) AS u
    CROSS JOIN generate_series(0, 11) AS j
) AS r
JOIN lms_announcement AS a ON a.id = r.announcement_id
ORDER BY r.id;

-- notifications: 20 per user, created 2026-09-01 .. "now" ----------------
INSERT INTO lms_notification (id, user_id, kind, title, message, link,
                              status, is_deleted, read_at, created_at)
SELECT n.id, n.user_id, n.kind,
       initcap(replace(n.kind, '_', ' ')) || ' update',
       'You have a new ' || n.kind || ' notification (ref ' || md5(n.id::text) || ').',
       '/lms/notifications/' || n.id || '/',
       n.status,
       pg_temp.rnd(n.id, 503) < 0.05,
       CASE WHEN n.status <> 'unread'
            THEN n.created_at + interval '1 hour' * (pg_temp.rnd(n.id, 504) * 24)
       END,
       n.created_at
FROM (
    SELECT i AS id,
           (i - 1) / 20 + 1 AS user_id,
           (ARRAY['announcement', 'grade', 'assignment', 'message',
                  'reminder'])[1 + floor(pg_temp.rnd(i, 501) * 5)::int] AS kind,
           CASE WHEN pg_temp.rnd(i, 502) < 0.30 THEN 'unread'
                WHEN pg_temp.rnd(i, 502) < 0.90 THEN 'read'
                ELSE 'archived' END AS status,
           timestamptz '2026-09-01'
               + interval '1 day' * (pg_temp.rnd(i, 505) * 62.375) AS created_at
    FROM generate_series(1, 100000 * :scale) AS i
) AS n
ORDER BY n.id;

-- topic logs: 10 per user, in the user's classes -------------------------
INSERT INTO lms_topic_log (id, class_id, user_id, topic, action,
                           duration_seconds, created_at)
SELECT i,
       pg_temp.user_class((i - 1) / 10 + 1, ((i - 1) % 10)::int),
       (i - 1) / 10 + 1,
       'Week ' || (1 + floor(pg_temp.rnd(i, 601) * 8)::int) || ': '
           || (ARRAY['Introduction', 'Fundamentals', 'Problem set review',
                     'Case study', 'Lab walkthrough', 'Midterm prep',
                     'Guest lecture', 'Project kickoff'])
              [1 + floor(pg_temp.rnd(i, 602) * 8)::int],
       CASE WHEN pg_temp.rnd(i, 603) < 0.6 THEN 'viewed'
            WHEN pg_temp.rnd(i, 603) < 0.9 THEN 'completed'
            ELSE 'commented' END,
       30 + floor(pg_temp.rnd(i, 604) * 3570)::int,
       timestamptz '2026-09-07' + interval '1 day' * (pg_temp.rnd(i, 605) * 56.375)
FROM generate_series(1, 50000 * :scale) AS i;

-- activities: 10 per user; logins have no class -------------------------
INSERT INTO lms_activity (id, user_id, class_id, verb, object_type,
                          object_id, created_at)
SELECT x.id, x.user_id,
       CASE WHEN x.v <> 5 THEN pg_temp.user_class(x.user_id, x.j) END,
       (ARRAY['viewed', 'submitted', 'commented', 'downloaded', 'logged_in'])[x.v],
       (ARRAY['topic', 'assignment', 'announcement', 'file', 'session'])[x.v],
       CASE WHEN x.v <> 5 THEN 1 + floor(pg_temp.rnd(x.id, 702) * 10000)::bigint END,
       timestamptz '2026-09-01' + interval '1 day' * (pg_temp.rnd(x.id, 703) * 62.375)
FROM (
    SELECT i AS id,
           (i - 1) / 10 + 1 AS user_id,
           ((i - 1) % 10)::int AS j,
           1 + floor(pg_temp.rnd(i, 701) * 5)::int AS v
    FROM generate_series(1, 50000 * :scale) AS i
) AS x;

-- keep the bigserial sequences ahead of the explicit ids -----------------
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['lms_university', 'lms_user', 'lms_class',
                             'lms_enrollment', 'lms_schedule',
                             'lms_announcement', 'lms_announcement_recipient',
                             'lms_notification', 'lms_topic_log',
                             'lms_activity']
    LOOP
        EXECUTE format('SELECT setval(pg_get_serial_sequence(%L, ''id''),
                                      (SELECT max(id) FROM %I))', t, t);
    END LOOP;
END
$$;

COMMIT;

ANALYZE;
