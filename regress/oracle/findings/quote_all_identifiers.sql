-- quote_all_identifiers is not part of the key (quote_ident() is IMMUTABLE
-- but reads it).
SELECT quote_ident('abc');	-- abc, stored
SET quote_all_identifiers = on;
SELECT quote_ident('abc');	-- abc (stale); cache off: "abc"
