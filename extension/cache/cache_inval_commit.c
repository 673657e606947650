/*-------------------------------------------------------------------------
 *
 * cache_inval_commit.c
 *		The commit protocol of invalidation: the transaction callback that
 *		bumps the counters of the transaction's write set around its commit
 *		(once before it becomes visible, once after) and, between the first
 *		bump and the commit record, writes what it invalidates into the WAL
 *		for the standbys (cache_inval_wal.c), the same for COMMIT PREPARED,
 *		and the two registries of callbacks other subsystems
 *		register from their Init: the invalidation callbacks, told of each
 *		relation a committed transaction wrote (the index advice), and the
 *		commit callbacks, told of each commit that invalidates something as
 *		it begins and ends (the Redis bus).
 *
 * What the transaction wrote is kept by cache_inval_writeset.c, the
 * counters and their protocol by cache_inval_counters.c (its header says
 * why a leader that read the counters before its snapshot cannot store a
 * result a concurrent commit made stale).
 *
 * Locking: none. The counters are atomics; the registries are filled from
 * _PG_init (in the postmaster, inherited by every backend) and only read
 * after. The callbacks run inside the commit: they copy into shared memory
 * and never wait nor fail.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "replication/logicalworker.h"

#include "cache/cache_internal.h"

#define MAX_COMMIT_CALLBACKS 2

/* Told of each commit that invalidated something (the Redis bus). */
static CacheCommitCallback commit_callbacks[MAX_COMMIT_CALLBACKS];
static int	n_commit_callbacks = 0;
static bool commit_announced = false;

#define MAX_INVALIDATION_CALLBACKS 4

/* Told of the relations a committed transaction wrote. */
static CacheInvalidationCallback invalidation_callbacks[MAX_INVALIDATION_CALLBACKS];
static int	n_invalidation_callbacks = 0;

/* Did this transaction's PRE_COMMIT bump the counters (its end must too)? */
static bool bumped_pre_commit = false;

/* From an Init: call callback with the relations a committed transaction wrote. */
void
CacheRegisterInvalidationCallback(CacheInvalidationCallback callback)
{
	if (n_invalidation_callbacks >= MAX_INVALIDATION_CALLBACKS)
		elog(ERROR, "too many sfcache invalidation callbacks");
	invalidation_callbacks[n_invalidation_callbacks++] = callback;
}

/*
 * From an Init: call callback at the start of each commit that invalidates
 * something (before its commit record), at its end (with its relations and
 * commit LSN) or at its abort. It must only copy into shared memory.
 */
void
CacheRegisterCommitCallback(CacheCommitCallback callback)
{
	if (n_commit_callbacks >= MAX_COMMIT_CALLBACKS)
		elog(ERROR, "too many sfcache commit callbacks");
	commit_callbacks[n_commit_callbacks++] = callback;
}

/* Before the commit becomes visible: mark in flight and invalidate. */
static void
bump_before_commit(void)
{
	CacheCountersBeforeCommit(CacheWrittenCounters(), CacheWroteGlobal());
	bumped_pre_commit = true;
}

/* The end of this transaction's commit record (or the insert position). */
static XLogRecPtr
commit_end(void)
{
	/* a commit without a transaction id (COMMIT PREPARED) has no record */
	return TransactionIdIsValid(GetTopTransactionIdIfAny()) ?
		XactLastCommitEnd : GetXLogInsertRecPtr();
}

/*
 * After the commit became visible (or the transaction aborted); a commit
 * first raises its counters' changed-at LSNs (the shared tier).
 */
static void
bump_after_commit(bool committed)
{
	if (committed)
		CacheCountersChangedAt(CacheWrittenCounters(), CacheWroteGlobal(), commit_end());
	CacheCountersAfterCommit(CacheWrittenCounters(), CacheWroteGlobal());
}

/* Tell the registered callbacks which relations a commit invalidated. */
static void
report_invalidations(void)
{
	List	   *relids = CacheWrittenRelations();

	if (relids == NIL)
		return;
	for (int i = 0; i < n_invalidation_callbacks; i++)
		invalidation_callbacks[i] (relids);
}

/*
 * What a commit invalidated, for another node: the relations whose results
 * all drop (written whole, or whose plans changed), and those written by
 * captured rows only with the tags the rows held; all of them whole when
 * the tags did not fit.
 */
static void
commit_invalidations(List **whole, List **by_rows, const CacheTag **tags, int *ntags)
{
	ListCell   *lc;

	*tags = CacheWrittenTags(ntags);
	*whole = list_copy(CachePlanChangedRelations());
	*by_rows = NIL;
	foreach(lc, CacheWrittenRelations())
	{
		Oid			relid = lfirst_oid(lc);

		if (*ntags < 0 || list_member_oid(CacheWholeRelations(), relid))
			*whole = list_append_unique_oid(*whole, relid);
		else if (!list_member_oid(*whole, relid))
			*by_rows = lappend_oid(*by_rows, relid);
	}
	if (*ntags < 0)
		*ntags = 0;
}

/*
 * Before the commit record: what it invalidates, into the WAL for the
 * standbys (cache_inval_wal.c; nothing unless sfcache.wal_invalidations).
 */
static void
log_invalidations(void)
{
	List	   *whole;
	List	   *by_rows;
	const CacheTag *tags;
	int			ntags;

	if (!cache_wal_invalidations)
		return;
	commit_invalidations(&whole, &by_rows, &tags, &ntags);
	CacheWalLogInvalidations(CacheWroteGlobal(), whole, by_rows, ntags, tags);
	list_free(whole);
	list_free(by_rows);
}

/* Tell the commit callbacks a commit (or its abort) begins or ended. */
static void
announce_commit(CacheCommitPhase phase)
{
	CacheCommitInfo info;
	List	   *whole = NIL;
	List	   *by_rows = NIL;

	if (n_commit_callbacks == 0)
		return;
	if (phase == CACHE_COMMIT_BEGIN)
		commit_announced = true;
	else if (!commit_announced)
		return;
	memset(&info, 0, sizeof(info));
	if (phase == CACHE_COMMIT_DONE)
	{
		info.commit_lsn = commit_end();
		commit_invalidations(&whole, &by_rows, &info.tags, &info.ntags);
		info.everything = CacheWroteGlobal();
		info.nrelids = list_length(whole);
		info.relids = whole ? CacheOidArray(whole) : NULL;
		info.nrow_relids = list_length(by_rows);
		info.row_relids = by_rows ? CacheOidArray(by_rows) : NULL;
	}
	info.dbid = MyDatabaseId;
	for (int i = 0; i < n_commit_callbacks; i++)
		commit_callbacks[i] (phase, &info);
	list_free(whole);
	list_free(by_rows);
}

/* The transaction ended: forget its writes and what its commit did. */
static void
forget_transaction(void)
{
	commit_announced = false;
	bumped_pre_commit = false;
	CacheForgetWrites();
}

/*
 * Before the commit of a transaction that wrote: announce it, bump, log.
 * This and end_commit() are not inlined: a transaction that wrote nothing
 * passes CacheXactEvent() without saving a register.
 */
static pg_noinline void
begin_commit(void)
{
	announce_commit(CACHE_COMMIT_BEGIN);
	bump_before_commit();
	log_invalidations();
	SfcTestHoldOnAdvisoryLock(cache_test_hold_commit_lock);
}

/* After the commit (or abort) of a transaction that bumped or announced. */
static pg_noinline void
end_commit(XactEvent event)
{
	if (bumped_pre_commit)
	{
		bump_after_commit(event == XACT_EVENT_COMMIT);
		if (event == XACT_EVENT_COMMIT)
			report_invalidations();
	}
	announce_commit(event == XACT_EVENT_COMMIT ?
					CACHE_COMMIT_DONE : CACHE_COMMIT_ABORTED);
}

/* The transaction callback (core_hooks.c): the two bumps around a commit. */
void
CacheXactEvent(XactEvent event)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			CacheInheritanceXactBump(false);
			if (IsLogicalWorker())
				CacheNoteGlobalWrite();
			if (CacheCounterSetCount(CacheWrittenCounters()) > 0 || CacheWroteGlobal())
				begin_commit();
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PREPARE:
			CacheInheritanceXactBump(true);
			if (bumped_pre_commit || commit_announced)
				end_commit(event);
			forget_transaction();
			break;
		default:
			break;
	}
}

/*
 * COMMIT PREPARED, before the command: it makes another transaction's
 * writes visible, and which relations it wrote is not known here. It is
 * announced before its record and published as a global write at this
 * commit, in flight until CacheCommitPreparedEnd().
 */
void
CacheCommitPreparedBegin(void)
{
	announce_commit(CACHE_COMMIT_BEGIN);
	CacheNoteGlobalWrite();
	CacheCountersBeforeCommit(NULL, true);
	CacheWalLogInvalidations(true, NIL, NIL, 0, NULL);
	CacheInheritanceEpochBump();
}

/* COMMIT PREPARED, after the command, whether it succeeded or failed. */
void
CacheCommitPreparedEnd(void)
{
	CacheInheritanceEpochBump();
	/* its record is written (or it failed: raising costs only hits) */
	CacheCountersChangedAt(NULL, true, GetXLogInsertRecPtr());
	CacheCountersAfterCommit(NULL, true);
}
