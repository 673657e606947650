-- XML expressions are not function calls; they read TimeZone and xmlbinary,
-- which are part of the key. (cache_xml_1.out: a server built without
-- libxml, as PostgreSQL's own xml_1.out.)
CREATE EXTENSION IF NOT EXISTS sfcache;
CREATE TABLE xml_measure (id int PRIMARY KEY, b bytea, ts timestamptz);
INSERT INTO xml_measure VALUES (1, '\x0102ff', '2026-01-02 03:04:05+00');
-- XML expressions are not function calls; they read TimeZone and xmlbinary
SET TimeZone = 'UTC';
SELECT xmlelement(name e, ts)::text FROM xml_measure WHERE id = 1;
SET TimeZone = 'Asia/Tokyo';
SELECT xmlelement(name e, ts)::text FROM xml_measure WHERE id = 1;
SET xmlbinary = 'base64';
SELECT xmlelement(name e, b)::text FROM xml_measure WHERE id = 1;
SET xmlbinary = 'hex';
SELECT xmlelement(name e, b)::text FROM xml_measure WHERE id = 1;
RESET xmlbinary;
RESET TimeZone;
DROP TABLE xml_measure;
