-- bench/messaging/expert.sql
--
-- Owns: the index set a careful DBA writes by hand for chat.sql, reading
-- its statements and schema.sql (before running the advisor on it):
--   history, unread badge, gallery, search: all one room's messages, newest
--     first or after a time: one btree on (room_id, created_at DESC), not
--     partial (the badge counts deleted messages too; 2% are deleted, the
--     others filter them on the way).
--   activity: Q(mentions__contains=[uid]) | Q(sender_id=uid): the
--     ForeignKey index serves sender_id; a GIN index on mentions
--     (jsonb_path_ops: only @>) lets the planner OR the two bitmaps.
--   sidebar, thread: the ForeignKey indexes Django made serve them.

CREATE INDEX IF NOT EXISTS expert_message_room_created ON chat_message (room_id, created_at DESC);
CREATE INDEX IF NOT EXISTS expert_message_mentions_gin ON chat_message USING gin (mentions jsonb_path_ops);
