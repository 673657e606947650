/*-------------------------------------------------------------------------
 *
 * cache_sql.c
 *		SQL-callable functions that act on the cache: sfcache.flush() and
 *		sfcache.invalidate(regclass).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/inval.h"
#include "utils/syscache.h"

#include "sfcache.h"

PG_FUNCTION_INFO_V1(sfcache_flush_0_1);
PG_FUNCTION_INFO_V1(sfcache_invalidate_0_1);

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
	Oid			relid = PG_GETARG_OID(0);

	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	InvalidateRelationNow(relid);
	CacheInvalidateRelcacheByRelid(relid);
	PG_RETURN_VOID();
}
