/*-------------------------------------------------------------------------
 *
 * bus_shmem.c
 *		Owns the bus's shared memory: the queue of committed transactions
 *		the worker publishes, the committing backends' marks the worker's
 *		watermark is computed from, the peers, the counters and the
 *		standby's horizon (read by bus_standby.c, written by
 *		bus_receive.c).
 *
 * The committing backend's side (BusCommitCallback) only copies into
 * shared memory: no network, no waiting beyond the queue's LWLock, held for
 * one copy. A full queue sets the overflow flag instead; the worker then
 * publishes a "flush everything of this node" message.
 *
 * The watermark: at BEGIN (before its commit record is written) a backend
 * stores the current WAL insert position in its slot of committing[]; at
 * DONE it queues its commit, then clears the slot. The worker reads the
 * insert position W, then the slots (a full barrier between), lowers W to
 * the smallest slot set, and publishes W only after draining the queue: a
 * commit whose record ends at or before W has either been queued before
 * its slot was cleared, or set its slot before W was read (its record
 * lies after its slot's value, so W is below it), or was dropped from a
 * full queue after setting the overflow flag, which the worker reads after
 * W and answers with a flush published before W. So "every commit up to W
 * has been published" holds once W is: the worker announces it in a
 * heartbeat after the drain (bus_worker.c), never in the drained messages.
 *
 * Locking: bus_shared->lock protects the queue, the peers, the state and
 * the error text; the counters, the overflow flag, the marks and the
 * horizon are atomics.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/twophase.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/timestamp.h"

#include "bus/bus_internal.h"

BusShared  *bus_shared = NULL;

static int
committing_slots(void)
{
	return MaxBackends + NUM_AUXILIARY_PROCS + max_prepared_xacts;
}

/* Pure: the shared struct with one mark per process. */
static Size
bus_shmem_size(void)
{
	return add_size(offsetof(BusShared, committing),
					mul_size(sizeof(pg_atomic_uint64), committing_slots()));
}

/* Caller must hold AddinShmemInitLock. */
static void
bus_shmem_init(void)
{
	bool		found;

	bus_shared = ShmemInitStruct("sfcache bus", bus_shmem_size(), &found);
	if (found)
		return;
	memset(bus_shared, 0, offsetof(BusShared, counters));
	bus_shared->lock = &(GetNamedLWLockTranche("sfcache bus"))->lock;
	bus_shared->state = BUS_NOT_CONFIGURED;
	bus_shared->state_since = GetCurrentTimestamp();
	pg_atomic_init_u32(&bus_shared->overflow, 0);
	for (int i = 0; i < BUS_NUM_COUNTERS; i++)
		pg_atomic_init_u64(&bus_shared->counters[i], 0);
	pg_atomic_init_u32(&bus_shared->usable, 0);
	pg_atomic_init_u64(&bus_shared->horizon, 0);
	bus_shared->ncommitting = committing_slots();
	for (int i = 0; i < bus_shared->ncommitting; i++)
		pg_atomic_init_u64(&bus_shared->committing[i], 0);
}

const SfcShmemPart BusShmemPart = {
	"sfcache bus", 1, bus_shmem_size, bus_shmem_init
};

void
BusCount(BusCounter counter)
{
	pg_atomic_fetch_add_u64(&bus_shared->counters[counter], 1);
}

/* The worker's state, as sfcache.bus shows it; error may be NULL. */
void
BusSetState(BusState state, const char *error)
{
	LWLockAcquire(bus_shared->lock, LW_EXCLUSIVE);
	if (bus_shared->state != state)
		bus_shared->state_since = GetCurrentTimestamp();
	bus_shared->state = state;
	strlcpy(bus_shared->error, error ? error : "", BUS_ERROR_LEN);
	LWLockRelease(bus_shared->lock);
	pg_atomic_write_u32(&bus_shared->usable, state == BUS_CONNECTED);
}

static pg_atomic_uint64 *
my_mark(void)
{
	if (MyProc == NULL || GetNumberFromPGProc(MyProc) >= bus_shared->ncommitting)
		return NULL;
	return &bus_shared->committing[GetNumberFromPGProc(MyProc)];
}

/* Copy a commit into the queue, or note the overflow. */
static void
enqueue(const CacheCommitInfo *info)
{
	BusQueueEntry *e;
	Latch	   *latch;

	LWLockAcquire(bus_shared->lock, LW_EXCLUSIVE);
	if (bus_shared->head - bus_shared->tail >= BUS_QUEUE_LEN)
	{
		LWLockRelease(bus_shared->lock);
		pg_atomic_write_u32(&bus_shared->overflow, 1);
		BusCount(BUS_DROPPED);
		return;
	}
	e = &bus_shared->queue[bus_shared->head % BUS_QUEUE_LEN];
	e->dbid = info->dbid;
	e->lsn = info->commit_lsn;
	e->everything = info->everything ||
		info->nrelids + info->nrow_relids > BUS_MAX_RELS;
	e->nrelids = e->everything ? 0 : info->nrelids;
	if (e->nrelids > 0)
		memcpy(e->relids, info->relids, sizeof(Oid) * e->nrelids);
	e->nrow_relids = e->everything ? 0 : info->nrow_relids;
	e->ntags = e->nrow_relids > 0 ? info->ntags : 0;
	if (e->nrow_relids > 0)
		memcpy(e->row_relids, info->row_relids, sizeof(Oid) * e->nrow_relids);
	if (e->ntags > 0)
		memcpy(e->tags, info->tags, sizeof(CacheTag) * e->ntags);
	bus_shared->head++;
	latch = bus_shared->worker_latch;
	LWLockRelease(bus_shared->lock);
	if (latch != NULL)
		SetLatch(latch);
}

/* The cache's commit callback (cache.h): mark, queue, unmark. */
void
BusCommitCallback(CacheCommitPhase phase, const CacheCommitInfo *info)
{
	pg_atomic_uint64 *mark;

	if (bus_shared == NULL || (mark = my_mark()) == NULL)
		return;
	switch (phase)
	{
		case CACHE_COMMIT_BEGIN:
			if (!BusConfigured() || RecoveryInProgress())
				return;
			/* the first BEGIN counts (COMMIT PREPARED announces twice) */
			if (pg_atomic_read_u64(mark) == 0)
				pg_atomic_write_u64(mark, GetXLogInsertRecPtr());
			pg_memory_barrier();
			break;
		case CACHE_COMMIT_DONE:
			if (BusConfigured() && pg_atomic_read_u64(mark) != 0)
				enqueue(info);
			pg_memory_barrier();
			pg_atomic_write_u64(mark, 0);
			break;
		case CACHE_COMMIT_ABORTED:
			pg_atomic_write_u64(mark, 0);
			break;
	}
}

/* The worker: take up to max queued commits, oldest first. */
int
BusQueueTake(BusQueueEntry *out, int max)
{
	int			n = 0;

	LWLockAcquire(bus_shared->lock, LW_EXCLUSIVE);
	while (n < max && bus_shared->tail < bus_shared->head)
		out[n++] = bus_shared->queue[bus_shared->tail++ % BUS_QUEUE_LEN];
	LWLockRelease(bus_shared->lock);
	return n;
}

/*
 * The worker, on a primary, before it drains the queue: a WAL position
 * every commit up to which is queued or published (see the file header).
 */
XLogRecPtr
BusWatermark(void)
{
	XLogRecPtr	w = GetXLogInsertRecPtr();

	pg_memory_barrier();
	for (int i = 0; i < bus_shared->ncommitting; i++)
	{
		XLogRecPtr	mark = pg_atomic_read_u64(&bus_shared->committing[i]);

		if (mark != 0 && mark < w)
			w = mark;
	}
	return w;
}
