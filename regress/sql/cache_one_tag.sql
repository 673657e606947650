-- One tag is enough (cache_tags.c): an occurrence restricted by equality
-- on several tracked columns depends on one of them, the most selective by
-- pg_statistic, not on the one with fewest values or the first conjunct.
-- The statements are Django 3.2's (Notification.objects.filter(...).count():
-- Q sorts its keyword arguments, so status comes before user_id).
CREATE EXTENSION IF NOT EXISTS sfcache;
SELECT sfcache.flush();
\set o 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF)'
-- a schema of its own: other tests have an lms_notification in public
CREATE SCHEMA one_tag;
SET search_path = one_tag, public;

CREATE TABLE lms_notification (id serial PRIMARY KEY, user_id int NOT NULL,
	status varchar(10) NOT NULL, body text);
INSERT INTO lms_notification (user_id, status, body)
SELECT g % 200 + 1, (ARRAY['unread', 'read', 'archived'])[g % 3 + 1], 'n' || g
FROM generate_series(1, 3000) g;
ANALYZE lms_notification;
SELECT sfcache.track('lms_notification', 'user_id');
SELECT sfcache.track('lms_notification', 'status');
SELECT attname, n_distinct FROM pg_stats
WHERE schemaname = 'one_tag' AND tablename = 'lms_notification' AND attname IN ('user_id', 'status') ORDER BY attname;

-- filter(user_id=17, status='unread').count(): depends on user_id's tag.
:o SELECT COUNT(*) AS "__count" FROM "lms_notification" WHERE ("lms_notification"."status" = 'unread' AND "lms_notification"."user_id" = 17);
-- a new unread notification for user 99 keeps user 17's count
INSERT INTO lms_notification (user_id, status, body) VALUES (99, 'unread', 'for 99');
:o SELECT COUNT(*) AS "__count" FROM "lms_notification" WHERE ("lms_notification"."status" = 'unread' AND "lms_notification"."user_id" = 17);
-- one for user 17 drops it, whatever its status
INSERT INTO lms_notification (user_id, status, body) VALUES (17, 'read', 'for 17');
:o SELECT COUNT(*) AS "__count" FROM "lms_notification" WHERE ("lms_notification"."status" = 'unread' AND "lms_notification"."user_id" = 17);
SELECT COUNT(*) AS "__count" FROM "lms_notification" WHERE ("lms_notification"."status" = 'unread' AND "lms_notification"."user_id" = 17);
-- an update that moves a row of user 17 to another status drops it too
UPDATE lms_notification SET status = 'unread' WHERE user_id = 17 AND body = 'for 17';
SELECT COUNT(*) AS "__count" FROM "lms_notification" WHERE ("lms_notification"."status" = 'unread' AND "lms_notification"."user_id" = 17);

-- filter(user_id__in=[17, 18], status='unread'): two values of user_id
-- (2/200 of the rows) still beat one of status (1/3): user_id's tags.
:o SELECT COUNT(*) AS "__count" FROM "lms_notification" WHERE ("lms_notification"."status" = 'unread' AND "lms_notification"."user_id" IN (17, 18));
INSERT INTO lms_notification (user_id, status, body) VALUES (99, 'unread', 'again for 99');
:o SELECT COUNT(*) AS "__count" FROM "lms_notification" WHERE ("lms_notification"."status" = 'unread' AND "lms_notification"."user_id" IN (17, 18));
INSERT INTO lms_notification (user_id, status, body) VALUES (18, 'unread', 'for 18');
:o SELECT COUNT(*) AS "__count" FROM "lms_notification" WHERE ("lms_notification"."status" = 'unread' AND "lms_notification"."user_id" IN (17, 18));
SELECT COUNT(*) AS "__count" FROM "lms_notification" WHERE ("lms_notification"."status" = 'unread' AND "lms_notification"."user_id" IN (17, 18));

-- The same with the conjuncts the other way round, and as a prepared
-- statement (psycopg2 sends literals; the extended protocol sends $n).
PREPARE unread (int) AS SELECT COUNT(*) AS "__count" FROM "lms_notification" WHERE ("lms_notification"."user_id" = $1 AND "lms_notification"."status" = 'unread');
EXECUTE unread(17);
INSERT INTO lms_notification (user_id, status, body) VALUES (99, 'unread', 'third for 99');
:o EXECUTE unread(17);
DEALLOCATE unread;

DROP TABLE lms_notification;
RESET search_path;
DROP SCHEMA one_tag;
