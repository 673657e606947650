-- A cached result is never served to a role that could not read it:
-- permission checks run on every hit and the role is part of the key, so
-- row security policies hold per role.
CREATE EXTENSION IF NOT EXISTS sfcache;
CREATE ROLE sfc_teacher;
CREATE ROLE sfc_student;
CREATE TABLE grade (student text, course text, score int);
INSERT INTO grade VALUES ('ann', 'math', 90), ('bob', 'math', 70), ('ann', 'art', 80);
CREATE TABLE secret (note text);
INSERT INTO secret VALUES ('exam answers');
GRANT SELECT ON grade TO sfc_teacher, sfc_student;
GRANT SELECT ON secret TO sfc_teacher;
ALTER TABLE grade ENABLE ROW LEVEL SECURITY;
CREATE POLICY teacher_all ON grade TO sfc_teacher USING (true);
CREATE POLICY student_own ON grade TO sfc_student USING (student = 'ann');

-- the teacher caches a result the student may not read
SET ROLE sfc_teacher;
SELECT note FROM secret;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT note FROM secret;
SET ROLE sfc_student;
SELECT note FROM secret;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT note FROM secret;

-- the same statement under two policies
SET ROLE sfc_teacher;
SELECT student, course, score FROM grade ORDER BY score;
SELECT student, course, score FROM grade ORDER BY score;
SET ROLE sfc_student;
SELECT student, course, score FROM grade ORDER BY score;
SELECT student, course, score FROM grade ORDER BY score;

-- a revoked privilege takes effect at once, cache or not
RESET ROLE;
REVOKE SELECT ON secret FROM sfc_teacher;
SET ROLE sfc_teacher;
SELECT note FROM secret;
RESET ROLE;

-- other roles' statements need pg_read_all_stats
SET ROLE sfc_student;
SELECT count(*) > 0 AS sees_own FROM sfcache.statements WHERE userid = 'sfc_student'::regrole;
SELECT count(*) AS sees_others FROM sfcache.statements WHERE userid <> 'sfc_student'::regrole;
SELECT sfcache.flush();
SELECT sfcache.reset();
SELECT sfcache.set_ttl('grade', '1 minute');
INSERT INTO sfcache.relation_settings VALUES ('grade', 60, true);
SELECT count(*) AS visible_settings FROM sfcache.relation_settings;
RESET ROLE;
ALTER TABLE grade OWNER TO sfc_student;
SET ROLE sfc_student;
SELECT sfcache.set_ttl('grade', '1 minute');
SELECT relid, ttl_seconds FROM sfcache.relation_settings;
RESET ROLE;
GRANT pg_read_all_stats TO sfc_student;
SET ROLE sfc_student;
SELECT count(*) > 0 AS sees_others FROM sfcache.statements WHERE userid <> 'sfc_student'::regrole;
RESET ROLE;

DROP TABLE grade, secret;
DROP ROLE sfc_teacher, sfc_student;
