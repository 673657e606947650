-- A deferred constraint trigger whose PL/pgSQL runs a SELECT at COMMIT:
-- the SELECT is planned at nesting level 0 and gets the cache node, which
-- PL/pgSQL's executor does not expect.
CREATE TABLE t1 (id int, k int);
CREATE FUNCTION trg_deferred() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE n int; BEGIN SELECT count(*) INTO n FROM t1 WHERE k = NEW.k; RETURN NULL; END $$;
CREATE CONSTRAINT TRIGGER t1_deferred AFTER INSERT ON t1
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION trg_deferred();
INSERT INTO t1 VALUES (1, 1);	-- ERROR XX000: unexpected plan node type: 36 (cache off: INSERT 0 1)
