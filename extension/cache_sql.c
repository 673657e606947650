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
 * inheritance children), for changes sfcache cannot see itself.
 */
Datum
sfcache_invalidate_0_1(PG_FUNCTION_ARGS)
{
	InvalidateRelationNow(PG_GETARG_OID(0));
	PG_RETURN_VOID();
}
