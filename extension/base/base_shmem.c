/*-------------------------------------------------------------------------
 *
 * base_shmem.c
 *		Owns sfcache's fixed shared memory: a registry of the parts each
 *		subsystem contributes ({tranche, size, init}), one request of all
 *		of them (from shmem_request_hook, which core_hooks.c owns) and one
 *		AddinShmemInitLock section that initialises them (from
 *		shmem_startup_hook), in the order they were registered: the order
 *		of the Init calls in _PG_init.
 *
 * As pg_stat_statements' pgss_memsize, a part's size() is pure: this file
 * alone requests space and LWLock tranches.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/timestamp.h"

#include "base/base.h"

#define SFC_MAX_SHMEM_PARTS 12

/* The module-wide header at the start of sfcache's shared memory. */
typedef struct SfcShared
{
	TimestampTz started_at;		/* when shared memory was (re)initialised */
	char		version[16];	/* library version that created it */
} SfcShared;

static SfcShared *sfc_shared = NULL;

static const SfcShmemPart *shmem_parts[SFC_MAX_SHMEM_PARTS];
static int	shmem_nparts = 0;

/* Add a subsystem's part; from _PG_init only. part must outlive the process. */
void
SfcShmemRegister(const SfcShmemPart *part)
{
	if (shmem_nparts >= SFC_MAX_SHMEM_PARTS)
		elog(ERROR, "too many sfcache shared memory parts");
	shmem_parts[shmem_nparts++] = part;
}

/* Request the space and locks of every part; from shmem_request_hook. */
void
SfcShmemRequest(void)
{
	RequestAddinShmemSpace(MAXALIGN(sizeof(SfcShared)));
	for (int i = 0; i < shmem_nparts; i++)
	{
		RequestAddinShmemSpace(shmem_parts[i]->size());
		if (shmem_parts[i]->tranche != NULL)
			RequestNamedLWLockTranche(shmem_parts[i]->tranche,
									  shmem_parts[i]->nlocks);
	}
}

/* Caller must hold AddinShmemInitLock. */
static void
sfc_shared_init(void)
{
	bool		found;

	sfc_shared = ShmemInitStruct("sfcache", sizeof(SfcShared), &found);
	if (!found)
	{
		sfc_shared->started_at = GetCurrentTimestamp();
		strlcpy(sfc_shared->version, SFCACHE_VERSION, sizeof(sfc_shared->version));
	}
}

/* Find or create every part; from shmem_startup_hook. */
void
SfcShmemStartup(void)
{
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	sfc_shared_init();
	for (int i = 0; i < shmem_nparts; i++)
		shmem_parts[i]->init();
	LWLockRelease(AddinShmemInitLock);
}

/* When the current shared memory was created: at server start or after a crash. */
TimestampTz
SfcSharedStartedAt(void)
{
	return sfc_shared ? sfc_shared->started_at : 0;
}
