/*-------------------------------------------------------------------------
 *
 * bus_standby.c
 *		Owns the rule a hot standby caches under (registered with the cache
 *		as its standby check): a result may be served or stored only while
 *		 1. the bus is connected and a live primary of this cluster has
 *			published a watermark at or past the standby's replay position
 *			(the end of the record being replayed):
 *			every commit the standby has replayed has reached it as a
 *			message and bumped its generations;
 *		 2. (checked by the cache itself, CacheReplayedPast) the standby has
 *			replayed past the commit LSN of the last invalidation received
 *			for each relation the statement reads (and past the last
 *			flush's): a message that arrives before its commit is replayed
 *			must not let a result computed before that commit be stored
 *			after the bump.
 * Otherwise the statement bypasses the cache: "standby without bus" when
 * there is no bus or no live primary on it, "standby behind" when one of
 * the two positions does not hold yet.
 *
 * The cache calls this after reading the generations and before taking
 * the snapshot (when storing) or serving, so with bus_receive.c's order
 * (replay-needed LSN, then bump, then horizon) a stored result is never
 * older than the snapshot of a statement it is served to.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlogrecovery.h"

#include "bus/bus_internal.h"

CacheBypass
BusStandbyCheck(void)
{
	XLogRecPtr	horizon;
	XLogRecPtr	replay;

	if (bus_shared == NULL || !BusConfigured() ||
		!pg_atomic_read_u32(&bus_shared->usable))
		return CACHE_BYPASS_STANDBY;
	horizon = pg_atomic_read_u64(&bus_shared->horizon);
	if (horizon == InvalidXLogRecPtr)
		return CACHE_BYPASS_STANDBY;
	pg_memory_barrier();

	/*
	 * The end of the record being replayed, not of the last one replayed: the
	 * redo of a commit makes it visible before lastReplayedEndRecPtr moves
	 * past it, so a reader's snapshot may already see a commit whose message
	 * has not arrived (model/sfcache.pml, AS_CODED_REPLAY_PTR).
	 */
	replay = GetCurrentReplayRecPtr(NULL);
	if (horizon < replay)
		return CACHE_BYPASS_STANDBY_BEHIND;
	return CACHE_BYPASS_NONE;
}
