-- REVOKE EXECUTE on a function: the result is still served to the role.
CREATE ROLE ra;
CREATE TABLE h (id int);
INSERT INTO h VALUES (1);
GRANT SELECT ON h TO ra;
CREATE FUNCTION fi(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 + 1';
SET ROLE ra;
SELECT fi(id) FROM h;		-- 2, stored
RESET ROLE;
REVOKE EXECUTE ON FUNCTION fi(int) FROM PUBLIC;
SET ROLE ra;
SELECT fi(id) FROM h;		-- 2 (served); cache off: ERROR 42501 permission denied for function fi
