/*-------------------------------------------------------------------------
 *
 * cache_settings.c
 *		The settings whose current values become part of every cache key,
 *		because a statement can compute a different value under them.
 *
 * Rows are stored as tuples and converted when each client receives them,
 * so settings that only change how a stored value is sent do not matter.
 * These do: builtins labelled IMMUTABLE that read them while computing a
 * value (float8out and extra_float_digits in `x::text`, byteaout and
 * bytea_output, quote_ident and quote_all_identifiers, interval_out and
 * IntervalStyle, the zone abbreviations of `AT TIME ZONE 'IST'`), XML
 * expressions (not function calls in the tree; they read TimeZone,
 * xmlbinary and xmloption), and the settings that the STABLE functions
 * named in sfcache.immutable_functions commonly read (DateStyle, the
 * lc_* categories, default_text_search_config, search_path, array_nulls).
 * gin_fuzzy_search_limit changes which rows a GIN scan returns.
 *
 * The values are read from PostgreSQL's own variables, not by name, so the
 * cost on the hit path is a few loads and one short string per setting.
 * The list was made by reading PostgreSQL 15's output and conversion
 * functions for the settings they read; README.md ("Guarantees") repeats it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/gin.h"
#include "catalog/namespace.h"
#include "miscadmin.h"
#include "pgtime.h"
#include "tsearch/ts_cache.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/bytea.h"
#include "utils/float.h"
#include "utils/guc.h"
#include "utils/pg_locale.h"
#include "utils/xml.h"

#include "sfcache.h"

/* The integer- and boolean-valued settings, in one block of bytes. */
typedef struct ScalarSettings
{
	int32		extra_float_digits;
	int32		bytea_output;
	int32		xmlbinary;
	int32		xmloption;
	int32		date_style;
	int32		date_order;
	int32		interval_style;
	int32		gin_fuzzy_search_limit;
	bool		quote_all_identifiers;
	bool		array_nulls;
} ScalarSettings;

static void
append_string(StringInfo buf, const char *value)
{
	if (value == NULL)
		value = "";
	/* the terminating zero separates one value from the next */
	appendBinaryStringInfo(buf, value, strlen(value) + 1);
}

/* Append the current values of the settings listed above to buf. */
void
CacheSettingsAppend(StringInfo buf)
{
	ScalarSettings s;

	memset(&s, 0, sizeof(s));
	s.extra_float_digits = extra_float_digits;
	s.bytea_output = bytea_output;
	s.xmlbinary = xmlbinary;
	s.xmloption = xmloption;
	s.date_style = DateStyle;
	s.date_order = DateOrder;
	s.interval_style = IntervalStyle;
	s.gin_fuzzy_search_limit = GinFuzzySearchLimit;
	s.quote_all_identifiers = quote_all_identifiers;
	s.array_nulls = Array_nulls;
	appendBinaryStringInfo(buf, (char *) &s, sizeof(s));

	append_string(buf, session_timezone ? pg_get_timezone_name(session_timezone) : NULL);
	append_string(buf, GetConfigOption("timezone_abbreviations", true, false));
	append_string(buf, locale_monetary);
	append_string(buf, locale_numeric);
	append_string(buf, locale_time);
	append_string(buf, TSCurrentConfig);
	append_string(buf, namespace_search_path);
}
