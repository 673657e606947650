-- Index advice for the statements ORMs really send: Django 3.2 (psycopg2)
-- and SQLAlchemy 1.4 (psycopg2), captured from the server
-- (regress/orm/gen_django.py, regress/orm/gen_sqlalchemy.py; the text of
-- cursor.query, not str(queryset.query)).  One shape per block: what
-- sfcache.advice_quals records, and the index the advice suggests.
CREATE EXTENSION IF NOT EXISTS sfcache;
SET sfcache.cache = off;
SET max_parallel_workers_per_gather = 0;
SET sfcache.advice = on;
SET sfcache.advice_sample_rate = 1;
\i regress/data/advice_orm.sql

-- One shape: reset, run its statement, show the record and the advice.
CREATE FUNCTION pg_temp.quals() RETURNS TABLE (tablename name, expression text, operator text, qual_role text, kind "char")
LANGUAGE sql AS $$
SELECT tablename, expression, operator::text, qual_role, kind FROM sfcache.advice_quals ORDER BY 1, 2, 3, 4
$$;
CREATE FUNCTION pg_temp.advice() RETURNS TABLE (index_ddl text, cheaper boolean)
LANGUAGE sql AS $$
SELECT index_ddl, cost_after < cost_before FROM sfcache.index_advice ORDER BY 1
$$;

-- Django: Q(scope_ids__contains=[3]) | Q(scope_ids__contains=[22]), ordered, [:20]: one GIN index (BitmapOr of its scans)
SELECT sfcache.advice_reset();
SELECT "orm_announcement"."id", "orm_announcement"."university_id", "orm_announcement"."author_id", "orm_announcement"."editor_id", "orm_announcement"."title", "orm_announcement"."slug", "orm_announcement"."email", "orm_announcement"."status", "orm_announcement"."priority", "orm_announcement"."is_deleted", "orm_announcement"."is_pinned", "orm_announcement"."display_time", "orm_announcement"."scope_ids", "orm_announcement"."tags", "orm_announcement"."data", "orm_announcement"."labels" FROM "orm_announcement" WHERE ("orm_announcement"."scope_ids" @> '[3]' OR "orm_announcement"."scope_ids" @> '[22]') ORDER BY "orm_announcement"."display_time" DESC LIMIT 20 \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();

-- the headline: what sfcache.whatif prices that index at
SELECT cost_after < cost_before / 2 AS halved FROM sfcache.whatif(
	$$SELECT "orm_announcement"."id", "orm_announcement"."university_id", "orm_announcement"."author_id", "orm_announcement"."editor_id", "orm_announcement"."title", "orm_announcement"."slug", "orm_announcement"."email", "orm_announcement"."status", "orm_announcement"."priority", "orm_announcement"."is_deleted", "orm_announcement"."is_pinned", "orm_announcement"."display_time", "orm_announcement"."scope_ids", "orm_announcement"."tags", "orm_announcement"."data", "orm_announcement"."labels" FROM "orm_announcement" WHERE ("orm_announcement"."scope_ids" @> '[3]' OR "orm_announcement"."scope_ids" @> '[22]') ORDER BY "orm_announcement"."display_time" DESC LIMIT 20$$,
	ARRAY['CREATE INDEX ON orm_announcement USING gin (scope_ids jsonb_path_ops)']);
-- once the index exists, a BitmapOr over it with a filter: the filter's column is advised
CREATE INDEX orm_announcement_scope_ids_gin ON orm_announcement USING gin (scope_ids jsonb_path_ops);
SELECT sfcache.advice_reset();
SELECT "orm_announcement"."id" FROM "orm_announcement" WHERE (("orm_announcement"."scope_ids" @> '[3]' OR "orm_announcement"."scope_ids" @> '[22]') AND "orm_announcement"."university_id" = 4) \g /dev/null
SELECT * FROM pg_temp.quals();
DROP INDEX orm_announcement_scope_ids_gin;

-- Django: Q(tags__has_key='urgent') | Q(tags__has_key='pinned'): GIN, jsonb_ops for ?
SELECT sfcache.advice_reset();
SELECT "orm_announcement"."id", "orm_announcement"."university_id", "orm_announcement"."author_id", "orm_announcement"."editor_id", "orm_announcement"."title", "orm_announcement"."slug", "orm_announcement"."email", "orm_announcement"."status", "orm_announcement"."priority", "orm_announcement"."is_deleted", "orm_announcement"."is_pinned", "orm_announcement"."display_time", "orm_announcement"."scope_ids", "orm_announcement"."tags", "orm_announcement"."data", "orm_announcement"."labels" FROM "orm_announcement" WHERE ("orm_announcement"."tags" ? 'urgent' OR "orm_announcement"."tags" ? 'pinned') \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();

-- Django: Q(labels__overlap=['exam']) | Q(labels__overlap=['deadline']) on an ArrayField
SELECT sfcache.advice_reset();
SELECT "orm_announcement"."id", "orm_announcement"."university_id", "orm_announcement"."author_id", "orm_announcement"."editor_id", "orm_announcement"."title", "orm_announcement"."slug", "orm_announcement"."email", "orm_announcement"."status", "orm_announcement"."priority", "orm_announcement"."is_deleted", "orm_announcement"."is_pinned", "orm_announcement"."display_time", "orm_announcement"."scope_ids", "orm_announcement"."tags", "orm_announcement"."data", "orm_announcement"."labels" FROM "orm_announcement" WHERE ("orm_announcement"."labels" && ARRAY['exam']::text[] OR "orm_announcement"."labels" && ARRAY['deadline']::text[]) \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();

-- Django: Q(status='draft') | Q(status='review')
SELECT sfcache.advice_reset();
SELECT "orm_announcement"."id", "orm_announcement"."university_id", "orm_announcement"."author_id", "orm_announcement"."editor_id", "orm_announcement"."title", "orm_announcement"."slug", "orm_announcement"."email", "orm_announcement"."status", "orm_announcement"."priority", "orm_announcement"."is_deleted", "orm_announcement"."is_pinned", "orm_announcement"."display_time", "orm_announcement"."scope_ids", "orm_announcement"."tags", "orm_announcement"."data", "orm_announcement"."labels" FROM "orm_announcement" WHERE ("orm_announcement"."status" = 'draft' OR "orm_announcement"."status" = 'review') \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();

-- Django: Q(priority__lt=2) | Q(priority__gt=997)
SELECT sfcache.advice_reset();
SELECT "orm_announcement"."id", "orm_announcement"."university_id", "orm_announcement"."author_id", "orm_announcement"."editor_id", "orm_announcement"."title", "orm_announcement"."slug", "orm_announcement"."email", "orm_announcement"."status", "orm_announcement"."priority", "orm_announcement"."is_deleted", "orm_announcement"."is_pinned", "orm_announcement"."display_time", "orm_announcement"."scope_ids", "orm_announcement"."tags", "orm_announcement"."data", "orm_announcement"."labels" FROM "orm_announcement" WHERE ("orm_announcement"."priority" < 2 OR "orm_announcement"."priority" > 997) \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();

-- Django: Q(author_id=5) | Q(editor_id=5), author_id indexed (a ForeignKey's index): the other arm's index makes the BitmapOr
-- (editor_id is NULL on a quarter of the rows, and editor_id = 5 implies IS NOT NULL: the search takes the partial index)
CREATE INDEX "orm_announcement_author_id_1a2b3c4d" ON "orm_announcement" ("author_id");
SELECT sfcache.advice_reset();
SELECT "orm_announcement"."id", "orm_announcement"."university_id", "orm_announcement"."author_id", "orm_announcement"."editor_id", "orm_announcement"."title", "orm_announcement"."slug", "orm_announcement"."email", "orm_announcement"."status", "orm_announcement"."priority", "orm_announcement"."is_deleted", "orm_announcement"."is_pinned", "orm_announcement"."display_time", "orm_announcement"."scope_ids", "orm_announcement"."tags", "orm_announcement"."data", "orm_announcement"."labels" FROM "orm_announcement" WHERE ("orm_announcement"."author_id" = 5 OR "orm_announcement"."editor_id" = 5) \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();
DROP INDEX "orm_announcement_author_id_1a2b3c4d";

-- Django: status__in=[...], ordered by -display_time, [:20]
SELECT sfcache.advice_reset();
SELECT "orm_announcement"."id", "orm_announcement"."university_id", "orm_announcement"."author_id", "orm_announcement"."editor_id", "orm_announcement"."title", "orm_announcement"."slug", "orm_announcement"."email", "orm_announcement"."status", "orm_announcement"."priority", "orm_announcement"."is_deleted", "orm_announcement"."is_pinned", "orm_announcement"."display_time", "orm_announcement"."scope_ids", "orm_announcement"."tags", "orm_announcement"."data", "orm_announcement"."labels" FROM "orm_announcement" WHERE "orm_announcement"."status" IN ('draft', 'review') ORDER BY "orm_announcement"."display_time" DESC LIMIT 20 \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();

-- Django: filter(is_deleted=False, university_id=7): NOT col
SELECT sfcache.advice_reset();
SELECT "orm_announcement"."id", "orm_announcement"."university_id", "orm_announcement"."author_id", "orm_announcement"."editor_id", "orm_announcement"."title", "orm_announcement"."slug", "orm_announcement"."email", "orm_announcement"."status", "orm_announcement"."priority", "orm_announcement"."is_deleted", "orm_announcement"."is_pinned", "orm_announcement"."display_time", "orm_announcement"."scope_ids", "orm_announcement"."tags", "orm_announcement"."data", "orm_announcement"."labels" FROM "orm_announcement" WHERE (NOT "orm_announcement"."is_deleted" AND "orm_announcement"."university_id" = 7) \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();

-- Django: exclude(is_pinned=True) on a nullable BooleanField (the planner turns it into NOT is_pinned OR is_pinned IS NULL): the partial index's predicate
SELECT sfcache.advice_reset();
SELECT "orm_announcement"."id", "orm_announcement"."university_id", "orm_announcement"."author_id", "orm_announcement"."editor_id", "orm_announcement"."title", "orm_announcement"."slug", "orm_announcement"."email", "orm_announcement"."status", "orm_announcement"."priority", "orm_announcement"."is_deleted", "orm_announcement"."is_pinned", "orm_announcement"."display_time", "orm_announcement"."scope_ids", "orm_announcement"."tags", "orm_announcement"."data", "orm_announcement"."labels" FROM "orm_announcement" WHERE (NOT ("orm_announcement"."is_pinned" AND "orm_announcement"."is_pinned" IS NOT NULL) AND "orm_announcement"."university_id" = 7) \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();

-- Django: slug__startswith='exam-': LIKE 'x%' needs text_pattern_ops
SELECT sfcache.advice_reset();
SELECT "orm_announcement"."id", "orm_announcement"."university_id", "orm_announcement"."author_id", "orm_announcement"."editor_id", "orm_announcement"."title", "orm_announcement"."slug", "orm_announcement"."email", "orm_announcement"."status", "orm_announcement"."priority", "orm_announcement"."is_deleted", "orm_announcement"."is_pinned", "orm_announcement"."display_time", "orm_announcement"."scope_ids", "orm_announcement"."tags", "orm_announcement"."data", "orm_announcement"."labels" FROM "orm_announcement" WHERE "orm_announcement"."slug"::text LIKE 'exam-%' \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();

-- Django: title__istartswith='exam': UPPER(col) LIKE UPPER('x%'), an expression index
SELECT sfcache.advice_reset();
SELECT "orm_announcement"."id", "orm_announcement"."university_id", "orm_announcement"."author_id", "orm_announcement"."editor_id", "orm_announcement"."title", "orm_announcement"."slug", "orm_announcement"."email", "orm_announcement"."status", "orm_announcement"."priority", "orm_announcement"."is_deleted", "orm_announcement"."is_pinned", "orm_announcement"."display_time", "orm_announcement"."scope_ids", "orm_announcement"."tags", "orm_announcement"."data", "orm_announcement"."labels" FROM "orm_announcement" WHERE UPPER("orm_announcement"."title"::text) LIKE UPPER('exam%') \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();

-- Django: email__iexact: UPPER(col) = UPPER(...)
SELECT sfcache.advice_reset();
SELECT "orm_announcement"."id", "orm_announcement"."university_id", "orm_announcement"."author_id", "orm_announcement"."editor_id", "orm_announcement"."title", "orm_announcement"."slug", "orm_announcement"."email", "orm_announcement"."status", "orm_announcement"."priority", "orm_announcement"."is_deleted", "orm_announcement"."is_pinned", "orm_announcement"."display_time", "orm_announcement"."scope_ids", "orm_announcement"."tags", "orm_announcement"."data", "orm_announcement"."labels" FROM "orm_announcement" WHERE UPPER("orm_announcement"."email"::text) = UPPER('Ann@Example.com') \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();

-- Django: annotate(le=Lower('email')).filter(le=...)
SELECT sfcache.advice_reset();
SELECT "orm_announcement"."id", "orm_announcement"."university_id", "orm_announcement"."author_id", "orm_announcement"."editor_id", "orm_announcement"."title", "orm_announcement"."slug", "orm_announcement"."email", "orm_announcement"."status", "orm_announcement"."priority", "orm_announcement"."is_deleted", "orm_announcement"."is_pinned", "orm_announcement"."display_time", "orm_announcement"."scope_ids", "orm_announcement"."tags", "orm_announcement"."data", "orm_announcement"."labels", LOWER("orm_announcement"."email") AS "le" FROM "orm_announcement" WHERE LOWER("orm_announcement"."email") = 'ann@example.com' \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();

-- Django: data__kind='quiz' on a JSONField: (data -> 'kind') = '"quiz"'
SELECT sfcache.advice_reset();
SELECT "orm_announcement"."id", "orm_announcement"."university_id", "orm_announcement"."author_id", "orm_announcement"."editor_id", "orm_announcement"."title", "orm_announcement"."slug", "orm_announcement"."email", "orm_announcement"."status", "orm_announcement"."priority", "orm_announcement"."is_deleted", "orm_announcement"."is_pinned", "orm_announcement"."display_time", "orm_announcement"."scope_ids", "orm_announcement"."tags", "orm_announcement"."data", "orm_announcement"."labels" FROM "orm_announcement" WHERE ("orm_announcement"."data" -> 'kind') = '"quiz"' \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();

-- Django: KeyTextTransform('kind', 'data') compared: ->> with a constant
SELECT sfcache.advice_reset();
SELECT "orm_announcement"."id", "orm_announcement"."university_id", "orm_announcement"."author_id", "orm_announcement"."editor_id", "orm_announcement"."title", "orm_announcement"."slug", "orm_announcement"."email", "orm_announcement"."status", "orm_announcement"."priority", "orm_announcement"."is_deleted", "orm_announcement"."is_pinned", "orm_announcement"."display_time", "orm_announcement"."scope_ids", "orm_announcement"."tags", "orm_announcement"."data", "orm_announcement"."labels", ("orm_announcement"."data" ->> 'kind') AS "k" FROM "orm_announcement" WHERE ("orm_announcement"."data" ->> 'kind') = '"quiz"' \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();

-- A BitmapAnd of two single-column indexes (Django's db_index on two
-- fields): recorded as index conditions, and a compound index suggested.
CREATE INDEX "orm_announcement_university_id_5f6a7b8c" ON "orm_announcement" ("university_id");
CREATE INDEX "orm_announcement_author_id_1a2b3c4d" ON "orm_announcement" ("author_id");
SET enable_seqscan = off;
SET enable_indexscan = off;

SELECT sfcache.advice_reset();
SELECT "orm_announcement"."id" FROM "orm_announcement" WHERE ("orm_announcement"."author_id" = 9 AND "orm_announcement"."university_id" = 9) \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();
RESET enable_seqscan;
RESET enable_indexscan;
DROP INDEX "orm_announcement_university_id_5f6a7b8c", "orm_announcement_author_id_1a2b3c4d";

CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- SQLAlchemy: room_id == any_([3, 5, 8]), ordered, limit(50)
SELECT sfcache.advice_reset();
SELECT chat_message.id, chat_message.room_id, chat_message.sender_id, chat_message.body, chat_message.is_read, chat_message.sent_at, chat_message.meta 
FROM chat_message 
WHERE chat_message.room_id = ANY (ARRAY[3,5,8]) ORDER BY chat_message.sent_at DESC 
 LIMIT 50 \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();

-- SQLAlchemy: room_id.in_([3, 5, 8])
SELECT sfcache.advice_reset();
SELECT chat_message.id, chat_message.room_id, chat_message.sender_id, chat_message.body, chat_message.is_read, chat_message.sent_at, chat_message.meta 
FROM chat_message 
WHERE chat_message.room_id IN (3, 5, 8) \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();

-- SQLAlchemy: is_read.is_not(True): IS NOT TRUE, only a predicate serves it
SELECT sfcache.advice_reset();
SELECT chat_message.id, chat_message.room_id, chat_message.sender_id, chat_message.body, chat_message.is_read, chat_message.sent_at, chat_message.meta 
FROM chat_message 
WHERE chat_message.room_id = 3 AND chat_message.is_read IS NOT true \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();

-- SQLAlchemy: body.ilike('hello%'): pg_trgm's gin_trgm_ops
SELECT sfcache.advice_reset();
SELECT chat_message.id, chat_message.room_id, chat_message.sender_id, chat_message.body, chat_message.is_read, chat_message.sent_at, chat_message.meta 
FROM chat_message 
WHERE chat_message.body ILIKE 'hello%' \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();

-- SQLAlchemy: func.lower(body) == 'hello'
SELECT sfcache.advice_reset();
SELECT chat_message.id, chat_message.room_id, chat_message.sender_id, chat_message.body, chat_message.is_read, chat_message.sent_at, chat_message.meta 
FROM chat_message 
WHERE lower(chat_message.body) = 'hello' \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();

-- SQLAlchemy: meta['kind'].astext == 'system'
SELECT sfcache.advice_reset();
SELECT chat_message.id, chat_message.room_id, chat_message.sender_id, chat_message.body, chat_message.is_read, chat_message.sent_at, chat_message.meta 
FROM chat_message 
WHERE (chat_message.meta ->> 'kind') = 'system' \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();

-- SQLAlchemy: or_(sender_id == 7, room_id == 7), room_id indexed: sender_id's index makes the BitmapOr
CREATE INDEX ix_chat_message_room_id ON chat_message (room_id);
SELECT sfcache.advice_reset();
SELECT chat_message.id, chat_message.room_id, chat_message.sender_id, chat_message.body, chat_message.is_read, chat_message.sent_at, chat_message.meta 
FROM chat_message 
WHERE chat_message.sender_id = 7 OR chat_message.room_id = 7 \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();
DROP INDEX ix_chat_message_room_id;

-- SQLAlchemy: not_(is_read)
SELECT sfcache.advice_reset();
SELECT chat_message.id, chat_message.room_id, chat_message.sender_id, chat_message.body, chat_message.is_read, chat_message.sent_at, chat_message.meta 
FROM chat_message 
WHERE chat_message.room_id = 3 AND NOT chat_message.is_read \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();

-- without pg_trgm, ILIKE is recorded but nothing can be suggested
DROP EXTENSION pg_trgm;
SELECT sfcache.advice_reset();
SELECT chat_message.id, chat_message.room_id, chat_message.sender_id, chat_message.body, chat_message.is_read, chat_message.sent_at, chat_message.meta 
FROM chat_message 
WHERE chat_message.body ILIKE 'hello%' \g /dev/null
SELECT * FROM pg_temp.quals();
SELECT * FROM pg_temp.advice();

DROP TABLE orm_announcement, chat_message;
SELECT sfcache.advice_reset();
