/*-------------------------------------------------------------------------
 *
 * cache_init.c
 *		The result cache's Init, called once from _PG_init: its settings,
 *		its parts of shared memory (generations, the standby's state of the
 *		WAL invalidations, ancestors' epoch, store, admission, statistics,
 *		initialised in that order), singleflight as
 *		the owner of entry states the store asks before evicting, its
 *		custom scan, the relcache callbacks of the per-relation settings and
 *		the WAL resource manager. Its hooks are installed by
 *		core (core_hooks.c), which calls the entry points in cache.h.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"


#include "cache/cache_internal.h"

void
CacheInit(void)
{
	CacheGucInit();
	SfcShmemRegister(&CacheInvalShmemPart);
	SfcShmemRegister(&CacheWalStandbyShmemPart);
	SfcShmemRegister(&CacheAncestorsShmemPart);
	SfcShmemRegister(&CacheStoreShmemPart);
	SfcShmemRegister(&CacheAdmitShmemPart);
	SfcShmemRegister(&CacheStatsShmemPart);
	CacheSingleflightInit();
	CacheScanInit();
	CacheRelationSettingsInit();
	CacheWalInit();
}
