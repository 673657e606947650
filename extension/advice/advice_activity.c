/*-------------------------------------------------------------------------
 *
 * advice_activity.c
 *		A transaction's table activity for sfcache.table_activity: the
 *		statements that wrote each table (counted at ExecutorEnd, and
 *		after COPY FROM and TRUNCATE) and, at a commit, the tables whose
 *		cached results it invalidated. Both are kept in the backend and
 *		recorded at the transaction's end under one lock
 *		(AdviceStoreActivity), not one lock per statement and per table.
 *
 * A rolled-back transaction's writes are recorded at its end, without
 * invalidations. A transaction that dropped sfcache records nothing
 * (AdviceXactEvent forgets the database's record at that commit).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "advice/advice_internal.h"

/* Distinct tables kept before recording early. */
#define ADVICE_PENDING_TABLES 32

static Oid	pending_relids[ADVICE_PENDING_TABLES];
static int	pending_writes[ADVICE_PENDING_TABLES];
static int	npending = 0;

/* One statement of this transaction wrote relid. */
void
AdviceActivityWrite(Oid relid)
{
	int			i;

	for (i = 0; i < npending && pending_relids[i] != relid; i++)
		;
	if (i == npending)
	{
		if (npending == ADVICE_PENDING_TABLES)
		{
			AdviceStoreActivity(npending, pending_relids, pending_writes, NIL);
			npending = i = 0;
		}
		pending_relids[i] = relid;
		pending_writes[i] = 0;
		npending++;
	}
	pending_writes[i]++;
}

/*
 * The cache's invalidation callback, inside a commit: the transaction's
 * writes and the relations its commit invalidated, recorded together.
 * The database's answer is the one its statements were recorded under.
 */
void
AdviceActivityCommitted(List *relids)
{
	if (SfcExtensionDroppedInXact() || !SfcExtensionWasActive())
	{
		npending = 0;
		return;
	}
	AdviceStoreActivity(npending, pending_relids, pending_writes,
						advice_enabled ? relids : NIL);
	npending = 0;
}

/*
 * The transaction ended (core_hooks.c, after the cache's part): record
 * what the invalidation callback did not (a rollback, or a commit that
 * invalidated nothing). drop: the transaction dropped sfcache here.
 */
void
AdviceActivityEnd(bool drop)
{
	if (!drop)
		AdviceStoreActivity(npending, pending_relids, pending_writes, NIL);
	npending = 0;
}
