/*-------------------------------------------------------------------------
 *
 * bus_sql.c
 *		Owns the bus's SQL-callable functions: sfcache.bus_state() (the row
 *		of the sfcache.bus view: state, counters, the standby's replay
 *		position against its horizon and pending invalidations) and
 *		sfcache.bus_peers() (one row per other node heard of).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"
#include "utils/tuplestore.h"

#include "access/htup_details.h"
#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/pg_lsn.h"
#include "utils/timestamp.h"

#include "bus/bus_internal.h"

SFC_FUNCTION_INFO_V1(sfcache_bus_state_0_3);
SFC_FUNCTION_INFO_V1(sfcache_bus_peers_0_3);

static const char *const state_names[] = {
	[BUS_NOT_CONFIGURED] = "not configured",
	[BUS_CONNECTING] = "connecting",
	[BUS_CONNECTED] = "connected",
};

#define BUS_STATE_COLS 22

Datum
sfcache_bus_state_0_3(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[BUS_STATE_COLS];
	bool		nulls[BUS_STATE_COLS] = {0};
	int			n = 0;
	bool		standby = RecoveryInProgress();
	XLogRecPtr	replay = standby ? GetXLogReplayRecPtr(NULL) : InvalidXLogRecPtr;
	XLogRecPtr	horizon = pg_atomic_read_u64(&bus_shared->horizon);
	XLogRecPtr	pending;
	int			pending_slots = CacheSlotsAwaitingReplay(replay, &pending);
	BusState	state;
	char		node[BUS_NAME_LEN];
	char		error[BUS_ERROR_LEN];
	TimestampTz since;
	uint64		queued;
	int			worker_pid;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	LWLockAcquire(bus_shared->lock, LW_SHARED);
	state = bus_shared->state;
	strlcpy(node, bus_shared->node, BUS_NAME_LEN);
	strlcpy(error, bus_shared->error, BUS_ERROR_LEN);
	since = bus_shared->state_since;
	queued = bus_shared->head - bus_shared->tail;
	worker_pid = bus_shared->worker_pid;
	LWLockRelease(bus_shared->lock);

	values[n] = CStringGetTextDatum(node);
	nulls[n++] = node[0] == '\0';
	values[n++] = CStringGetTextDatum(standby ? "standby" : "primary");
	values[n++] = CStringGetTextDatum(state_names[state]);
	values[n] = Int32GetDatum(worker_pid);
	nulls[n++] = worker_pid == 0;
	values[n++] = TimestampTzGetDatum(since);
	values[n++] = CStringGetTextDatum(bus_redis_url_masked ? bus_redis_url_masked : "");
	values[n++] = CStringGetTextDatum(bus_redis_channel);
	values[n] = CStringGetTextDatum(error);
	nulls[n++] = error[0] == '\0';
	for (int i = 0; i < BUS_NUM_COUNTERS; i++)
		values[n++] = Int64GetDatum(pg_atomic_read_u64(&bus_shared->counters[i]));
	values[n++] = Int64GetDatum(queued);
	values[n] = LSNGetDatum(replay);
	nulls[n++] = !standby;
	values[n] = LSNGetDatum(horizon);
	nulls[n++] = horizon == InvalidXLogRecPtr;
	values[n] = LSNGetDatum(pending);
	nulls[n++] = pending == InvalidXLogRecPtr;
	values[n] = Int32GetDatum(standby ? pending_slots : 0);
	nulls[n++] = !standby;
	values[n++] = BoolGetDatum(standby && BusStandbyCheck() == CACHE_BYPASS_NONE);
	Assert(n == BUS_STATE_COLS);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

Datum
sfcache_bus_peers_0_3(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	BusPeer		peers[BUS_MAX_PEERS];

	InitMaterializedSRF(fcinfo, 0);
	LWLockAcquire(bus_shared->lock, LW_SHARED);
	memcpy(peers, bus_shared->peers, sizeof(peers));
	LWLockRelease(bus_shared->lock);
	for (int i = 0; i < BUS_MAX_PEERS; i++)
	{
		BusPeer    *p = &peers[i];
		Datum		values[8];
		bool		nulls[8] = {0};
		char		sysid[32];

		if (!p->used)
			continue;
		snprintf(sysid, sizeof(sysid), UINT64_FORMAT, p->sysid);
		values[0] = CStringGetTextDatum(p->name);
		values[1] = CStringGetTextDatum(p->primary ? "primary" : "standby");
		values[2] = DirectFunctionCall3(numeric_in, CStringGetDatum(sysid),
										ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
		values[3] = Int64GetDatum((int64) p->last_seq);
		values[4] = LSNGetDatum(p->watermark);
		nulls[4] = !p->primary;
		values[5] = LSNGetDatum(p->highest_lsn);
		nulls[5] = !p->primary;
		values[6] = TimestampTzGetDatum(p->last_heard);
		values[7] = BoolGetDatum(p->alive);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
