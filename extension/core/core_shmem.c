/*-------------------------------------------------------------------------
 *
 * shmem.c
 *		Owns sfcache's fixed shared memory: asks for it from
 *		shmem_request_hook and creates it from shmem_startup_hook.
 *
 * Each subsystem that needs shared state adds its size and its
 * initialisation here, so that there is exactly one request and one
 * AddinShmemInitLock section for the whole module.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/timestamp.h"

#include "sfcache.h"
#include "advice.h"

/* The module-wide header at the start of sfcache's shared memory. */
typedef struct SfcacheShared
{
	TimestampTz started_at;		/* when shared memory was (re)initialised */
	char		version[16];	/* library version that created it */
} SfcacheShared;

static SfcacheShared *sfc_shared = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static void sfc_shmem_request(void);
static void sfc_shmem_startup(void);

void
SfcacheShmemInit(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = sfc_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = sfc_shmem_startup;
}

static void
sfc_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();

	RequestAddinShmemSpace(MAXALIGN(sizeof(SfcacheShared)));
	RequestAddinShmemSpace(InvalShmemSize());
	RequestAddinShmemSpace(CacheStoreShmemSize());
	RequestAddinShmemSpace(CacheStatsShmemSize());
	AdviceShmemRequest();
}

static void
sfc_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	sfc_shared = ShmemInitStruct("sfcache", sizeof(SfcacheShared), &found);
	if (!found)
	{
		sfc_shared->started_at = GetCurrentTimestamp();
		strlcpy(sfc_shared->version, SFCACHE_VERSION, sizeof(sfc_shared->version));
	}
	InvalShmemInit();
	CacheStoreShmemInit();
	CacheStatsShmemInit();
	AdviceShmemStartup();
	LWLockRelease(AddinShmemInitLock);
}

/* When the current shared memory was created: at server start or after a crash. */
TimestampTz
SfcacheSharedStartedAt(void)
{
	return sfc_shared ? sfc_shared->started_at : 0;
}
