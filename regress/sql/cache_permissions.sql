-- A hit checks the privileges on relations a real execution would: the
-- table's, a column's, a view's (its owner's on the tables under it). A
-- GRANT or REVOKE on a relation drops no stored result (the key has the
-- role in it): the hits after a REVOKE must refuse. (From PostgreSQL 16 on the
-- executor checks them from the plan's permission infos: the cache plan
-- carries them, base_rtable.c.)
CREATE EXTENSION IF NOT EXISTS sfcache;
CREATE ROLE sfc_perm_user;
CREATE ROLE sfc_perm_group;
CREATE TABLE perm_grade (id int PRIMARY KEY, student text, score int);
INSERT INTO perm_grade VALUES (1, 'ada', 90), (2, 'bob', 70);
CREATE VIEW perm_scores AS SELECT id, score FROM perm_grade;
GRANT SELECT ON perm_grade TO sfc_perm_group;
GRANT SELECT (id, score) ON perm_grade TO sfc_perm_user;
GRANT SELECT ON perm_scores TO sfc_perm_group;
GRANT sfc_perm_group TO sfc_perm_user;
SELECT sfcache.reset();

SET ROLE sfc_perm_user;
SELECT student FROM perm_grade WHERE id = 1;
SELECT student FROM perm_grade WHERE id = 1;
SELECT score FROM perm_grade WHERE id = 2;
SELECT score FROM perm_grade WHERE id = 2;
SELECT id FROM perm_grade WHERE id = 2;
SELECT id FROM perm_grade WHERE id = 2;
SELECT score FROM perm_scores WHERE id = 1;
SELECT score FROM perm_scores WHERE id = 1;
PREPARE perm_student AS SELECT student FROM perm_grade WHERE id = $1;
EXECUTE perm_student(2);
EXECUTE perm_student(2);
RESET ROLE;
SELECT query, hits FROM sfcache.statements
WHERE query LIKE '%perm_%' AND query NOT LIKE '%sfcache%' ORDER BY query;

-- REVOKEs on the table, a column and the view: refused on a hit; the
-- column still granted is still served from the cache
REVOKE SELECT ON perm_grade FROM sfc_perm_group;
REVOKE SELECT (score) ON perm_grade FROM sfc_perm_user;
REVOKE SELECT ON perm_scores FROM sfc_perm_group;
SET ROLE sfc_perm_user;
SELECT student FROM perm_grade WHERE id = 1;
SELECT score FROM perm_grade WHERE id = 2;
SELECT score FROM perm_scores WHERE id = 1;
EXECUTE perm_student(2);
SELECT id FROM perm_grade WHERE id = 2;
RESET ROLE;
SELECT query, hits FROM sfcache.statements
WHERE query LIKE '%perm_%' AND query NOT LIKE '%sfcache%' ORDER BY query;

DEALLOCATE perm_student;
DROP VIEW perm_scores;
DROP TABLE perm_grade;
DROP ROLE sfc_perm_user, sfc_perm_group;
