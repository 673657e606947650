-- bench/messaging/data.sql
--
-- Owns: the deterministic data of the messaging benchmark (hashes of ids,
-- no random()), psql variable scale (default 1). Per scale: 10,000 users,
-- 2,000 rooms (a quarter direct), each user in 8 rooms; 400,000 messages
-- whose rooms follow a power law (room 1 is the busiest: a company-wide
-- channel), 2% deleted, 10% replies, 3% mention someone, 5% with an
-- attachment (images, files); "now" is 2026-11-02 09:00 UTC.

\if :{?scale}
\else
\set scale 1
\endif
CREATE FUNCTION pg_temp.u(i bigint, salt int) RETURNS float8 LANGUAGE sql IMMUTABLE
AS $$ SELECT (hashint8(i * 7919 + salt) & 2147483647)::float8 / 2147483647 $$;

INSERT INTO chat_user (id, username, display_name, is_active, last_seen)
SELECT i, 'user' || i, 'User ' || i, i % 50 <> 0, timestamptz '2026-11-02 09:00+00' - (i % 1000) * interval '1 minute'
FROM generate_series(1, 10000 * :scale) i;
INSERT INTO chat_room (id, name, is_direct, is_archived, created_at)
SELECT i, CASE WHEN i % 4 = 0 THEN 'dm-' ELSE 'channel-' END || i, i % 4 = 0, i % 40 = 0,
	timestamptz '2024-01-01 00:00+00' + i * interval '1 hour'
FROM generate_series(1, 2000 * :scale) i;
-- user u is in rooms 1 + (u * 7 + 131 * k) % rooms, k = 0..7 (and everyone in room 1)
INSERT INTO chat_membership (room_id, user_id, last_read_at, is_muted, joined_at)
SELECT DISTINCT ON (r, u) r, u, timestamptz '2026-11-02 09:00+00' - ((u * k) % 2000) * interval '1 minute',
	(u + k) % 10 = 0, timestamptz '2025-01-01 00:00+00'
FROM generate_series(1, 10000 * :scale) u, generate_series(0, 7) k,
	LATERAL (SELECT CASE WHEN k = 0 THEN 1 ELSE 1 + (u * 7 + 131 * k) % (2000 * :scale) END AS r) x;
SELECT setval('chat_user_id_seq', 10000 * :scale), setval('chat_room_id_seq', 2000 * :scale);

INSERT INTO chat_message (id, room_id, sender_id, body, created_at, edited_at, is_deleted, mentions, attachments, reply_to_id)
SELECT i, room, 1 + (hashint8(i) & 2147483647) % (10000 * :scale),
	CASE WHEN i % 97 = 0 THEN 'deploy of build ' || i || ' is done' ELSE 'message ' || i || ' about the weekly sync' END,
	timestamptz '2026-11-02 09:00+00' - (400000 * :scale - i) * interval '15 seconds',
	CASE WHEN i % 30 = 0 THEN timestamptz '2026-11-02 08:00+00' END,
	i % 50 = 0,
	CASE WHEN i % 33 = 0 THEN jsonb_build_array(1 + (i * 31) % (10000 * :scale)) ELSE '[]' END,
	CASE WHEN i % 20 = 0 THEN '[{"kind": "image", "size": 1024}]'
		 WHEN i % 20 = 1 THEN '[{"kind": "file", "size": 40960}]' ELSE '[]' END::jsonb,
	CASE WHEN i % 10 = 0 AND i > 100 THEN i - 1 - (i % 7) END
FROM generate_series(1, 400000 * :scale) i,
	LATERAL (SELECT 1 + floor((2000 * :scale) * pg_temp.u(i, 1) ^ 2)::int AS room) x;
SELECT setval('chat_message_id_seq', 400000 * :scale);
ANALYZE;
