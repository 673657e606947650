/*-------------------------------------------------------------------------
 *
 * cache_run.c
 *		Running a cached statement's saved query on a miss, as leader or
 *		without the cache, and capturing its rows: as serialised minimal
 *		tuples while they fit sfcache.max_entry_size (the form that is
 *		stored and replayed), and in a tuplestore, which may spill to disk,
 *		once they do not.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "executor/tstoreReceiver.h"
#include "miscadmin.h"
#include "tcop/tcopprot.h"
#include "utils/tuplestore.h"

#include "cache/cache.h"

/* Move what was serialised so far into the tuplestore, and keep spilling. */
static void
start_spilling(CaptureReceiver *cap)
{
	char	   *pos = cap->buf.data;
	char	   *end = cap->buf.data + cap->buf.len;
	MemoryContext oldcxt = MemoryContextSwitchTo(cap->cxt);

	cap->spill = tuplestore_begin_heap(false, false, work_mem);
	MemoryContextSwitchTo(oldcxt);
	while (pos < end)
	{
		MinimalTuple mt = (MinimalTuple) pos;

		ExecStoreMinimalTuple(mt, cap->tmp_slot, false);
		tuplestore_puttupleslot(cap->spill, cap->tmp_slot);
		pos += MAXALIGN(mt->t_len);
	}
	ExecClearTuple(cap->tmp_slot);
	resetStringInfo(&cap->buf);
}

static bool
capture_receive(TupleTableSlot *slot, DestReceiver *self)
{
	CaptureReceiver *cap = (CaptureReceiver *) self;
	MinimalTuple mt;
	bool		should_free;

	if (cap->spill == NULL)
	{
		mt = ExecFetchSlotMinimalTuple(slot, &should_free);
		if (MAXALIGN(cap->buf.len) + MAXALIGN(mt->t_len) <= cap->limit)
		{
			appendStringInfoSpaces(&cap->buf, MAXALIGN(cap->buf.len) - cap->buf.len);
			appendBinaryStringInfo(&cap->buf, (char *) mt, mt->t_len);
			appendStringInfoSpaces(&cap->buf, MAXALIGN(cap->buf.len) - cap->buf.len);
		}
		else
			start_spilling(cap);
		if (should_free)
			pfree(mt);
	}
	if (cap->spill != NULL)
		tuplestore_puttupleslot(cap->spill, slot);
	return true;
}

static void
capture_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
	CaptureReceiver *cap = (CaptureReceiver *) self;

	cap->tmp_slot = MakeSingleTupleTableSlot(typeinfo, &TTSOpsMinimalTuple);
}

static void
capture_shutdown(DestReceiver *self)
{
}

static void
capture_destroy(DestReceiver *self)
{
}

/* A receiver keeping up to limit bytes of serialised rows (0: none). */
CaptureReceiver *
CacheCaptureReceiverCreate(Size limit)
{
	CaptureReceiver *cap = palloc0(sizeof(CaptureReceiver));

	cap->pub.receiveSlot = capture_receive;
	cap->pub.rStartup = capture_startup;
	cap->pub.rShutdown = capture_shutdown;
	cap->pub.rDestroy = capture_destroy;
	cap->pub.mydest = DestNone;
	cap->limit = limit;
	cap->cxt = CurrentMemoryContext;
	initStringInfo(&cap->buf);
	if (limit == 0)
		cap->spill = tuplestore_begin_heap(false, false, work_mem);
	return cap;
}

/* Plan and run the saved query with the given parameters and snapshot. */
void
CacheRunSavedQuery(const SfcScanPrivate *priv, ParamListInfo params,
				   Snapshot snapshot, DestReceiver *dest)
{
	Query	   *query = copyObject(priv->query);
	PlannedStmt *stmt;
	QueryDesc  *qd;

	/* the text kept is the statement's own, not the client's whole string */
	query->stmt_location = 0;
	stmt = pg_plan_query(query, priv->query_string, priv->cursor_options, params);
	qd = CreateQueryDesc(stmt, priv->query_string, snapshot, InvalidSnapshot,
						 dest, params, NULL, 0);
	/* the index advice samples this plan as the client's statement */
	SfcExecutorStartForClient(qd, 0);
	ExecutorRun(qd, ForwardScanDirection, 0, true);
	ExecutorFinish(qd);
	ExecutorEnd(qd);
	FreeQueryDesc(qd);
}
