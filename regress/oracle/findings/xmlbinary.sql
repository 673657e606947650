-- xmlbinary is not part of the key: XML built from bytea keeps the encoding
-- of the session that stored it.
CREATE TABLE f3 (b bytea);
INSERT INTO f3 VALUES ('\x01');
SET xmlbinary = hex;
SELECT xmlelement(name x, b)::text FROM f3;	-- <x>01</x>, stored
SET xmlbinary = base64;
SELECT xmlelement(name x, b)::text FROM f3;	-- <x>01</x> (stale); cache off: <x>AQ==</x>
