-- ALTER DOMAIN ADD CONSTRAINT does not invalidate: a cast that must now fail is served.
CREATE DOMAIN dp AS int CHECK (VALUE > 0);
SELECT 5::dp;			-- 5, stored
ALTER DOMAIN dp ADD CONSTRAINT c2 CHECK (VALUE < 3);
SELECT 5::dp;			-- 5 (stale); cache off: ERROR 23514 violates check constraint "c2"
