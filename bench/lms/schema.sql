-- bench/lms/schema.sql
--
-- Owns: the DDL of the "LMS" benchmark schema (10 tables, schema public),
-- modelled on what Django's migrations would create for a small learning
-- management system app called "lms":
--   * id bigserial primary keys,
--   * FK columns named <model>_id, declared DEFERRABLE INITIALLY DEFERRED
--     (as Django does) and each given its own single-column btree index
--     (Django's default db_index=True on ForeignKey),
--   * unique_together -> UNIQUE constraints, booleans is_*, timestamptz
--     *_at / *_time / *_date columns, statuses stored as text.
--
-- DELIBERATE GAPS -- the sfcache index advisor demo is expected to find them,
-- so do not "fix" them here:
--   1. lms_announcement.scope_ids (jsonb array of class ids, e.g. [12, 40])
--      has NO GIN index, although the dashboard filters on
--      scope_ids @> '[<class id>]'.
--   2. lms_announcement is filtered by (university_id, is_deleted,
--      display_time, end_date) but only the single-column FK index on
--      university_id exists; no compound index.
--   3. lms_notification is filtered by (user_id, status, is_deleted) and has
--      NO index at all on user_id (the FK is declared like Django's
--      ForeignKey(..., db_index=False): constraint, but no index).
--
-- Re-runnable: drops the tables first. Data comes from data.sql.

\set ON_ERROR_STOP on
SET client_min_messages = warning;

DROP TABLE IF EXISTS
    lms_activity,
    lms_topic_log,
    lms_notification,
    lms_announcement_recipient,
    lms_announcement,
    lms_schedule,
    lms_enrollment,
    lms_class,
    lms_user,
    lms_university
CASCADE;

BEGIN;

-- A tenant: every user, class and announcement belongs to one university.
CREATE TABLE lms_university (
    id          bigserial PRIMARY KEY,
    name        text        NOT NULL,
    slug        text        NOT NULL UNIQUE,
    timezone    text        NOT NULL,
    is_deleted  boolean     NOT NULL,
    created_at  timestamptz NOT NULL
);

-- Students and teachers (a custom Django user model).
CREATE TABLE lms_user (
    id             bigserial PRIMARY KEY,
    university_id  bigint      NOT NULL
        REFERENCES lms_university (id) DEFERRABLE INITIALLY DEFERRED,
    username       text        NOT NULL UNIQUE,
    email          text        NOT NULL,
    first_name     text        NOT NULL,
    last_name      text        NOT NULL,
    role           text        NOT NULL,          -- 'student' | 'teacher'
    is_active      boolean     NOT NULL,
    is_deleted     boolean     NOT NULL,
    last_login     timestamptz,
    created_at     timestamptz NOT NULL
);
CREATE INDEX lms_user_university_id_idx ON lms_user (university_id);

-- A course section taught by one teacher in one term.
CREATE TABLE lms_class (
    id             bigserial PRIMARY KEY,
    university_id  bigint      NOT NULL
        REFERENCES lms_university (id) DEFERRABLE INITIALLY DEFERRED,
    teacher_id     bigint      NOT NULL
        REFERENCES lms_user (id) DEFERRABLE INITIALLY DEFERRED,
    code           text        NOT NULL,
    name           text        NOT NULL,
    term           text        NOT NULL,          -- e.g. '2026-FALL'
    status         text        NOT NULL,          -- 'active' | 'archived'
    is_deleted     boolean     NOT NULL,
    created_at     timestamptz NOT NULL
);
CREATE INDEX lms_class_university_id_idx ON lms_class (university_id);
CREATE INDEX lms_class_teacher_id_idx    ON lms_class (teacher_id);

-- Membership of a user in a class (unique_together = (class, user)).
CREATE TABLE lms_enrollment (
    id          bigserial PRIMARY KEY,
    class_id    bigint      NOT NULL
        REFERENCES lms_class (id) DEFERRABLE INITIALLY DEFERRED,
    user_id     bigint      NOT NULL
        REFERENCES lms_user (id) DEFERRABLE INITIALLY DEFERRED,
    role        text        NOT NULL,             -- 'student' | 'teacher'
    status      text        NOT NULL,             -- 'active' | 'dropped'
    is_deleted  boolean     NOT NULL,
    created_at  timestamptz NOT NULL,
    CONSTRAINT lms_enrollment_class_id_user_id_uniq UNIQUE (class_id, user_id)
);
CREATE INDEX lms_enrollment_class_id_idx ON lms_enrollment (class_id);
CREATE INDEX lms_enrollment_user_id_idx  ON lms_enrollment (user_id);

-- One class session (lecture / lab) in the timetable.
CREATE TABLE lms_schedule (
    id          bigserial PRIMARY KEY,
    class_id    bigint      NOT NULL
        REFERENCES lms_class (id) DEFERRABLE INITIALLY DEFERRED,
    title       text        NOT NULL,
    location    text        NOT NULL,
    start_time  timestamptz NOT NULL,
    end_time    timestamptz NOT NULL,
    is_deleted  boolean     NOT NULL,
    created_at  timestamptz NOT NULL
);
CREATE INDEX lms_schedule_class_id_idx ON lms_schedule (class_id);

-- Announcements. scope = 'class' -> scope_ids lists the target class ids
-- (jsonb array); scope = 'university' -> scope_ids = '[]'.
-- GAPS 1 + 2: no GIN index on scope_ids, no compound index on
-- (university_id, is_deleted, display_time, end_date).
CREATE TABLE lms_announcement (
    id             bigserial PRIMARY KEY,
    university_id  bigint      NOT NULL
        REFERENCES lms_university (id) DEFERRABLE INITIALLY DEFERRED,
    author_id      bigint      NOT NULL
        REFERENCES lms_user (id) DEFERRABLE INITIALLY DEFERRED,
    title          text        NOT NULL,
    body           text        NOT NULL,
    scope          text        NOT NULL,          -- 'class' | 'university'
    scope_ids      jsonb       NOT NULL,
    is_pinned      boolean     NOT NULL,
    is_deleted     boolean     NOT NULL,
    display_time   timestamptz NOT NULL,
    end_date       timestamptz NOT NULL,
    created_at     timestamptz NOT NULL
);
CREATE INDEX lms_announcement_university_id_idx ON lms_announcement (university_id);
CREATE INDEX lms_announcement_author_id_idx     ON lms_announcement (author_id);

-- Explicit per-user delivery of an announcement, with read tracking.
CREATE TABLE lms_announcement_recipient (
    id               bigserial PRIMARY KEY,
    announcement_id  bigint      NOT NULL
        REFERENCES lms_announcement (id) DEFERRABLE INITIALLY DEFERRED,
    user_id          bigint      NOT NULL
        REFERENCES lms_user (id) DEFERRABLE INITIALLY DEFERRED,
    is_read          boolean     NOT NULL,
    read_at          timestamptz,
    created_at       timestamptz NOT NULL,
    CONSTRAINT lms_announcement_recipient_announcement_id_user_id_uniq
        UNIQUE (announcement_id, user_id)
);
CREATE INDEX lms_announcement_recipient_announcement_id_idx
    ON lms_announcement_recipient (announcement_id);
CREATE INDEX lms_announcement_recipient_user_id_idx
    ON lms_announcement_recipient (user_id);

-- In-app notifications (the bell icon).
-- GAP 3: user_id is ForeignKey(db_index=False): FK constraint, NO index.
CREATE TABLE lms_notification (
    id          bigserial PRIMARY KEY,
    user_id     bigint      NOT NULL
        REFERENCES lms_user (id) DEFERRABLE INITIALLY DEFERRED,
    kind        text        NOT NULL,   -- 'announcement' | 'grade' | ...
    title       text        NOT NULL,
    message     text        NOT NULL,
    link        text        NOT NULL,
    status      text        NOT NULL,   -- 'unread' | 'read' | 'archived'
    is_deleted  boolean     NOT NULL,
    read_at     timestamptz,
    created_at  timestamptz NOT NULL
);
-- (intentionally no index on lms_notification.user_id)

-- Learning progress: which topic a user viewed / completed in which class.
CREATE TABLE lms_topic_log (
    id                bigserial PRIMARY KEY,
    class_id          bigint      NOT NULL
        REFERENCES lms_class (id) DEFERRABLE INITIALLY DEFERRED,
    user_id           bigint      NOT NULL
        REFERENCES lms_user (id) DEFERRABLE INITIALLY DEFERRED,
    topic             text        NOT NULL,
    action            text        NOT NULL,  -- 'viewed' | 'completed' | 'commented'
    duration_seconds  integer     NOT NULL,
    created_at        timestamptz NOT NULL
);
CREATE INDEX lms_topic_log_class_id_idx ON lms_topic_log (class_id);
CREATE INDEX lms_topic_log_user_id_idx  ON lms_topic_log (user_id);

-- Generic activity stream (class_id NULL for non-class events, e.g. login).
CREATE TABLE lms_activity (
    id           bigserial PRIMARY KEY,
    user_id      bigint      NOT NULL
        REFERENCES lms_user (id) DEFERRABLE INITIALLY DEFERRED,
    class_id     bigint
        REFERENCES lms_class (id) DEFERRABLE INITIALLY DEFERRED,
    verb         text        NOT NULL,
    object_type  text        NOT NULL,
    object_id    bigint,
    created_at   timestamptz NOT NULL
);
CREATE INDEX lms_activity_user_id_idx  ON lms_activity (user_id);
CREATE INDEX lms_activity_class_id_idx ON lms_activity (class_id);

COMMIT;
