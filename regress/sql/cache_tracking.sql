-- Invalidation by key values: with a column tracked, a write drops the
-- cached results that compared it with a value the write touched (old or
-- new version of a row), and keeps the others. Every write path, every
-- way a statement restricts a relation, and every fallback to the whole
-- relation. :o shows the outcome of the next execution of a statement
-- (hit: kept; leader: dropped and recomputed).
CREATE EXTENSION IF NOT EXISTS sfcache;
SET sfcache.cache = on;
\set o 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF)'
-- Functions, views, policies and collations created later would drop
-- every result (they may change what any statement computes): all first.
CREATE TABLE notif (id int PRIMARY KEY, user_id int, course_id int, body text);
INSERT INTO notif SELECT g, g % 10, g % 3, 'n' || g FROM generate_series(1, 100) g;
CREATE TABLE app_user (id int PRIMARY KEY, name text);
INSERT INTO app_user SELECT g, 'user ' || g FROM generate_series(0, 9) g;
CREATE TABLE subscription (user_id int, course int);
INSERT INTO subscription SELECT g % 10, g FROM generate_series(1, 30) g;
CREATE VIEW my_notif AS SELECT id, user_id, body FROM notif;
CREATE FUNCTION add_notif(int, int) RETURNS void LANGUAGE sql
	AS 'INSERT INTO notif VALUES ($1, $2, 0, ''f'')';
CREATE TABLE secured (id int, user_id int);
INSERT INTO secured SELECT g, g % 5 FROM generate_series(1, 20) g;
ALTER TABLE secured ENABLE ROW LEVEL SECURITY;
CREATE ROLE regress_sfcache_tracking;
GRANT SELECT ON secured TO regress_sfcache_tracking;
CREATE POLICY only_user_3 ON secured TO regress_sfcache_tracking USING (user_id = 3);
CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE tagged (id int PRIMARY KEY, label varchar(20), label_ci text COLLATE ci, point point);
INSERT INTO tagged VALUES (1, 'a', 'a'), (2, 'b', 'b');

SELECT sfcache.track('notif', 'user_id');
SELECT sfcache.track('app_user', 'id');
SELECT sfcache.track('subscription', 'user_id');
SELECT sfcache.track('secured', 'user_id');
SELECT sfcache.track('tagged', 'label');
SELECT * FROM sfcache.tracked_columns ORDER BY relation::text;

-- Two readers, one per user, cached; then a write for user 5.
PREPARE u5 AS SELECT count(*) FROM notif WHERE user_id = 5;
PREPARE u7 AS SELECT count(*) FROM notif WHERE user_id = 7;
PREPARE up(int) AS SELECT count(*) FROM notif WHERE user_id = $1;
EXECUTE u5; EXECUTE u7; EXECUTE up(7);

-- INSERT
INSERT INTO notif VALUES (101, 5, 0, 'x');
:o EXECUTE u7;
:o EXECUTE up(7);
:o EXECUTE u5;
EXECUTE u5;
-- multi-row INSERT
INSERT INTO notif VALUES (102, 5, 0, 'x'), (103, 6, 0, 'x');
:o EXECUTE u7;
:o EXECUTE u5;
-- UPDATE of another column: the row's value is written again
UPDATE notif SET body = 'y' WHERE id = 102;
:o EXECUTE u7;
:o EXECUTE u5;
-- UPDATE moving a row from user 5 to user 7: both
UPDATE notif SET user_id = 7 WHERE id = 102;
:o EXECUTE u7;
:o EXECUTE u5;
EXECUTE u5; EXECUTE u7;
-- DELETE
DELETE FROM notif WHERE id = 103;
:o EXECUTE u7;
:o EXECUTE u5;
DELETE FROM notif WHERE id = 101;
:o EXECUTE u7;
:o EXECUTE u5;
EXECUTE u5;
-- INSERT ... ON CONFLICT DO UPDATE and DO NOTHING
INSERT INTO notif VALUES (1, 5, 0, 'z') ON CONFLICT (id) DO UPDATE SET body = excluded.body;
:o EXECUTE u7;
:o EXECUTE u5;
INSERT INTO notif VALUES (1, 5, 0, 'z') ON CONFLICT (id) DO NOTHING;
:o EXECUTE u7;
-- MERGE
MERGE INTO notif n USING (VALUES (5, 'merged')) v(id, body) ON n.id = v.id
	WHEN MATCHED THEN UPDATE SET body = v.body;
:o EXECUTE u7;
:o EXECUTE u5;
EXECUTE u5;
-- COPY FROM
COPY notif FROM stdin;
104	5	0	copied
\.
:o EXECUTE u7;
:o EXECUTE u5;
EXECUTE u5;
-- a write inside a function (SPI) and a rolled-back write
SELECT add_notif(105, 5);
:o EXECUTE u7;
:o EXECUTE u5;
EXECUTE u5;
BEGIN;
INSERT INTO notif VALUES (106, 5, 0, 'x');
ROLLBACK;
:o EXECUTE u7;
EXECUTE u5;

-- Restrictions that count: IN lists, = ANY of an array constant, a
-- cross-type comparison, a join's other side, USING, the nullable side of
-- an outer join, a view, a subquery, row security.
PREPARE in_list AS SELECT count(*) FROM notif WHERE user_id IN (1, 2);
PREPARE any_array AS SELECT count(*) FROM notif WHERE user_id = ANY ('{3,4}'::int[]);
PREPARE cross_type AS SELECT count(*) FROM notif WHERE user_id = '8'::bigint;
PREPARE joined AS SELECT u.name, count(*) FROM app_user u JOIN notif n ON n.user_id = u.id
	WHERE u.id = 9 GROUP BY u.name;
PREPARE using_col AS SELECT count(*) FROM subscription JOIN notif USING (user_id) WHERE user_id = 6;
PREPARE nullable AS SELECT count(n.id) FROM app_user u LEFT JOIN notif n ON n.user_id = u.id AND n.user_id = 8;
PREPARE via_view AS SELECT count(*) FROM my_notif WHERE user_id = 1;
PREPARE via_subquery AS SELECT count(*) FROM (SELECT * FROM notif WHERE course_id = 1) s WHERE s.user_id = 4;
PREPARE in_sublink AS SELECT count(*) FROM app_user WHERE id = 2 AND EXISTS (SELECT FROM notif WHERE user_id = 2);
EXECUTE in_list; EXECUTE any_array; EXECUTE cross_type; EXECUTE joined; EXECUTE using_col;
EXECUTE nullable; EXECUTE via_view; EXECUTE via_subquery; EXECUTE in_sublink;
SET ROLE regress_sfcache_tracking;
SELECT count(*) FROM secured;
RESET ROLE;
-- a write of other values keeps them all
INSERT INTO notif VALUES (107, 5, 0, 'x');
INSERT INTO secured VALUES (21, 4);
:o EXECUTE in_list;
:o EXECUTE any_array;
:o EXECUTE cross_type;
:o EXECUTE joined;
:o EXECUTE using_col;
:o EXECUTE nullable;
:o EXECUTE via_view;
:o EXECUTE via_subquery;
:o EXECUTE in_sublink;
SET ROLE regress_sfcache_tracking;
:o SELECT count(*) FROM secured;
RESET ROLE;
-- a write of one of its values drops each
INSERT INTO notif VALUES (108, 2, 0, 'x'), (109, 4, 1, 'x'), (110, 8, 0, 'x'),
	(111, 9, 0, 'x'), (112, 1, 0, 'x'), (113, 6, 0, 'x');
INSERT INTO secured VALUES (22, 3);
:o EXECUTE in_list;
:o EXECUTE any_array;
:o EXECUTE cross_type;
:o EXECUTE joined;
:o EXECUTE using_col;
:o EXECUTE nullable;
:o EXECUTE via_view;
:o EXECUTE via_subquery;
:o EXECUTE in_sublink;
SET ROLE regress_sfcache_tracking;
:o SELECT count(*) FROM secured;
SELECT count(*) FROM secured;
RESET ROLE;
EXECUTE in_list; EXECUTE any_array; EXECUTE cross_type; EXECUTE joined; EXECUTE using_col;
EXECUTE nullable; EXECUTE via_view; EXECUTE via_subquery; EXECUTE in_sublink;
-- the outer join's preserved side is not restricted: any app_user row
INSERT INTO app_user VALUES (10, 'user 10');
:o EXECUTE nullable;
:o EXECUTE joined;

-- Restrictions that do not count: the result depends on every row.
SELECT count(*) FROM notif WHERE user_id = 5 OR user_id = 6;
SELECT count(*) FROM notif WHERE user_id > 8;
SELECT count(*) FROM notif WHERE course_id = 2;
SELECT count(*) FROM notif n1 WHERE user_id = 3 AND EXISTS (SELECT 1 FROM notif n2 WHERE n2.id = n1.id + 1);
INSERT INTO notif VALUES (114, 0, 0, 'x');
:o SELECT count(*) FROM notif WHERE user_id = 5 OR user_id = 6;
:o SELECT count(*) FROM notif WHERE user_id > 8;
:o SELECT count(*) FROM notif WHERE course_id = 2;
:o SELECT count(*) FROM notif n1 WHERE user_id = 3 AND EXISTS (SELECT 1 FROM notif n2 WHERE n2.id = n1.id + 1);

-- Text keys (a varchar column compared as text). A nondeterministic
-- collation, or a type with no hash opclass, cannot be tracked: equal
-- values would not name the same tag.
SELECT count(*) FROM tagged WHERE label = 'a';
INSERT INTO tagged VALUES (3, 'b', 'B');
:o SELECT count(*) FROM tagged WHERE label = 'a';
INSERT INTO tagged VALUES (4, 'a', 'A');
:o SELECT count(*) FROM tagged WHERE label = 'a';
SELECT count(*) FROM tagged WHERE label = 'a';
SELECT sfcache.track('tagged', 'label_ci');
SELECT sfcache.track('tagged', 'point');

-- Partitions: the trigger is cloned to every partition; a write to one
-- drops its values' results over the partition and the partitioned table.
CREATE TABLE event (id int, user_id int, kind text) PARTITION BY LIST (kind);
CREATE TABLE event_a PARTITION OF event FOR VALUES IN ('a');
CREATE TABLE event_b PARTITION OF event FOR VALUES IN ('b');
SELECT sfcache.track('event', 'user_id');
CREATE TABLE event_c PARTITION OF event FOR VALUES IN ('c');
SELECT relation, column_name, active FROM sfcache.tracked_columns
WHERE relation::text LIKE 'event%' ORDER BY 1::text;
INSERT INTO event VALUES (1, 5, 'a'), (2, 7, 'b');
SELECT count(*) FROM event WHERE user_id = 5;
SELECT count(*) FROM event WHERE user_id = 7;
SELECT count(*) FROM event_b WHERE user_id = 7;
INSERT INTO event_c VALUES (3, 5, 'c');
:o SELECT count(*) FROM event WHERE user_id = 7;
:o SELECT count(*) FROM event_b WHERE user_id = 7;
:o SELECT count(*) FROM event WHERE user_id = 5;
SELECT count(*) FROM event WHERE user_id = 5;
-- a row moving between partitions is a delete and an insert
UPDATE event SET kind = 'a', user_id = 7 WHERE id = 2;
:o SELECT count(*) FROM event WHERE user_id = 7;
:o SELECT count(*) FROM event WHERE user_id = 5;

-- Writes made by PostgreSQL itself: foreign-key actions and a rule's extra
-- statement run through the executor, and the capture trigger sees each row.
CREATE TABLE parent (id int PRIMARY KEY);
CREATE TABLE child (id int PRIMARY KEY, pid int REFERENCES parent ON DELETE CASCADE ON UPDATE CASCADE);
CREATE TABLE parent_log (id int, parent_id int);
CREATE RULE log_parent AS ON INSERT TO parent DO ALSO INSERT INTO parent_log VALUES (NEW.id, NEW.id);
INSERT INTO parent VALUES (1), (2);
INSERT INTO child VALUES (10, 1), (11, 2);
SELECT sfcache.track('child', 'pid');
SELECT sfcache.track('parent_log', 'parent_id');
SELECT count(*) FROM child WHERE pid = 1;
SELECT count(*) FROM child WHERE pid = 2;
SELECT count(*) FROM parent_log WHERE parent_id = 3;
SELECT count(*) FROM parent_log WHERE parent_id = 1;
DELETE FROM parent WHERE id = 1;
:o SELECT count(*) FROM child WHERE pid = 2;
SELECT count(*) FROM child WHERE pid = 1;
UPDATE parent SET id = 20 WHERE id = 2;
SELECT count(*) FROM child WHERE pid = 2;
INSERT INTO parent VALUES (3);
:o SELECT count(*) FROM parent_log WHERE parent_id = 1;
SELECT count(*) FROM parent_log WHERE parent_id = 3;
DROP TABLE child, parent, parent_log;

-- More writers: a deferred constraint trigger writing at COMMIT, a
-- SECURITY DEFINER function; and a tracked column of a domain type, read
-- with a constant of its base type.
CREATE DOMAIN owner_id AS int CHECK (VALUE >= 0);
CREATE TABLE inbox (id int, owner owner_id);
CREATE TABLE outbox (id int, owner int);
CREATE FUNCTION deliver() RETURNS trigger LANGUAGE plpgsql AS
	'BEGIN INSERT INTO inbox VALUES (NEW.id, NEW.owner); RETURN NULL; END';
CREATE CONSTRAINT TRIGGER deliver AFTER INSERT ON outbox
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION deliver();
CREATE FUNCTION deliver_as_owner(int, int) RETURNS void LANGUAGE sql SECURITY DEFINER
	AS 'INSERT INTO inbox VALUES ($1, $2)';
INSERT INTO inbox VALUES (1, 5), (2, 7);
SELECT sfcache.track('inbox', 'owner');
SELECT count(*) FROM inbox WHERE owner = 5;
SELECT count(*) FROM inbox WHERE owner = 7;
BEGIN;
INSERT INTO outbox VALUES (3, 5);
COMMIT;
:o SELECT count(*) FROM inbox WHERE owner = 7;
:o SELECT count(*) FROM inbox WHERE owner = 5;
SELECT count(*) FROM inbox WHERE owner = 5;
SELECT deliver_as_owner(4, 7);
:o SELECT count(*) FROM inbox WHERE owner = 5;
SELECT count(*) FROM inbox WHERE owner = 7;
DROP TABLE inbox, outbox;
DROP FUNCTION deliver(), deliver_as_owner(int, int);
DROP DOMAIN owner_id;

-- Plain inheritance: a child's captured rows name no tag of its parent (only
-- partitioned ancestors), so writes through or below a tracked parent drop
-- every result over the parent; results over a tracked child alone survive.
CREATE TABLE animal (id int, owner_id int);
CREATE TABLE dog (breed text) INHERITS (animal);
INSERT INTO animal VALUES (1, 5), (2, 7);
INSERT INTO dog VALUES (3, 5, 'x'), (4, 7, 'y');
SELECT sfcache.track('animal', 'owner_id');
SELECT sfcache.track('dog', 'owner_id');
SELECT count(*) FROM animal WHERE owner_id = 5;
SELECT count(*) FROM dog WHERE owner_id = 7;
UPDATE animal SET owner_id = 7 WHERE id = 3;
:o SELECT count(*) FROM animal WHERE owner_id = 5;
SELECT count(*) FROM animal WHERE owner_id = 5;
:o SELECT count(*) FROM dog WHERE owner_id = 7;
SELECT count(*) FROM dog WHERE owner_id = 7;
SELECT count(*) FROM dog WHERE owner_id = 5;
INSERT INTO dog VALUES (5, 7, 'z');
:o SELECT count(*) FROM animal WHERE owner_id = 5;
:o SELECT count(*) FROM dog WHERE owner_id = 5;
DROP TABLE animal, dog;

-- Fallbacks to the whole relation.
SELECT count(*) FROM notif WHERE user_id = 7;
-- a disabled trigger captures nothing: every write drops every result
ALTER TABLE notif DISABLE TRIGGER sfcache_capture;
SELECT active FROM sfcache.tracked_columns WHERE relation = 'notif'::regclass;
SELECT count(*) FROM notif WHERE user_id = 7;
INSERT INTO notif VALUES (114, 5, 0, 'x');
:o SELECT count(*) FROM notif WHERE user_id = 7;
ALTER TABLE notif ENABLE ALWAYS TRIGGER sfcache_capture;
-- session_replication_role = replica still fires an ENABLE ALWAYS trigger
SELECT count(*) FROM notif WHERE user_id = 7;
SET session_replication_role = replica;
INSERT INTO notif VALUES (115, 5, 0, 'x');
RESET session_replication_role;
:o SELECT count(*) FROM notif WHERE user_id = 7;
-- dropping the trigger in the writing transaction, then writing
SELECT count(*) FROM notif WHERE user_id = 7;
BEGIN;
INSERT INTO notif VALUES (116, 5, 0, 'x');
SELECT sfcache.untrack('notif', 'user_id');
INSERT INTO notif VALUES (117, 5, 0, 'x');
COMMIT;
:o SELECT count(*) FROM notif WHERE user_id = 7;
SELECT * FROM sfcache.tracked_columns WHERE relation = 'notif'::regclass;
SELECT sfcache.track('notif', 'user_id');
-- TRUNCATE
SELECT count(*) FROM notif WHERE user_id = 7;
TRUNCATE notif;
:o SELECT count(*) FROM notif WHERE user_id = 7;
SELECT count(*) FROM notif WHERE user_id = 7;

-- A table written untracked, then tracked: the session forgets what it
-- knew of the table, and captures its next writes (u7 stays a hit).
CREATE TABLE late (id int, user_id int);
INSERT INTO late VALUES (1, 7);
SELECT sfcache.track('late', 'user_id');
SELECT count(*) FROM late WHERE user_id = 7;
INSERT INTO late VALUES (2, 5);
:o SELECT count(*) FROM late WHERE user_id = 7;
-- and untracked again, every write drops every result
SELECT sfcache.untrack('late', 'user_id');
SELECT count(*) FROM late WHERE user_id = 7;
INSERT INTO late VALUES (3, 5);
:o SELECT count(*) FROM late WHERE user_id = 7;
DROP TABLE late;

-- NULLs and unchanged values: an UPDATE to or from NULL names the value
-- it left or took; one that keeps the value names it, on every row of a
-- multi-row statement (the trigger looks its columns up at the first).
CREATE TABLE nulls (id int, user_id int, body text);
INSERT INTO nulls VALUES (1, 5, 'a'), (2, 5, 'b'), (3, 6, 'c'), (4, 7, 'd');
SELECT sfcache.track('nulls', 'user_id');
SELECT count(*) FROM nulls WHERE user_id = 5;
SELECT count(*) FROM nulls WHERE user_id = 7;
UPDATE nulls SET user_id = NULL WHERE id = 1;
:o SELECT count(*) FROM nulls WHERE user_id = 5;
:o SELECT count(*) FROM nulls WHERE user_id = 7;
UPDATE nulls SET user_id = 5 WHERE id = 1;
:o SELECT count(*) FROM nulls WHERE user_id = 5;
:o SELECT count(*) FROM nulls WHERE user_id = 7;
UPDATE nulls SET body = 'x' WHERE id IN (3, 4);
:o SELECT count(*) FROM nulls WHERE user_id = 5;
:o SELECT count(*) FROM nulls WHERE user_id = 7;
UPDATE nulls SET body = 'y' WHERE id IN (2, 3);
:o SELECT count(*) FROM nulls WHERE user_id = 5;
:o SELECT count(*) FROM nulls WHERE user_id = 7;
DROP TABLE nulls;

-- Bad input.
SELECT sfcache.track('notif', 'no_such_column');
SELECT sfcache.track('my_notif', 'user_id');
SELECT sfcache.track(NULL, 'user_id');
CREATE TABLE other (id int);
CREATE FUNCTION noop() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NULL; END';
CREATE TRIGGER sfcache_capture AFTER INSERT ON other FOR EACH ROW EXECUTE FUNCTION noop();
SELECT sfcache.track('other', 'id');
SELECT sfcache.capture();
CREATE TRIGGER wrong BEFORE INSERT ON other FOR EACH ROW EXECUTE FUNCTION sfcache.capture('id');
INSERT INTO other VALUES (1);
SET ROLE pg_monitor;
SELECT sfcache.track('notif', 'course_id');
RESET ROLE;

DROP TABLE notif, app_user, subscription, secured, tagged, event, other CASCADE;
DROP FUNCTION add_notif(int, int), noop();
DROP COLLATION ci;
DROP ROLE regress_sfcache_tracking;
