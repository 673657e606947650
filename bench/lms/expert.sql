-- bench/lms/expert.sql
--
-- Owns: the hand-written index set for the LMS dashboard (dashboard.sql),
-- written as a careful DBA would from reading the 12 statements and the
-- schema, before the advisor's configuration search was measured against
-- it (bench/scenarios/advice.sh, bench/RESULTS-advice.md). Not part of
-- schema.sql: the gaps there are deliberate.
--
-- The DBA's reasoning, statement by statement:
--   Q1, Q2, Q3, Q6, Q7, Q10, Q11, Q12: primary keys and the foreign key
--     indexes Django made already serve them (a user has 4 enrollments,
--     12 recipients, 10 topic logs, 10 activities): nothing to add.
--   Q4: the class's announcements: containment on scope_ids; a GIN index
--     with jsonb_path_ops (only @> is used) finds the ~100 rows of a class.
--   Q4, Q5: the university's current, not deleted announcements: one btree
--     on (university_id, display_time DESC) for the rows that are not
--     deleted serves the range on display_time for both, and Q5's ORDER BY
--     display_time DESC once is_pinned is handled by the sort of a few rows.
--   Q8, Q9: the notification badge and dropdown: no index on user_id at
--     all.  One btree on (user_id, created_at DESC) for the rows that are
--     not deleted serves both (20 notifications per user: the badge's
--     status test is a filter over a handful of rows, the dropdown reads
--     them in order and stops after 10).
--
-- Usage: psql -f expert.sql (after schema.sql and data.sql); drop with
-- expert-drop (see bench/scenarios/advice.sh).

CREATE INDEX IF NOT EXISTS expert_announcement_scope_ids_gin
    ON lms_announcement USING gin (scope_ids jsonb_path_ops);
CREATE INDEX IF NOT EXISTS expert_announcement_uni_display
    ON lms_announcement (university_id, display_time DESC) WHERE NOT is_deleted;
CREATE INDEX IF NOT EXISTS expert_notification_user_created
    ON lms_notification (user_id, created_at DESC) WHERE NOT is_deleted;
