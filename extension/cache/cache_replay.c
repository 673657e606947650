/*-------------------------------------------------------------------------
 *
 * cache_replay.c
 *		Sending a cached result's rows straight to the client: for a cache
 *		plan whose rows go to the client (printtup) with every column in
 *		text and in the database's encoding, ExecutorRun (core_hooks.c)
 *		runs with a receiver that sends each row's stored DataRow message
 *		as it is (one pq_putmessage) instead of calling each column's output
 *		function (cache_run.c renders the rows once, when they are
 *		computed).
 *
 * The executor still runs: the scan returns one all-null virtual slot per
 * row (cache_scan.c), so row counts, the command tag, and an Execute
 * message's or a FETCH's row limit are the executor's own, and a portal
 * fetched in batches resumes where the last batch stopped. Whether a run
 * replays is decided again at each ExecutorRun of a portal (the client
 * encoding, the formats and the receiver may change between fetches). Rows without a
 * DataRow form (a column whose text depends on a setting, a result that
 * spilled, an uncached run) go to printtup as before: the receiver passes
 * every slot the scan did not mark as a DataRow on.
 *
 * A DataRow is sent only where printtup would send the very same bytes:
 * the receiver is printtup's (DestRemote, DestRemoteExecute), every
 * column's format is text, and no encoding conversion applies (the
 * client's encoding is the database's). The formats are the portal's that
 * printtup was set up with (SetRemoteDestReceiverParams), read through
 * printtup's receiver, whose first two fields are the DestReceiver and
 * that portal (access/common/printtup.c, DR_printtup, PostgreSQL 15).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "utils/portal.h"

#include "cache/cache_internal.h"

/* The head of printtup's DR_printtup. */
typedef struct PrinttupHead
{
	DestReceiver pub;
	Portal		portal;
} PrinttupHead;

typedef struct ReplayReceiver
{
	DestReceiver pub;
	DestReceiver *printtup;		/* every row without a DataRow goes here */
	PlanState  *scan;
} ReplayReceiver;

static bool
replay_receive(TupleTableSlot *slot, DestReceiver *self)
{
	ReplayReceiver *r = (ReplayReceiver *) self;
	const char *body;
	uint32		len;

	if (CacheScanTakeDataRow(r->scan, &body, &len))
	{
		/*
		 * pq_endmessage_reuse() only reads the buffer (pq_putmessage of its
		 * bytes, with cursor as the message type): the stored body is sent as
		 * it is, without a copy.
		 */
		StringInfoData msg;

		msg.data = (char *) body;
		msg.len = (int) len;
		msg.maxlen = (int) len + 1;
		msg.cursor = 'D';
		pq_endmessage_reuse(&msg);
		return true;
	}
	return r->printtup->receiveSlot(slot, r->printtup);
}

static void
replay_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
	ReplayReceiver *r = (ReplayReceiver *) self;

	r->printtup->rStartup(r->printtup, operation, typeinfo);
}

static void
replay_shutdown(DestReceiver *self)
{
	ReplayReceiver *r = (ReplayReceiver *) self;

	r->printtup->rShutdown(r->printtup);
}

static void
replay_destroy(DestReceiver *self)
{
	/* printtup's receiver belongs to its portal */
}

/* Does printtup send every column of this portal's rows in text? */
static bool
all_text(Portal portal, int natts)
{
	if (portal == NULL)
		return false;
	if (portal->formats == NULL)
		return true;
	for (int i = 0; i < natts; i++)
		if (portal->formats[i] != 0)
			return false;
	return true;
}

/* Would printtup send these rows exactly as stored DataRows? */
static bool
replay_applies(QueryDesc *queryDesc, ScanDirection direction)
{
	DestReceiver *dest = queryDesc->dest;

	return dest != NULL &&
		(dest->mydest == DestRemote || dest->mydest == DestRemoteExecute) &&
		queryDesc->operation == CMD_SELECT && ScanDirectionIsForward(direction) &&
		queryDesc->tupDesc != NULL &&
		pg_get_client_encoding() == GetDatabaseEncoding() &&
		all_text(((PrinttupHead *) dest)->portal, queryDesc->tupDesc->natts);
}

/*
 * The receiver ExecutorRun is to use for this query: a replaying one for
 * a cache plan whose rows go to the client as text, else the query's own.
 *
 * Decided at every ExecutorRun: a portal fetched in batches (an Execute
 * with a row limit, SQL FETCH or MOVE of a protocol-level portal, a FETCH
 * from PL/pgSQL) may see another client encoding, other result formats or
 * another receiver at each run. A first run with a row limit (count > 0)
 * keeps the result's tuples beside its DataRows, so any later run can go
 * either way (cache_scan.c). A first run without one returns every row:
 * later runs of the portal find it at its end and fetch nothing
 * (PortalRunSelect), and rewinding it needs SCROLL, which the cache never
 * plans (cache_plan.c). execute_once cannot tell: PostgreSQL 15.18 and
 * later pass false for every portal.
 */
DestReceiver *
CacheReplayDestReceiver(QueryDesc *queryDesc, ScanDirection direction, uint64 count)
{
	DestReceiver *dest = queryDesc->dest;
	PlanState  *planstate = queryDesc->planstate;
	ReplayReceiver *r;
	bool		replay;

	if (!CacheScanIsCacheScan(planstate))
		return dest;
	replay = replay_applies(queryDesc, direction);
	CacheScanStartRun(planstate, replay, count != 0);
	if (!replay)
		return dest;

	r = palloc0(sizeof(ReplayReceiver));
	r->pub.receiveSlot = replay_receive;
	r->pub.rStartup = replay_startup;
	r->pub.rShutdown = replay_shutdown;
	r->pub.rDestroy = replay_destroy;
	r->pub.mydest = dest->mydest;
	r->printtup = dest;
	r->scan = queryDesc->planstate;
	return (DestReceiver *) r;
}
