/*-------------------------------------------------------------------------
 *
 * bus_receive.c
 *		Owns what the worker does with another node's message: the peer
 *		table (last sequence, watermark, liveness), the rules for own
 *		messages, duplicates and gaps, the generation bumps (with the
 *		commit LSN a standby must replay past, which the cache keeps beside
 *		its counters), and the standby's horizon.
 *
 * Rules, per sender (its name; a new incarnation is a new sender):
 *	- own messages (our node name) are skipped;
 *	- the first message of a primary since we connected (or of a standby
 *	  since it was promoted; on a standby, a primary not heard since we
 *	  connected is a join: BusFlushJoin), and any gap in its
 *	  sequence (a heartbeat repeats the last sequence sent, so a lost last
 *	  message shows too), flush everything: we cannot know what was lost;
 *	- a sequence already seen is a duplicate, skipped;
 *	- otherwise R bumps the relations' generations (those written by
 *	  captured rows only for the tags it lists, as where it committed), D
 *	  and F everything.
 * Each bump carries the commit's LSN (for a flush, the larger of the
 * sender's highest published commit LSN and its watermark: a lost
 * message's commit lies before the first, a commit never published (made
 * while its node was off the bus) before the second); the cache stores it
 * before it bumps, and a standby serves or stores results over those
 * relations again once replayed past it.
 * Relation OIDs name the same relations only between nodes sharing a
 * system identifier (a primary, its standbys, their promoted clones):
 * another cluster's commit flushes everything.
 *
 * Only the worker writes the peer table; it takes bus_shared->lock for
 * it since sfcache.bus_peers reads it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "utils/timestamp.h"

#include "bus/bus_internal.h"

/* Flush every result; a standby stores again once replayed past replay_needed. */
void
BusFlushAll(XLogRecPtr replay_needed)
{
	CacheInvalidateAllNow(replay_needed);
	BusCount(BUS_FLUSHES);
}

/*
 * The same when a standby joins a primary's stream of commits: commits
 * before the join are unknown here, and shared entries older than it are
 * checked against what the primary published (doc/DESIGN.md, "Late
 * joiners").
 */
void
BusFlushJoin(XLogRecPtr replay_needed)
{
	CacheInvalidateAllOnJoin(replay_needed);
	BusCount(BUS_FLUSHES);
}

/*
 * The standby's horizon: the smallest watermark of the live primaries
 * sharing our system identifier (0 when there is none, or no bus).
 */
void
BusRecomputeHorizon(void)
{
	uint64		sysid = GetSystemIdentifier();
	XLogRecPtr	horizon = InvalidXLogRecPtr;
	bool		any = false;

	LWLockAcquire(bus_shared->lock, LW_SHARED);
	for (int i = 0; i < BUS_MAX_PEERS; i++)
	{
		BusPeer    *p = &bus_shared->peers[i];

		if (!p->used || !p->alive || !p->primary || p->sysid != sysid)
			continue;
		if (!any || p->watermark < horizon)
			horizon = p->watermark;
		any = true;
	}
	LWLockRelease(bus_shared->lock);
	if (!pg_atomic_read_u32(&bus_shared->usable))
		horizon = InvalidXLogRecPtr;
	pg_atomic_write_u64(&bus_shared->horizon, horizon);
}

/* After a reconnection: every sender is new again. */
void
BusForgetPeers(void)
{
	LWLockAcquire(bus_shared->lock, LW_EXCLUSIVE);
	for (int i = 0; i < BUS_MAX_PEERS; i++)
		bus_shared->peers[i].used = false;
	LWLockRelease(bus_shared->lock);
	BusRecomputeHorizon();
}

/* The worker's liveness check of a peer's key. */
void
BusPeerLiveness(const char *name, bool alive)
{
	LWLockAcquire(bus_shared->lock, LW_EXCLUSIVE);
	for (int i = 0; i < BUS_MAX_PEERS; i++)
		if (bus_shared->peers[i].used && strcmp(bus_shared->peers[i].name, name) == 0)
			bus_shared->peers[i].alive = alive;
	LWLockRelease(bus_shared->lock);
	BusRecomputeHorizon();
}

/*
 * The peer named by msg, created (as unknown: *is_new) if needed; NULL if
 * the table is full. *known_name: a peer of that name was heard since we
 * connected (it restarted, if *is_new). Caller must hold bus_shared->lock
 * exclusively.
 */
static BusPeer *
find_peer(const BusMsg *msg, bool *is_new, bool *known_name)
{
	BusPeer    *free_slot = NULL;

	*is_new = false;
	*known_name = false;
	for (int i = 0; i < BUS_MAX_PEERS; i++)
	{
		BusPeer    *p = &bus_shared->peers[i];

		if (!p->used)
		{
			if (free_slot == NULL)
				free_slot = p;
			continue;
		}
		if (strcmp(p->name, msg->node) != 0)
			continue;
		*known_name = true;
		if (p->incarnation == msg->incarnation)
			return p;
		free_slot = p;			/* restarted: a new sender */
		break;
	}
	if (free_slot == NULL)
		return NULL;
	memset(free_slot, 0, sizeof(BusPeer));
	free_slot->used = true;
	strlcpy(free_slot->name, msg->node, BUS_NAME_LEN);
	free_slot->incarnation = msg->incarnation;
	*is_new = true;
	return free_slot;
}

typedef enum Verdict
{
	APPLY,
	SKIP_DUPLICATE,
	FLUSH_JOIN,					/* a standby hears a primary it had not */
	FLUSH_NEW,
	FLUSH_GAP
} Verdict;

/*
 * Say what to do with msg, from its peer's entry (*peer: NULL when the
 * table is full). The entry is updated only once the message is acted on
 * (heard()), so that sfcache.bus_peers' last_seq is a message applied.
 */
static Verdict
judge(const BusMsg *msg, BusPeer **peer)
{
	bool		is_new;
	bool		known_name;
	Verdict		v;

	LWLockAcquire(bus_shared->lock, LW_EXCLUSIVE);
	*peer = find_peer(msg, &is_new, &known_name);
	if (*peer == NULL)
		v = FLUSH_NEW;			/* too many peers: untracked, so always flush */
	else if (is_new && msg->primary && !known_name && RecoveryInProgress() &&
			 msg->sysid == GetSystemIdentifier())
		v = FLUSH_JOIN;
	else if (is_new || (msg->primary && !(*peer)->primary))
		v = msg->primary ? FLUSH_NEW : APPLY;	/* a standby writes nothing */
	else if (msg->seq < (*peer)->last_seq ||
			 (msg->seq == (*peer)->last_seq && msg->kind != BUS_MSG_HEARTBEAT))
		v = SKIP_DUPLICATE;
	else if (msg->seq > (*peer)->last_seq + (msg->kind == BUS_MSG_HEARTBEAT ? 0 : 1))
		v = FLUSH_GAP;
	else
		v = APPLY;
	LWLockRelease(bus_shared->lock);
	return v;
}

/* Record msg, acted on, in its peer's entry. */
static void
heard(BusPeer *peer, const BusMsg *msg)
{
	LWLockAcquire(bus_shared->lock, LW_EXCLUSIVE);
	peer->last_seq = msg->seq;
	peer->sysid = msg->sysid;
	peer->primary = msg->primary;
	peer->watermark = msg->watermark;
	peer->highest_lsn = msg->highest_lsn;
	peer->last_heard = GetCurrentTimestamp();
	peer->alive = true;
	LWLockRelease(bus_shared->lock);
}

/* Bump what msg invalidates, with its commit's LSN. */
static void
apply(const BusMsg *msg, bool same_cluster)
{
	if (msg->kind == BUS_MSG_HEARTBEAT)
		return;
	if (!same_cluster || msg->kind != BUS_MSG_RELATIONS)
	{
		BusFlushAll(same_cluster ? Max(msg->lsn, msg->highest_lsn) : InvalidXLogRecPtr);
		return;
	}
	CacheInvalidateRelationsOf(msg->dbid, msg->nrelids, msg->relids, msg->lsn);
	CacheInvalidateRowsOf(msg->dbid, msg->nrow_relids, msg->row_relids,
						  msg->ntags, msg->tags, msg->lsn);
}

/* The worker: one message from the channel. */
void
BusReceive(const BusMsg *msg)
{
	bool		same_cluster = msg->sysid == GetSystemIdentifier();
	BusPeer    *peer;

	if (strcmp(msg->node, bus_shared->node) == 0)
	{
		BusCount(BUS_OWN);
		return;
	}
	BusCount(BUS_RECEIVED);
	switch (judge(msg, &peer))
	{
		case SKIP_DUPLICATE:
			BusCount(BUS_DUPLICATES);
			return;
		case FLUSH_JOIN:
			BusFlushJoin(Max(msg->highest_lsn, msg->watermark));
			break;
		case FLUSH_GAP:
			BusCount(BUS_GAPS);
			pg_fallthrough;
		case FLUSH_NEW:
			/* what was lost lies at or before both (see the file header) */
			BusFlushAll(same_cluster ? Max(msg->highest_lsn, msg->watermark) :
						InvalidXLogRecPtr);
			break;
		case APPLY:
			apply(msg, same_cluster);
			/* bench/bus-latency pairs these lines with commit timestamps */
			if (msg->kind != BUS_MSG_HEARTBEAT)
				elog(DEBUG1, "sfcache bus: applied %c seq " UINT64_FORMAT " from \"%s\" lsn %X/%X relation %u at %s",
					 (char) msg->kind, msg->seq, msg->node, LSN_FORMAT_ARGS(msg->lsn),
					 msg->nrelids > 0 ? msg->relids[0] : InvalidOid,
					 timestamptz_to_str(GetCurrentTimestamp()));
			break;
	}
	if (peer != NULL)
		heard(peer, msg);
	BusRecomputeHorizon();
}
