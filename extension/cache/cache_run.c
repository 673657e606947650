/*-------------------------------------------------------------------------
 *
 * cache_run.c
 *		Running a cached statement's saved query on a miss, as leader or
 *		without the cache, and keeping its rows (the result receiver): as serialised minimal
 *		tuples while they fit sfcache.max_entry_size (the form that is
 *		stored and replayed), and in a tuplestore, which may spill to disk,
 *		once they do not.
 *
 * When every column is of a type whose text output depends on the value
 * alone (type_has_fixed_text: no setting, no catalog lookup, no locale),
 * the rows are also rendered as the bodies of the DataRow messages
 * printtup would send with every column in text, before any conversion
 * to the client's encoding; a hit replays them to a client that asked for
 * text and whose encoding is the database's (cache_replay.c). Both forms
 * count against sfcache.max_entry_size; past it, only the tuples are kept.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "executor/tstoreReceiver.h"
#include "miscadmin.h"
#include "port/pg_bswap.h"
#include "utils/lsyscache.h"
#include "tcop/tcopprot.h"
#include "utils/tuplestore.h"

#include "cache/cache_internal.h"

/* Move what was serialised so far into the tuplestore, and keep spilling. */
static void
start_spilling(CacheResultReceiver *rr)
{
	char	   *pos = rr->buf.data;
	char	   *end = rr->buf.data + rr->buf.len;
	MemoryContext oldcxt = MemoryContextSwitchTo(rr->cxt);

	rr->spill = tuplestore_begin_heap(false, false, work_mem);
	MemoryContextSwitchTo(oldcxt);
	while (pos < end)
	{
		MinimalTuple mt = (MinimalTuple) pos;

		ExecStoreMinimalTuple(mt, rr->tmp_slot, false);
		tuplestore_puttupleslot(rr->spill, rr->tmp_slot);
		pos += MAXALIGN(mt->t_len);
	}
	ExecClearTuple(rr->tmp_slot);
	resetStringInfo(&rr->buf);
}

/*
 * Types whose output function reads nothing but the value: no setting
 * (DateStyle, extra_float_digits, bytea_output, ...), no catalog (enum
 * labels, regclass), no locale. Exact types only, no domains.
 */
static bool
type_has_fixed_text(Oid type)
{
	switch (type)
	{
		case BOOLOID:
		case CHAROID:
		case NAMEOID:
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case OIDOID:
		case TEXTOID:
		case BPCHAROID:
		case VARCHAROID:
		case NUMERICOID:
		case UUIDOID:
			return true;
		default:
			return false;
	}
}

/* Append one row as a DataRow body, as printtup does for text columns. */
static void
render_datarow(CacheResultReceiver *rr, TupleTableSlot *slot)
{
	StringInfo	out = &rr->datarows;
	int			natts = slot->tts_tupleDescriptor->natts;
	int			start;
	uint32		body_len = 0;
	uint16		n16 = pg_hton16((uint16) natts);

	slot_getallattrs(slot);
	appendBinaryStringInfo(out, (char *) &body_len, sizeof(body_len));
	start = out->len;
	appendBinaryStringInfo(out, (char *) &n16, sizeof(n16));
	for (int i = 0; i < natts; i++)
	{
		uint32		n32;

		if (slot->tts_isnull[i])
		{
			n32 = pg_hton32((uint32) -1);
			appendBinaryStringInfo(out, (char *) &n32, sizeof(n32));
		}
		else
		{
			char	   *str = OutputFunctionCall(&rr->text_out[i], slot->tts_values[i]);
			int			len = strlen(str);

			n32 = pg_hton32((uint32) len);
			appendBinaryStringInfo(out, (char *) &n32, sizeof(n32));
			appendBinaryStringInfo(out, str, len);
			pfree(str);
		}
	}
	body_len = out->len - start;
	memcpy(out->data + start - sizeof(body_len), &body_len, sizeof(body_len));
}

static bool
result_receive(TupleTableSlot *slot, DestReceiver *self)
{
	CacheResultReceiver *rr = (CacheResultReceiver *) self;
	MinimalTuple mt;
	bool		should_free;

	if (rr->spill == NULL)
	{
		mt = ExecFetchSlotMinimalTuple(slot, &should_free);
		if (MAXALIGN(rr->buf.len) + MAXALIGN(mt->t_len) <= rr->limit)
		{
			appendStringInfoSpaces(&rr->buf, MAXALIGN(rr->buf.len) - rr->buf.len);
			appendBinaryStringInfo(&rr->buf, (char *) mt, mt->t_len);
			appendStringInfoSpaces(&rr->buf, MAXALIGN(rr->buf.len) - rr->buf.len);
		}
		else
			start_spilling(rr);
		if (should_free)
			pfree(mt);
	}
	if (rr->spill == NULL && rr->text_rows)
	{
		render_datarow(rr, slot);
		if (MAXALIGN(rr->buf.len) + rr->datarows.len > rr->limit)
		{
			/* both forms do not fit: keep the tuples */
			rr->text_rows = false;
			resetStringInfo(&rr->datarows);
		}
	}
	if (rr->spill != NULL)
		tuplestore_puttupleslot(rr->spill, slot);
	return true;
}

static void
result_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
	CacheResultReceiver *rr = (CacheResultReceiver *) self;

	rr->tmp_slot = MakeSingleTupleTableSlot(typeinfo, &TTSOpsMinimalTuple);

	/* only a result that may be stored gets a DataRow form */
	rr->text_rows = (rr->spill == NULL);
	for (int i = 0; i < typeinfo->natts && rr->text_rows; i++)
	{
		Form_pg_attribute att = TupleDescAttr(typeinfo, i);

		if (att->attisdropped || !type_has_fixed_text(att->atttypid))
			rr->text_rows = false;
	}
	if (rr->text_rows)
	{
		MemoryContext old = MemoryContextSwitchTo(rr->cxt);

		rr->text_out = palloc(Max(typeinfo->natts, 1) * sizeof(FmgrInfo));
		for (int i = 0; i < typeinfo->natts; i++)
		{
			Oid			func;
			bool		varlena;

			getTypeOutputInfo(TupleDescAttr(typeinfo, i)->atttypid, &func, &varlena);
			fmgr_info(func, &rr->text_out[i]);
		}
		initStringInfo(&rr->datarows);
		MemoryContextSwitchTo(old);
	}
}

static void
result_shutdown(DestReceiver *self)
{
}

static void
result_destroy(DestReceiver *self)
{
}

/* A receiver keeping up to limit bytes of serialised rows (0: none). */
CacheResultReceiver *
CacheResultReceiverCreate(Size limit)
{
	CacheResultReceiver *rr = palloc0(sizeof(CacheResultReceiver));

	rr->pub.receiveSlot = result_receive;
	rr->pub.rStartup = result_startup;
	rr->pub.rShutdown = result_shutdown;
	rr->pub.rDestroy = result_destroy;
	rr->pub.mydest = DestNone;
	rr->limit = limit;
	rr->cxt = CurrentMemoryContext;
	initStringInfo(&rr->buf);
	if (limit == 0)
		rr->spill = tuplestore_begin_heap(false, false, work_mem);
	return rr;
}

/*
 * Plan the saved query with the given parameters: the plan a miss runs
 * (and EXPLAIN shows under the cache node).
 */
PlannedStmt *
CachePlanSavedQuery(const CacheScanPrivate *priv, ParamListInfo params)
{
	Query	   *query = copyObject(priv->query);

	/* the text kept is the statement's own, not the client's whole string */
	query->stmt_location = 0;
	return pg_plan_query(query, priv->query_string, priv->cursor_options, params,
						 NULL);
}

/*
 * Run a plan of the saved query to its end with the given parameters and
 * snapshot, counting what instrument_options asks (EXPLAIN ANALYZE), and
 * with watch_probe, watching its scans for the windows' bounds. The
 * executor is finished, not ended: the caller ends it (CacheEndSavedQuery)
 * once EXPLAIN has shown it, or right away.
 */
QueryDesc *
CacheRunSavedQuery(PlannedStmt *stmt, const CacheScanPrivate *priv, ParamListInfo params,
				   Snapshot snapshot, DestReceiver *dest, int instrument_options,
				   const CacheWindowProbe *watch_probe, CacheWindowWatch **watch)
{
	QueryDesc  *qd = CreateQueryDesc(stmt, priv->query_string, snapshot, InvalidSnapshot,
									 dest, params, NULL, instrument_options);

	/* the index advice samples this plan as the client's statement */
	SfcExecutorStartForClient(qd, 0);
	if (watch_probe != NULL)
		*watch = CacheWindowWatchStart(watch_probe, qd);
	ExecutorRun(qd, ForwardScanDirection, 0);
	ExecutorFinish(qd);
	return qd;
}

void
CacheEndSavedQuery(QueryDesc *qd)
{
	ExecutorEnd(qd);
	FreeQueryDesc(qd);
}
