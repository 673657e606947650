-- bench/lms/writer.sql
--
-- Owns: the write side of the LMS mixed-workload test. One transaction =
-- one small write on lms_notification for a (zipfian-hot) student, the same
-- user distribution as dashboard.sql so cached dashboards get invalidated:
--   50%: a new unread notification is delivered to the user (INSERT)
--   50%: the user opens one of its notifications (UPDATE ... by primary key;
--        ids (uid-1)*20+1 .. uid*20 belong to uid, see data.sql)
-- Timestamps are fixed literals (2026-11-02, the benchmark's "now").
--
-- Usage:  pgbench -n -f dashboard.sql@9 -f writer.sql@1 -D scale=1 -c 8 -T 10
--    or:  pgbench -n -f writer.sql -D scale=1 -c 1 -T 3

\set uid random_zipfian(1, 5000 * :scale, 1.1)
\set uid :uid - (case when :uid % 25 = 0 then 1 else 0 end)
\set op random(1, 100)

\if :op <= 50
INSERT INTO lms_notification (user_id, kind, title, message, link, status,
                              is_deleted, read_at, created_at)
VALUES (:uid, 'message', 'Message update',
        'You have a new message notification (benchmark writer).',
        '/lms/messages/', 'unread', false, NULL,
        '2026-11-02 08:59:00+00');
\else
\set nid (:uid - 1) * 20 + random(1, 20)
UPDATE lms_notification
SET status = 'read', read_at = '2026-11-02 09:00:00+00'
WHERE id = :nid AND status = 'unread';
\endif
