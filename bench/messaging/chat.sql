-- bench/messaging/chat.sql
--
-- Owns: the read side of the messaging benchmark: one transaction = one
-- user opening the app on one of its rooms, as the Django views query it
-- (the statements are the text Django 3.2 with psycopg2 sends for the
-- querysets in the comments; "now" is 2026-11-02 09:00 UTC). Users are
-- zipfian-hot; a user's rooms are those of data.sql's formula.
--
-- Usage: pgbench -n -f chat.sql@9 -f writer.sql@1 -D scale=1 -c 4 -T 10

\set uid random_zipfian(1, 10000 * :scale, 1.1)
\set k random(0, 7)
\set rid 1 + ((:uid * 7 + 131 * :k) % (2000 * :scale)) * (case when :k = 0 then 0 else 1 end)
\set mid random(1000, 400000 * :scale)

-- sidebar: Membership.objects.filter(user_id=uid, room__is_archived=False)
--   .select_related('room').order_by('room__name')
SELECT "chat_membership"."id", "chat_membership"."last_read_at", "chat_membership"."is_muted", "chat_membership"."joined_at", "chat_membership"."room_id", "chat_membership"."user_id", "chat_room"."id", "chat_room"."name", "chat_room"."is_direct", "chat_room"."is_archived", "chat_room"."created_at" FROM "chat_membership" INNER JOIN "chat_room" ON ("chat_membership"."room_id" = "chat_room"."id") WHERE ("chat_membership"."user_id" = :uid AND NOT "chat_room"."is_archived") ORDER BY "chat_room"."name" ASC;

-- history: Message.objects.filter(room_id=rid, is_deleted=False).order_by('-created_at')[:50]
SELECT "chat_message"."id", "chat_message"."body", "chat_message"."created_at", "chat_message"."edited_at", "chat_message"."is_deleted", "chat_message"."mentions", "chat_message"."attachments", "chat_message"."room_id", "chat_message"."sender_id", "chat_message"."reply_to_id" FROM "chat_message" WHERE ("chat_message"."room_id" = :rid AND NOT "chat_message"."is_deleted") ORDER BY "chat_message"."created_at" DESC LIMIT 50;

-- unread badge: Message.objects.filter(room_id=rid, created_at__gt=last_read).exclude(sender_id=uid).count()
SELECT COUNT(*) AS "__count" FROM "chat_message" WHERE ("chat_message"."created_at" > '2026-11-02T08:00:00+00:00'::timestamptz AND "chat_message"."room_id" = :rid AND NOT ("chat_message"."sender_id" = :uid));

-- activity: Message.objects.filter(Q(mentions__contains=[uid]) | Q(sender_id=uid)).order_by('-created_at')[:20]
SELECT "chat_message"."id", "chat_message"."body", "chat_message"."created_at", "chat_message"."edited_at", "chat_message"."is_deleted", "chat_message"."mentions", "chat_message"."attachments", "chat_message"."room_id", "chat_message"."sender_id", "chat_message"."reply_to_id" FROM "chat_message" WHERE ("chat_message"."mentions" @> '[:uid]' OR "chat_message"."sender_id" = :uid) ORDER BY "chat_message"."created_at" DESC LIMIT 20;

-- gallery: Message.objects.filter(room_id=rid, is_deleted=False,
--   attachments__contains=[{'kind': 'image'}]).order_by('-created_at')[:30]
SELECT "chat_message"."id", "chat_message"."created_at", "chat_message"."attachments", "chat_message"."sender_id" FROM "chat_message" WHERE ("chat_message"."attachments" @> '[{"kind": "image"}]' AND NOT "chat_message"."is_deleted" AND "chat_message"."room_id" = :rid) ORDER BY "chat_message"."created_at" DESC LIMIT 30;

-- thread: Message.objects.filter(reply_to_id=mid).order_by('created_at')
SELECT "chat_message"."id", "chat_message"."body", "chat_message"."created_at", "chat_message"."sender_id" FROM "chat_message" WHERE "chat_message"."reply_to_id" = :mid ORDER BY "chat_message"."created_at" ASC;

-- search in the room: Message.objects.filter(room_id=rid, body__icontains='deploy').order_by('-created_at')[:20]
SELECT "chat_message"."id", "chat_message"."body", "chat_message"."created_at", "chat_message"."sender_id" FROM "chat_message" WHERE ("chat_message"."room_id" = :rid AND UPPER("chat_message"."body"::text) LIKE UPPER('%deploy%')) ORDER BY "chat_message"."created_at" DESC LIMIT 20;
