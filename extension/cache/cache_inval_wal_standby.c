/*-------------------------------------------------------------------------
 *
 * cache_inval_wal_standby.c
 *		On a hot standby, the rule under which the invalidations replayed
 *		from the WAL (cache_inval_wal.c) let it serve and store results with
 *		no bus and no blind window:
 *		 1. trust: the standby has replayed an sfcache record from the
 *			stream it replays now (a primary without sfcache, or with
 *			sfcache.wal_invalidations off, writes none; a new stream, i.e. a
 *			new walreceiver, a reconnection or another timeline, may come
 *			from a restarted primary, so it is trusted again only from its
 *			next record on, after a flush);
 *		 2. in flight: a leader refuses to store while a transaction whose
 *			record was replayed is still in progress (its commit record not
 *			yet replayed: the counters moved, the commit is not visible);
 *		 3. start: replay may have begun between a transaction's record and
 *			its commit record, so a leader refuses to store until its
 *			snapshot's xmin is past the next transaction id of the checkpoint
 *			replay began from (every transaction that could have written a
 *			record before that point has ended); the same horizon is raised
 *			when the in-flight set is full.
 * A standby that replays no record (rule 1) falls back to the Redis bus's
 * rule, if there is a bus.
 *
 * Locking: a spinlock over the in-flight set (copies only, no call under
 * it); the trusted stream and the start horizon are atomics. The startup
 * process writes them; leaders read them and drop resolved transactions.
 * Ordering: the redo adds the transaction before it bumps (a full barrier
 * between), and a leader reads the generations, then the set, then takes
 * its snapshot.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "common/hashfn.h"
#include "port/atomics.h"
#include "replication/walreceiver.h"
#include "storage/procarray.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/snapshot.h"

#include "cache/cache_internal.h"

/* Transactions whose record was replayed and that may not have ended. */
#define WAL_INFLIGHT_MAX 64

typedef struct WalStandbyShared
{
	/* the stream the last record was replayed from; 0: none trusted */
	pg_atomic_uint64 trusted_stream;
	/* stores refused until a snapshot's xmin reaches it; 0: none */
	pg_atomic_uint32 store_horizon;
	pg_atomic_uint32 ninflight;
	slock_t		mutex;			/* protects inflight[] */
	TransactionId inflight[WAL_INFLIGHT_MAX];
} WalStandbyShared;

static WalStandbyShared *wal_standby = NULL;

static Size
wal_standby_shmem_size(void)
{
	return MAXALIGN(sizeof(WalStandbyShared));
}

/* Caller must hold AddinShmemInitLock. */
static void
wal_standby_shmem_init(void)
{
	bool		found;

	wal_standby = ShmemInitStruct("sfcache WAL invalidations",
								  sizeof(WalStandbyShared), &found);
	if (!found)
	{
		pg_atomic_init_u64(&wal_standby->trusted_stream, 0);
		pg_atomic_init_u32(&wal_standby->store_horizon, InvalidTransactionId);
		pg_atomic_init_u32(&wal_standby->ninflight, 0);
		SpinLockInit(&wal_standby->mutex);
	}
}

const SfcShmemPart CacheWalStandbyShmemPart = {
	NULL, 0, wal_standby_shmem_size, wal_standby_shmem_init
};

/*
 * The WAL stream being replayed, as one number (0: none): the walreceiver's
 * pid, when it was requested and the timeline it streams. Read without its
 * lock: the startup process writes a new stream's values before it replays
 * anything that stream brought, so a reader whose snapshot sees a commit
 * of that stream reads them (after a barrier).
 */
static uint64
current_stream(void)
{
	volatile WalRcvData *walrcv = WalRcv;
	uint64		id;

	pg_read_barrier();
	if (walrcv == NULL || walrcv->pid == 0)
		return 0;
	id = hash_combine64((uint64) walrcv->pid, (uint64) walrcv->startTime);
	id = hash_combine64(id, (uint64) walrcv->receiveStartTLI);
	return id == 0 ? 1 : id;
}

/* Raise the start horizon to xid (stores wait for a snapshot past it). */
static void
raise_store_horizon(TransactionId xid)
{
	uint32		old = pg_atomic_read_u32(&wal_standby->store_horizon);

	while ((old == InvalidTransactionId || TransactionIdPrecedes(old, xid)) &&
		   !pg_atomic_compare_exchange_u32(&wal_standby->store_horizon, &old, xid))
		;
}

/* The resource manager's startup callback: replay begins (rule 3). */
void
CacheWalRedoStartup(void)
{
	pg_atomic_write_u64(&wal_standby->trusted_stream, 0);
	pg_atomic_write_u32(&wal_standby->ninflight, 0);
	raise_store_horizon(XidFromFullTransactionId(ReadNextFullTransactionId()));
}

/* Forget the set's transactions that have ended. */
static void
drop_resolved(const TransactionId *resolved, int nresolved)
{
	int			n;

	if (nresolved == 0)
		return;
	SpinLockAcquire(&wal_standby->mutex);
	n = pg_atomic_read_u32(&wal_standby->ninflight);
	for (int i = 0; i < n;)
	{
		bool		gone = false;

		for (int j = 0; j < nresolved && !gone; j++)
			gone = TransactionIdEquals(wal_standby->inflight[i], resolved[j]);
		if (gone)
			wal_standby->inflight[i] = wal_standby->inflight[--n];
		else
			i++;
	}
	pg_atomic_write_u32(&wal_standby->ninflight, n);
	SpinLockRelease(&wal_standby->mutex);
}

/*
 * Whether a transaction of the set is still in progress; those that are
 * not are dropped (they ended before this call, so before any snapshot a
 * later caller takes).
 */
static bool
any_in_flight(void)
{
	TransactionId copy[WAL_INFLIGHT_MAX];
	TransactionId resolved[WAL_INFLIGHT_MAX];
	int			n;
	int			nresolved = 0;
	bool		in_flight = false;

	if (pg_atomic_read_u32(&wal_standby->ninflight) == 0)
		return false;
	SpinLockAcquire(&wal_standby->mutex);
	n = pg_atomic_read_u32(&wal_standby->ninflight);
	memcpy(copy, wal_standby->inflight, n * sizeof(TransactionId));
	SpinLockRelease(&wal_standby->mutex);

	for (int i = 0; i < n; i++)
	{
		if (TransactionIdIsInProgress(copy[i]))
			in_flight = true;
		else
			resolved[nresolved++] = copy[i];
	}
	drop_resolved(resolved, nresolved);
	return in_flight;
}

/*
 * The redo of a record of transaction xid (invalid for COMMIT PREPARED,
 * whose prepared transaction's record came at PREPARE), before its bumps:
 * trust the stream (after a flush if it is new) and mark xid in flight.
 */
void
CacheWalNoteRecord(TransactionId xid)
{
	uint64		stream = current_stream();

	if (TransactionIdIsValid(xid))
	{
		SpinLockAcquire(&wal_standby->mutex);
		if (pg_atomic_read_u32(&wal_standby->ninflight) < WAL_INFLIGHT_MAX)
		{
			wal_standby->inflight[pg_atomic_read_u32(&wal_standby->ninflight)] = xid;
			pg_atomic_fetch_add_u32(&wal_standby->ninflight, 1);
			xid = InvalidTransactionId;
		}
		SpinLockRelease(&wal_standby->mutex);

		/*
		 * The set is full: wait for a snapshot past xid instead. Only leaders
		 * drop ended transactions: before hot standby is ready
		 * TransactionIdIsInProgress does not know the running ones.
		 */
		if (TransactionIdIsValid(xid))
		{
			TransactionIdAdvance(xid);
			raise_store_horizon(xid);
		}
	}
	if (stream != pg_atomic_read_u64(&wal_standby->trusted_stream))
	{
		/*
		 * What another stream left may have been missed: start clean. A join:
		 * shared entries from before it are checked against what the primary
		 * published (doc/DESIGN.md, "Late joiners").
		 */
		pg_atomic_write_u64(&wal_standby->trusted_stream, 0);
		CacheInvalidateAllOnJoin(InvalidXLogRecPtr);
		pg_atomic_write_u64(&wal_standby->trusted_stream, stream);
	}
	pg_memory_barrier();
}

/* Rule 1: does the WAL carry every invalidation of the stream replayed now? */
bool
CacheWalTrusted(void)
{
	uint64		trusted = pg_atomic_read_u64(&wal_standby->trusted_stream);

	return trusted != 0 && trusted == current_stream();
}

/* Rule 2, for a leader after reading the generations, before its snapshot. */
CacheBypass
CacheWalStoreCheck(void)
{
	return any_in_flight() ? CACHE_BYPASS_COMMIT_IN_FLIGHT : CACHE_BYPASS_NONE;
}

/*
 * Is rule 3's horizon still ahead (a transaction that wrote before replay
 * began may not have ended)? Such a transaction's record was not replayed
 * here, so the counters do not know of its commit: the shared tier then
 * checks every entry against the primary's published changes.
 */
bool
CacheWalStartPending(void)
{
	return pg_atomic_read_u32(&wal_standby->store_horizon) != InvalidTransactionId;
}

/* Rule 3, for a leader, with the snapshot it executed with. */
bool
CacheWalSnapshotPastStart(Snapshot snapshot)
{
	uint32		horizon = pg_atomic_read_u32(&wal_standby->store_horizon);

	if (horizon == InvalidTransactionId)
		return true;
	if (TransactionIdPrecedes(snapshot->xmin, horizon))
		return false;
	/* every later snapshot is past it too */
	(void) pg_atomic_compare_exchange_u32(&wal_standby->store_horizon, &horizon,
										  InvalidTransactionId);
	return true;
}
