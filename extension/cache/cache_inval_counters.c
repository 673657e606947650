/*-------------------------------------------------------------------------
 *
 * cache_inval_counters.c
 *		The invalidation counters in shared memory: one array of generation
 *		and in-flight counters (per relation slot, then per tracked value),
 *		how a relation or a value maps to its counter, the snapshot a
 *		leader takes of the counters its result depends on and the check
 *		that they have not moved, and the bumps themselves (those of a
 *		commit, cache_inval_commit.c decides when, and those that happen at
 *		once: sfcache.invalidate(), another node's commit, a flush), and, on a
 *		hot standby, the WAL position each relation slot's last invalidation
 *		from another node must be replayed past before the slot's results
 *		may be served or stored again.
 *
 * The protocol (doc/DESIGN.md, "Invalidation"): each relation maps to a slot
 * of a fixed array of atomics, indexed by a hash of (database, relation);
 * a collision only invalidates more. A writer bumps the generation of
 * every counter it wrote (cache_inval_writeset.c), once before its commit
 * becomes visible (PRE_COMMIT, also raising the counter's in-flight count)
 * and once after (COMMIT or ABORT, lowering it). A leader reads the
 * generations, then the in-flight counts, then takes its snapshot; it
 * refuses to store if a commit was in flight and stores only if no
 * generation moved by the time it publishes. Entries are served only while
 * all their generations are current.
 *
 * Another node's commit (the Redis bus) reaches a standby before or after
 * the standby replays it. Its commit LSN is stored as the slots' "replay
 * needed" position before the bump: a leader reads the generations, then
 * (CacheReplayedPast, through CacheCheckStandby) these positions against
 * its replay position, so a result it stores after a bump was computed
 * past that commit.
 *
 * The shared result tier (doc/DESIGN.md, "The shared result tier") keeps
 * per counter a "changed at" LSN: at or past the end of the commit record
 * of every commit this node knows bumped it, raised before the commit
 * counts as known (a local one: before its in-flight counts drop; another
 * node's: before its bump, so before the bus's horizon passes it); a bump
 * with no commit behind it raises it to the node's current position. A
 * shared entry complete at L is served only if no counter it depends on
 * changed after L (CacheCountersUnchangedSince), and on a primary only if
 * it was computed after this node started knowing (CacheKnownFrom). A
 * standby's join (its bus hears a primary anew, or its WAL comes from a
 * new stream) flushes without raising the global changed-at: it records
 * the join LSN instead (CacheJoinedAt), and an older entry is checked
 * against what the primary published (doc/DESIGN.md, "Late joiners"),
 * whose counter numbers CacheCommitCounters gives.
 *
 * Locking: none. The counters are atomics; readers and writers order their
 * accesses with full barriers (pg_atomic_fetch_add_* is one). The array is
 * created once, under AddinShmemInitLock (base_shmem.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/shmem.h"

#include "cache/cache_internal.h"

/*
 * The counters, one array: for each relation slot an "any row" counter,
 * bumped by every write to a relation of that slot, and a "whole relation"
 * counter, bumped only by writes whose rows were not captured; then the
 * tag counters, bumped per (relation, tracked column, value) of each row a
 * capture trigger saw. An entry that depends on a relation as a whole
 * watches its "any row" counter; one that depends only on some values of
 * a tracked column watches its "whole relation" counter and those tags.
 */
#define CACHE_REL_SLOTS CACHE_GEN_SLOTS
#define CACHE_TAG_SLOTS 65536
#define ANY_ROW_COUNTER(slot) (slot)
#define WHOLE_COUNTER(slot) (CACHE_REL_SLOTS + (slot))
#define TAG_COUNTER(tag) (2 * CACHE_REL_SLOTS + (tag))
#define CACHE_COUNTERS (2 * CACHE_REL_SLOTS + CACHE_TAG_SLOTS)

typedef struct GenCounter
{
	pg_atomic_uint64 gen;
	pg_atomic_uint32 inflight;
} GenCounter;

typedef struct InvalShared
{
	pg_atomic_uint64 global_gen;
	pg_atomic_uint32 global_inflight;
	GenCounter	counters[CACHE_COUNTERS];
	/* a standby's: the LSN to replay past, for every result, per slot */
	pg_atomic_uint64 replay_needed_all;
	pg_atomic_uint64 replay_needed[CACHE_REL_SLOTS];
	/* the shared tier's: the LSN each counter last changed at, known from */
	pg_atomic_uint64 changed_at_all;	/* the global counter's */
	pg_atomic_uint64 known_from;	/* a primary's, set at first use */
	pg_atomic_uint64 joined_at; /* a standby's last join flush */
	pg_atomic_uint64 changed_at[CACHE_COUNTERS];
} InvalShared;

static InvalShared *inval = NULL;

/* The generation slot of a relation of any database. */
static uint32
gen_slot_for(Oid dbid, Oid relid)
{
	return hash_combine(hash_uint32(dbid), hash_uint32(relid)) % CACHE_GEN_SLOTS;
}

static uint32
slot_for(Oid relid)
{
	return gen_slot_for(MyDatabaseId, relid);
}

/* The counter an entry watches when it depends on every row of a relation. */
uint32
CacheAnyRowCounter(Oid relid)
{
	return ANY_ROW_COUNTER(slot_for(relid));
}

/* The counter of a relation's writes whose rows were not captured. */
uint32
CacheWholeRelationCounter(Oid relid)
{
	return WHOLE_COUNTER(slot_for(relid));
}

/*
 * The counter of the rows of relid whose column attname has a value
 * hashing (with the column type's default hash opclass) to valuehash.
 */
static uint32
tag_counter(Oid dbid, Oid relid, uint32 column_hash, uint32 value_hash)
{
	uint32		h = hash_combine(hash_uint32(dbid), hash_uint32(relid));

	h = hash_combine(h, column_hash);
	h = hash_combine(h, value_hash);
	return TAG_COUNTER(h % CACHE_TAG_SLOTS);
}

/* The hash of a tracked column's name, as tags carry it. */
uint32
CacheTagColumnHash(const char *attname)
{
	return hash_bytes((const unsigned char *) attname, strlen(attname));
}

uint32
CacheTagCounter(Oid relid, const char *attname, uint32 valuehash)
{
	return tag_counter(MyDatabaseId, relid, CacheTagColumnHash(attname), valuehash);
}

/* The same with the column's name hashed already (CacheTagColumnHash). */
uint32
CacheTagCounterOf(Oid relid, uint32 column_hash, uint32 valuehash)
{
	return tag_counter(MyDatabaseId, relid, column_hash, valuehash);
}

/* Pure: the generation and in-flight counters. */
static Size
inval_shmem_size(void)
{
	return MAXALIGN(sizeof(InvalShared));
}

/* Caller must hold AddinShmemInitLock. */
static void
inval_shmem_init(void)
{
	bool		found;

	inval = ShmemInitStruct("sfcache generations", sizeof(InvalShared), &found);
	if (!found)
	{
		pg_atomic_init_u64(&inval->global_gen, 1);
		pg_atomic_init_u32(&inval->global_inflight, 0);
		pg_atomic_init_u64(&inval->replay_needed_all, InvalidXLogRecPtr);
		for (int i = 0; i < CACHE_REL_SLOTS; i++)
			pg_atomic_init_u64(&inval->replay_needed[i], InvalidXLogRecPtr);
		pg_atomic_init_u64(&inval->changed_at_all, InvalidXLogRecPtr);
		pg_atomic_init_u64(&inval->known_from, InvalidXLogRecPtr);
		pg_atomic_init_u64(&inval->joined_at, InvalidXLogRecPtr);
		for (int i = 0; i < CACHE_COUNTERS; i++)
			pg_atomic_init_u64(&inval->changed_at[i], InvalidXLogRecPtr);
		for (int i = 0; i < CACHE_COUNTERS; i++)
		{
			pg_atomic_init_u64(&inval->counters[i].gen, 1);
			pg_atomic_init_u32(&inval->counters[i].inflight, 0);
		}
	}
}

/* The generations' part of shared memory (no locks: atomics). */
const SfcShmemPart CacheInvalShmemPart = {
	NULL, 0, inval_shmem_size, inval_shmem_init
};

/* ---- reading side ---- */

/*
 * Read the given counters (CacheResultCounters), before the caller
 * takes the snapshot it executes with. Returns false when a commit
 * touching one of them (or a global one) is in flight: such a result must
 * not be stored.
 */
bool
CacheGenSnapshotTake(const uint32 *counters, int ncounters, CacheGenSnapshot *snap)
{
	bool		quiet = true;

	Assert(ncounters <= CACHE_MAX_COUNTERS);
	snap->nslots = 0;
	for (int c = 0; c < ncounters; c++)
	{
		int			i;

		for (i = 0; i < snap->nslots && snap->slots[i] != counters[c]; i++)
			;
		if (i == snap->nslots)
			snap->slots[snap->nslots++] = counters[c];
	}

	snap->global_gen = pg_atomic_read_u64(&inval->global_gen);
	for (int i = 0; i < snap->nslots; i++)
		snap->gens[i] = pg_atomic_read_u64(&inval->counters[snap->slots[i]].gen);

	/* The in-flight counts must be read after the generations. */
	pg_memory_barrier();

	if (pg_atomic_read_u32(&inval->global_inflight) != 0)
		quiet = false;
	for (int i = 0; i < snap->nslots && quiet; i++)
		if (pg_atomic_read_u32(&inval->counters[snap->slots[i]].inflight) != 0)
			quiet = false;

	/* ... and before the snapshot the caller takes next. */
	pg_memory_barrier();
	return quiet;
}

/* True if no generation has moved from the values given. */
bool
CacheGensAreCurrent(uint64 global_gen, int nslots, const uint32 *slots, const uint64 *gens)
{
	pg_memory_barrier();
	if (pg_atomic_read_u64(&inval->global_gen) != global_gen)
		return false;
	for (int i = 0; i < nslots; i++)
		if (pg_atomic_read_u64(&inval->counters[slots[i]].gen) != gens[i])
			return false;
	return true;
}

/* True if no counter of the snapshot has moved since it was taken. */
bool
CacheGenSnapshotIsCurrent(const CacheGenSnapshot *snap)
{
	return CacheGensAreCurrent(snap->global_gen, snap->nslots, snap->slots, snap->gens);
}

/* ---- writing side ---- */

static void advance_lsn(pg_atomic_uint64 *target, XLogRecPtr lsn);

/* This node's WAL position now: the insert position, or the record replayed. */
static XLogRecPtr
current_position(void)
{
	return RecoveryInProgress() ? GetCurrentReplayRecPtr(NULL) : GetXLogInsertRecPtr();
}

/*
 * A local commit at lsn (the end of its commit record) bumped the counters
 * of the set (NULL: none) and, if global, the global one: raise their
 * changed-at LSNs, before CacheCountersAfterCommit lowers their in-flight
 * counts (the shared tier's readers rely on that order).
 */
void
CacheCountersChangedAt(const CacheCounterSet *counters, bool global, XLogRecPtr lsn)
{
	int			pos = -1;
	uint32		c;

	while (counters != NULL && CacheCounterSetNext(counters, &pos, &c))
		advance_lsn(&inval->changed_at[c], lsn);
	if (global)
		advance_lsn(&inval->changed_at_all, lsn);
	pg_memory_barrier();
}

/*
 * Before a commit becomes visible: mark the counters of the set (NULL:
 * none) and, if global, the global generation in flight, and invalidate.
 */
void
CacheCountersBeforeCommit(const CacheCounterSet *counters, bool global)
{
	int			pos = -1;
	uint32		c;

	while (counters != NULL && CacheCounterSetNext(counters, &pos, &c))
	{
		pg_atomic_fetch_add_u32(&inval->counters[c].inflight, 1);
		pg_atomic_fetch_add_u64(&inval->counters[c].gen, 1);
	}
	if (global)
	{
		pg_atomic_fetch_add_u32(&inval->global_inflight, 1);
		pg_atomic_fetch_add_u64(&inval->global_gen, 1);
	}
}

/*
 * After the commit became visible (or the transaction aborted): the same
 * counters as CacheCountersBeforeCommit, bumped again and no longer in
 * flight.
 */
void
CacheCountersAfterCommit(const CacheCounterSet *counters, bool global)
{
	int			pos = -1;
	uint32		c;

	while (counters != NULL && CacheCounterSetNext(counters, &pos, &c))
	{
		pg_atomic_fetch_add_u64(&inval->counters[c].gen, 1);
		pg_atomic_fetch_sub_u32(&inval->counters[c].inflight, 1);
	}
	if (global)
	{
		pg_atomic_fetch_add_u64(&inval->global_gen, 1);
		pg_atomic_fetch_sub_u32(&inval->global_inflight, 1);
	}
}

/* Raise *target to lsn, never lower it. */
static void
advance_lsn(pg_atomic_uint64 *target, XLogRecPtr lsn)
{
	uint64		old = pg_atomic_read_u64(target);

	while (old < lsn && !pg_atomic_compare_exchange_u64(target, &old, lsn))
		;
}

/*
 * Before another node's invalidation bumps: the relations' slots must be
 * replayed past its commit (a local one has no LSN).
 */
static void
note_replay_needed(Oid dbid, int nrelids, const Oid *relids, XLogRecPtr replay_needed)
{
	XLogRecPtr	changed = replay_needed != InvalidXLogRecPtr ? replay_needed : current_position();

	/* the shared tier's changed-at, of both relation counters */
	for (int i = 0; i < nrelids; i++)
	{
		uint32		slot = gen_slot_for(dbid, relids[i]);

		advance_lsn(&inval->changed_at[ANY_ROW_COUNTER(slot)], changed);
		advance_lsn(&inval->changed_at[WHOLE_COUNTER(slot)], changed);
	}
	if (replay_needed == InvalidXLogRecPtr)
		return;
	for (int i = 0; i < nrelids; i++)
		advance_lsn(&inval->replay_needed[gen_slot_for(dbid, relids[i])],
					replay_needed);
	pg_memory_barrier();
}

/*
 * Bump the given relations of any database now, as another node's commit
 * reported them or sfcache.invalidate() names them (already with their
 * ancestors and descendants). replay_needed is another node's commit LSN
 * (InvalidXLogRecPtr for a local invalidation): on a standby, results over
 * these relations are served and stored again once replayed past it.
 */
void
CacheInvalidateRelationsOf(Oid dbid, int nrelids, const Oid *relids,
						   XLogRecPtr replay_needed)
{
	note_replay_needed(dbid, nrelids, relids, replay_needed);
	for (int i = 0; i < nrelids; i++)
	{
		uint32		slot = gen_slot_for(dbid, relids[i]);

		/* every result over the relation drops, whatever its tags */
		pg_atomic_fetch_add_u64(&inval->counters[ANY_ROW_COUNTER(slot)].gen, 1);
		pg_atomic_fetch_add_u64(&inval->counters[WHOLE_COUNTER(slot)].gen, 1);
	}
}

/*
 * Bump, as another node's commit reported them, the "any row" counters of
 * relations written by rows that were all captured and the tags of those
 * rows: results restricted on other values of the relations stay (the
 * same bumps as that commit made where it ran).
 */
void
CacheInvalidateRowsOf(Oid dbid, int nrelids, const Oid *relids,
					  int ntags, const CacheTag *tags, XLogRecPtr replay_needed)
{
	note_replay_needed(dbid, nrelids, relids, replay_needed);
	for (int i = 0; i < ntags; i++)
		advance_lsn(&inval->changed_at[tag_counter(dbid, tags[i].relid, tags[i].column_hash,
												   tags[i].value_hash)],
					replay_needed != InvalidXLogRecPtr ? replay_needed : current_position());
	pg_memory_barrier();
	for (int i = 0; i < nrelids; i++)
		pg_atomic_fetch_add_u64(&inval->counters[ANY_ROW_COUNTER(gen_slot_for(dbid, relids[i]))].gen, 1);
	for (int i = 0; i < ntags; i++)
		pg_atomic_fetch_add_u64(&inval->counters[tag_counter(dbid, tags[i].relid,
															 tags[i].column_hash,
															 tags[i].value_hash)].gen, 1);
}

/*
 * Every result is stale: raise *changed (the global counter's changed-at,
 * or the join LSN) to replay_needed or, without one, to this node's
 * position, then bump the global generation.
 */
static void
invalidate_all(pg_atomic_uint64 *changed, XLogRecPtr replay_needed)
{
	advance_lsn(changed, replay_needed != InvalidXLogRecPtr ?
				replay_needed : current_position());
	pg_memory_barrier();
	if (replay_needed != InvalidXLogRecPtr)
	{
		advance_lsn(&inval->replay_needed_all, replay_needed);
		pg_memory_barrier();
	}
	pg_atomic_fetch_add_u64(&inval->global_gen, 1);
}

/* Bump the global generation now: every result is stale (see above). */
void
CacheInvalidateAllNow(XLogRecPtr replay_needed)
{
	invalidate_all(&inval->changed_at_all, replay_needed);
}

/*
 * The same flush when a standby joins the stream of a primary's commits
 * (its bus connects or hears a primary for the first time, or its WAL
 * comes from a new stream): the commits before it are unknown here, so
 * instead of refusing every shared entry older than the join, an entry
 * older than the join LSN is checked against the changes its primary
 * published (doc/DESIGN.md, "Late joiners"; CacheJoinedAt).
 */
void
CacheInvalidateAllOnJoin(XLogRecPtr replay_needed)
{
	invalidate_all(&inval->joined_at, replay_needed);
}

/*
 * On a standby: has it replayed past every invalidation another node told
 * it of, for the relations of this database a statement reads?
 */
bool
CacheReplayedPast(List *relids, XLogRecPtr replay)
{
	ListCell   *lc;

	if (pg_atomic_read_u64(&inval->replay_needed_all) > replay)
		return false;
	foreach(lc, relids)
	{
		uint32		slot = slot_for(lfirst_oid(lc));

		if (pg_atomic_read_u64(&inval->replay_needed[slot]) > replay)
			return false;
	}
	return true;
}

/* For sfcache.bus: the slots not replayed past yet, and the global LSN. */
int
CacheSlotsAwaitingReplay(XLogRecPtr replay, XLogRecPtr *replay_needed_all)
{
	int			n = 0;

	*replay_needed_all = pg_atomic_read_u64(&inval->replay_needed_all);
	for (int i = 0; i < CACHE_REL_SLOTS; i++)
		if (pg_atomic_read_u64(&inval->replay_needed[i]) > replay)
			n++;
	return n;
}

/* ---- the shared tier's side (cache_shared.c) ---- */

/*
 * A primary's knowledge start: commits before it are unknown to
 * changed_at[] (shared memory begins empty). Set to the insert position at
 * the first call after recovery ended; every commit after it runs through
 * this node's hooks. InvalidXLogRecPtr on a standby.
 */
XLogRecPtr
CacheKnownFrom(void)
{
	uint64		known;
	uint64		expected = InvalidXLogRecPtr;

	if (RecoveryInProgress())
		return InvalidXLogRecPtr;
	known = pg_atomic_read_u64(&inval->known_from);
	if (known != InvalidXLogRecPtr)
		return known;
	known = GetXLogInsertRecPtr();
	if (!pg_atomic_compare_exchange_u64(&inval->known_from, &expected, known))
		known = expected;
	return known;
}

/* A standby's last join LSN (CacheInvalidateAllOnJoin); 0 before any. */
XLogRecPtr
CacheJoinedAt(void)
{
	pg_memory_barrier();
	return pg_atomic_read_u64(&inval->joined_at);
}

/*
 * The counters whose changed-at a receiver of this commit raises (as
 * note_replay_needed and CacheInvalidateRowsOf do): what a primary
 * publishes for late joiners. out holds max; returns how many were
 * written, or -1 if they would not fit.
 */
int
CacheCommitCounters(Oid dbid, int nrelids, const Oid *relids, int nrow_relids,
					const Oid *row_relids, int ntags, const CacheTag *tags,
					uint32 *out, int max)
{
	int			n = 0;

	if (2 * (nrelids + nrow_relids) + ntags > max)
		return -1;

	for (int i = 0; i < nrelids + nrow_relids; i++)
	{
		uint32		slot = gen_slot_for(dbid, i < nrelids ? relids[i] :
										row_relids[i - nrelids]);

		out[n++] = ANY_ROW_COUNTER(slot);
		out[n++] = WHOLE_COUNTER(slot);
	}
	for (int i = 0; i < ntags; i++)
		out[n++] = tag_counter(dbid, tags[i].relid, tags[i].column_hash, tags[i].value_hash);
	return n;
}

/* No commit in flight on these counters nor on the global one? */
bool
CacheCountersQuiet(const uint32 *counters, int ncounters)
{
	pg_memory_barrier();
	if (pg_atomic_read_u32(&inval->global_inflight) != 0)
		return false;
	for (int i = 0; i < ncounters; i++)
		if (pg_atomic_read_u32(&inval->counters[counters[i]].inflight) != 0)
			return false;
	pg_memory_barrier();
	return true;
}

/*
 * Did no commit this node knows of change these counters (or the global
 * one) after lsn? The caller has checked that its knowledge is complete
 * (doc/DESIGN.md, the serve rule's step 2) before.
 */
bool
CacheCountersUnchangedSince(const uint32 *counters, int ncounters, XLogRecPtr lsn)
{
	pg_memory_barrier();
	if (pg_atomic_read_u64(&inval->changed_at_all) > lsn)
		return false;
	for (int i = 0; i < ncounters; i++)
		if (pg_atomic_read_u64(&inval->changed_at[counters[i]]) > lsn)
			return false;
	return true;
}
