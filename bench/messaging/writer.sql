-- bench/messaging/writer.sql
--
-- Owns: the write side of the messaging benchmark: 70% a message posted to
-- one of the user's rooms (Message.objects.create), 30% the room marked
-- read (Membership.objects.filter(room_id=rid, user_id=uid).update(...)).

\set uid random_zipfian(1, 10000 * :scale, 1.1)
\set k random(0, 7)
\set rid 1 + ((:uid * 7 + 131 * :k) % (2000 * :scale)) * (case when :k = 0 then 0 else 1 end)
\set op random(1, 100)

\if :op <= 70
INSERT INTO "chat_message" ("body", "created_at", "edited_at", "is_deleted", "mentions", "attachments", "room_id", "sender_id", "reply_to_id") VALUES ('new message from the benchmark writer', '2026-11-02T09:00:00+00:00'::timestamptz, NULL, false, '[]', '[]', :rid, :uid, NULL) RETURNING "chat_message"."id";
\else
UPDATE "chat_membership" SET "last_read_at" = '2026-11-02T09:00:00+00:00'::timestamptz WHERE ("chat_membership"."room_id" = :rid AND "chat_membership"."user_id" = :uid);
\endif
