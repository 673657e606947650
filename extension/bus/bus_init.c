/*-------------------------------------------------------------------------
 *
 * bus_init.c
 *		The bus's Init, from _PG_init: its settings, its shared memory part,
 *		the cache's commit callback, standby rule and shared result tier,
 *		and its background worker.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "bus/bus_internal.h"

void
BusInit(void)
{
	BusGucInit();
	SfcShmemRegister(&BusShmemPart);
	CacheRegisterCommitCallback(BusCommitCallback);
	CacheRegisterStandbyCheck(BusStandbyCheck);
	CacheRegisterSharedTier(&BusSharedTier);
	BusRegisterWorker();
}
