/*-------------------------------------------------------------------------
 *
 * cache_key_settings.c
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
 * The planner's settings are in the key too: they do not change which rows
 * a statement returns, but they choose the plan, and without ORDER BY the
 * plan decides the order of the rows (a session that sets enable_hashagg =
 * off gets a sorted UNION from PostgreSQL, and must get it from the cache).
 * plan_cache_mode is not: a prepared statement's custom and generic plans
 * are the same statement, and under "auto" the setting does not say which
 * one runs.
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
#include "access/tableam.h"
#include "catalog/namespace.h"
#include "miscadmin.h"
#include "optimizer/cost.h"
#include "optimizer/geqo.h"
#include "optimizer/optimizer.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "pgtime.h"
#include "tsearch/ts_cache.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/bytea.h"
#include "utils/float.h"
#include "utils/guc.h"
#include "utils/pg_locale.h"
#include "utils/xml.h"

#include "cache/cache_internal.h"

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

/* The settings that choose a plan. */
typedef struct PlannerSettings
{
	double		seq_page_cost;
	double		random_page_cost;
	double		cpu_tuple_cost;
	double		cpu_index_tuple_cost;
	double		cpu_operator_cost;
	double		parallel_tuple_cost;
	double		parallel_setup_cost;
	double		recursive_worktable_factor;
	double		cursor_tuple_fraction;
	double		hash_mem_multiplier;
	double		geqo_selection_bias;
	double		geqo_seed;
	int32		effective_cache_size;
	int32		work_mem;
	int32		max_parallel_workers_per_gather;
	int32		min_parallel_table_scan_size;
	int32		min_parallel_index_scan_size;
	int32		debug_parallel_query;
	int32		constraint_exclusion;
	int32		from_collapse_limit;
	int32		join_collapse_limit;
	int32		geqo_threshold;
	int32		geqo_effort;
	int32		geqo_pool_size;
	int32		geqo_generations;
	bool		enable[22];
} PlannerSettings;

static void
append_planner_settings(StringInfo buf)
{
	PlannerSettings p;
	int			i = 0;

	memset(&p, 0, sizeof(p));
	p.seq_page_cost = seq_page_cost;
	p.random_page_cost = random_page_cost;
	p.cpu_tuple_cost = cpu_tuple_cost;
	p.cpu_index_tuple_cost = cpu_index_tuple_cost;
	p.cpu_operator_cost = cpu_operator_cost;
	p.parallel_tuple_cost = parallel_tuple_cost;
	p.parallel_setup_cost = parallel_setup_cost;
	p.recursive_worktable_factor = recursive_worktable_factor;
	p.cursor_tuple_fraction = cursor_tuple_fraction;
	p.hash_mem_multiplier = hash_mem_multiplier;
	p.geqo_selection_bias = Geqo_selection_bias;
	p.geqo_seed = Geqo_seed;
	p.effective_cache_size = effective_cache_size;
	p.work_mem = work_mem;
	p.max_parallel_workers_per_gather = max_parallel_workers_per_gather;
	p.min_parallel_table_scan_size = min_parallel_table_scan_size;
	p.min_parallel_index_scan_size = min_parallel_index_scan_size;
	p.debug_parallel_query = debug_parallel_query;
	p.constraint_exclusion = constraint_exclusion;
	p.from_collapse_limit = from_collapse_limit;
	p.join_collapse_limit = join_collapse_limit;
	p.geqo_threshold = geqo_threshold;
	p.geqo_effort = Geqo_effort;
	p.geqo_pool_size = Geqo_pool_size;
	p.geqo_generations = Geqo_generations;
	p.enable[i++] = enable_seqscan;
	p.enable[i++] = enable_indexscan;
	p.enable[i++] = enable_indexonlyscan;
	p.enable[i++] = enable_bitmapscan;
	p.enable[i++] = enable_tidscan;
	p.enable[i++] = enable_sort;
	p.enable[i++] = enable_incremental_sort;
	p.enable[i++] = enable_hashagg;
	p.enable[i++] = enable_nestloop;
	p.enable[i++] = enable_material;
	p.enable[i++] = enable_memoize;
	p.enable[i++] = enable_mergejoin;
	p.enable[i++] = enable_hashjoin;
	p.enable[i++] = enable_gathermerge;
	p.enable[i++] = enable_partitionwise_join;
	p.enable[i++] = enable_partitionwise_aggregate;
	p.enable[i++] = enable_parallel_append;
	p.enable[i++] = enable_parallel_hash;
	p.enable[i++] = enable_partition_pruning;
	p.enable[i++] = enable_async_append;
	p.enable[i++] = enable_geqo;
	p.enable[i++] = parallel_leader_participation;
	Assert(i == lengthof(p.enable));
	appendBinaryStringInfo(buf, (char *) &p, sizeof(p));
	/* synchronized scans start a table's scan where another one is */
	appendStringInfoChar(buf, synchronize_seqscans ? 's' : '-');
}

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
CacheKeySettingsAppend(StringInfo buf)
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
	append_planner_settings(buf);
}
