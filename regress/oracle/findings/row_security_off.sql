-- row_security = off for a role that is not the owner of the extension's
-- sfcache.relation_settings (which has row security): the first cacheable
-- SELECT of the session fails while the cache loads the relation settings.
CREATE ROLE ra;
CREATE TABLE ft (id int);
GRANT SELECT ON ft TO ra;
\c
SET ROLE ra;
SET row_security = off;
SELECT * FROM ft;	-- ERROR 42501: query would be affected by row-level security policy for table "relation_settings"
			-- (cache off: 0 rows)
