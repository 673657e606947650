/*-------------------------------------------------------------------------
 *
 * cache_sql.c
 *		SQL-callable functions that act on the whole cache: sfcache.flush(),
 *		sfcache.invalidate(regclass) and the sfcache.stats view (the
 *		counters of cache_stats.c with the usage of cache_store.c).
 *
 * sfcache.flush() is revoked from PUBLIC by the install script.  Anybody
 * may call sfcache.invalidate(), but only on a relation whose owner's
 * privileges they have (or as superuser): dropping other roles' results
 * over and over would deny them the cache.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "cache/cache_internal.h"

SFC_FUNCTION_INFO_V1(sfcache_flush_0_1);
SFC_FUNCTION_INFO_V1(sfcache_invalidate_0_1);
SFC_FUNCTION_INFO_V1(sfcache_stats_0_1);
SFC_FUNCTION_INFO_V1(sfcache_stats_0_4);

/* Drop every cached result, in every database. */
Datum
sfcache_flush_0_1(PG_FUNCTION_ARGS)
{
	CacheFlushAll();
	PG_RETURN_VOID();
}

/*
 * Invalidate the results that read a relation (with its partitions and
 * inheritance children), for changes sfcache cannot see itself; and, at
 * commit, the plans that read it, so that prepared statements pick up a new
 * TTL or exclusion (sfcache.set_ttl() and friends call this).
 */
Datum
sfcache_invalidate_0_1(PG_FUNCTION_ARGS)
{
	Oid			relid;
	char		relkind;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("relation passed to sfcache.invalidate() must not be null"),
				 errhint("Pass a table, view or materialized view, for example 'public.announcement'::regclass.")));
	relid = PG_GETARG_OID(0);
	relkind = get_rel_relkind(relid);
	if (relkind == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE &&
		relkind != RELKIND_VIEW && relkind != RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table, view or materialized view",
						get_rel_name(relid)),
				 errdetail("sfcache.invalidate() applies to the relations that cached statements read.")));
	if (!object_ownercheck(RelationRelationId, relid, GetUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of table %s", get_rel_name(relid)),
				 errdetail("Only the owner of a relation (or a superuser) may invalidate the results that read it."),
				 errhint("To drop every cached result, a superuser can call sfcache.flush().")));
	CacheInvalidateRelationNow(relid);
	CacheInvalidateRelcacheByRelid(relid);
	PG_RETURN_VOID();
}

/*
 * A row of sfcache.stats_counters: the first ncounters global counters,
 * then bypasses, bytes and entries in use, untracked statements, the
 * times (with_times), reset time.
 */
static Datum
stats_row(FunctionCallInfo fcinfo, int ncounters, bool with_times)
{
	TupleDesc	tupdesc;
	Datum		values[CACHE_NUM_STATS + CACHE_NUM_TIMES + 5];
	bool		nulls[CACHE_NUM_STATS + CACHE_NUM_TIMES + 5] = {0};
	CacheStatsTotal totals;
	uint64		bytes,
				nentries;
	int			n = 0;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	CacheStatsTotals(&totals);
	for (int i = 0; i < ncounters; i++)
		values[n++] = Int64GetDatum(totals.counters[i]);
	CacheStoreUsage(&bytes, &nentries);
	values[n++] = Int64GetDatum(totals.bypasses);
	values[n++] = Int64GetDatum(bytes);
	values[n++] = Int64GetDatum(nentries);
	values[n++] = Int64GetDatum(totals.untracked);
	for (int i = 0; with_times && i < CACHE_NUM_TIMES; i++)
		values[n++] = CacheStatsMsDatum(totals.times_us[i]);
	values[n++] = TimestampTzGetDatum(totals.reset_at);
	if (n != tupdesc->natts)
		elog(ERROR, "sfcache.stats_counters() returns %d columns, not %d",
			 tupdesc->natts, n);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* sfcache.stats of 0.3: the counters up to wait_timeouts. */
Datum
sfcache_stats_0_1(PG_FUNCTION_ARGS)
{
	return stats_row(fcinfo, CACHE_NUM_STATS_0_1, false);
}

/* sfcache.stats: every counter, in CacheStat's order, and the times. */
Datum
sfcache_stats_0_4(PG_FUNCTION_ARGS)
{
	return stats_row(fcinfo, CACHE_NUM_STATS, true);
}
