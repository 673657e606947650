/*-------------------------------------------------------------------------
 *
 * cache_shared.c
 *		The cache's side of the shared result tier (sfcache.redis_results):
 *		what a shared entry holds, the rule under which one computed on
 *		another node of the physical cluster may be served here, and a
 *		leader's use of the tier: GET, then serve or take the cross-node
 *		lock, wait for another node's result, put its own. The Redis side
 *		registers itself (CacheRegisterSharedTier, extension/bus).
 *
 * The rule (doc/DESIGN.md, "The shared result tier", which
 * model/sfcache.pml checks): an entry carries L, a position such that every
 * commit on the result's counters whose record ends at or before L was
 * visible to its snapshot (CacheSharedStart reads it before the leader
 * reads its counters: the insert position on a primary, which the quiet
 * counters make exact, the replay position on a standby). A reader is
 * served it only if (1) it is well formed, of the reader's column types;
 * (2) its node knows every commit its statement's snapshot sees (a
 * primary: no commit in flight on its counters, and L at or past the
 * node's knowledge start; a standby: the standby check); (3) no counter of
 * the reader's changed after L as far as its node knows (changed_at[],
 * cache_inval_counters.c); (3') on a standby, for an entry older than
 * its join (CacheJoinedAt: the commits before it are unknown here), the
 * changes its primary published in Redis say the same (doc/DESIGN.md,
 * "Late joiners"); (4) on a standby, L is replayed (monotonic reads).
 *
 * An entry read from Redis is checked to be well formed before anything
 * reads its rows; Redis itself must be as trusted as the database (README,
 * Security).
 *
 * A leader asks Redis up to four times (GET, the lock, SET, the unlock):
 * for a statement that runs in less time than that, the tier costs every
 * leader more than it could save on any node, so the statement's leaders
 * compute without it (tier_pays; sfcache.redis_results_min_duration). The
 * node's measure of those four is taken from the leaders that computed
 * (a shared hit asks once; a failure closes the tier for a second anyway).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/timestamp.h"

#include "cache/cache_internal.h"

#define SHARED_MAGIC 0x53465231 /* "SFR1": this layout */
#define SHARED_POLL_FIRST_MS 2	/* a waiter's first poll, doubled up to */
#define SHARED_POLL_MAX_MS 20
#define SHARED_MIN_LOCK_MS 100	/* a lock expires after wait_timeout, or this */

/*
 * One leader in this many of a statement the tier does not pay for uses it
 * all the same, so that the node's measure of the tier follows Redis (a
 * slow spell does not shut the tier for good).
 */
#define TIER_SAMPLE_EVERY 16

/* An entry as it is stored in the tier. */
typedef struct SharedHeader
{
	uint32		magic;
	uint32		version_hash;	/* of SFCACHE_VERSION: keys and rows of this
								 * build */
	XLogRecPtr	complete_at;	/* L */
	uint32		natts;
	uint32		pad;
	uint64		tuples_len;
	uint64		datarows_len;
	/* Oid types[natts], int32 typmods[natts], MAXALIGNed; tuples; datarows */
} SharedHeader;

typedef enum SharedVerdict
{
	SHARED_SERVE,
	SHARED_REFUSE,				/* the rule refuses it */
	SHARED_NEWER				/* not replayed here yet: maybe later */
} SharedVerdict;

static const CacheSharedTier *tier = NULL;

/* From an Init (the bus's): the tier's Redis side. */
void
CacheRegisterSharedTier(const CacheSharedTier *shared_tier)
{
	tier = shared_tier;
}

uint32
CacheSharedLayout(void)
{
	return hash_bytes((const unsigned char *) SFCACHE_VERSION, strlen(SFCACHE_VERSION));
}

static Size
types_size(uint32 natts)
{
	return MAXALIGN((Size) natts * (sizeof(Oid) + sizeof(int32)));
}

/*
 * Does the tier pay for a leader of this statement: does the statement's
 * mean run (from its leaders, with or without the tier) take at least as
 * long as the floor, the node's mean time of a leader's Redis commands
 * unless sfcache.redis_results_min_duration sets one? While either is
 * unknown, it does.
 */
static bool
tier_pays(uint64 queryid)
{
	/* per backend, over every statement: the samples measure Redis */
	static uint32 skipped = 0;
	uint64		floor_us;
	uint32		run_us;

	if (cache_shared_min_duration_ms == 0)
		return true;
	floor_us = cache_shared_min_duration_ms > 0 ?
		(uint64) cache_shared_min_duration_ms * 1000 : CacheStatsTierMean();
	run_us = CacheStatsRunMean(queryid);
	if (floor_us == 0 || run_us == 0 || run_us >= floor_us)
		return true;
	return cache_shared_min_duration_ms < 0 && ++skipped % TIER_SAMPLE_EVERY == 0;
}

/* The time since "since" was spent in the tier's commands. */
static void
add_tier_time(CacheSharedLead *lead, instr_time since)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_ACCUM_DIFF(lead->tier_time, now, since);
}

/*
 * Before the leader reads its counters: whether this execution uses the
 * tier, and L for what it computes. On a primary the knowledge start is
 * set first, so a result computed here is never refused here for it.
 */
void
CacheSharedStart(CacheSharedLead *lead, CacheKey key, uint64 queryid, bool eligible)
{
	TimeLineID	tli;

	memset(lead, 0, sizeof(*lead));
	if (!eligible || tier == NULL || cache_cache_mode != CACHE_MODE_ON || !tier->enabled() ||
		!tier_pays(queryid))
		return;
	if (RecoveryInProgress())
		lead->complete_at = GetXLogReplayRecPtr(&tli);
	else
	{
		(void) CacheKnownFrom();
		tli = GetWALInsertionTimeLine();
		lead->complete_at = GetXLogInsertRecPtr();
	}
	/* L is read before the counters (and so before the snapshot) */
	pg_memory_barrier();
	lead->active = true;
	lead->queryid = queryid;
	lead->name.sysid = GetSystemIdentifier();
	lead->name.timeline = tli;
	lead->name.key_hi = key.hi;
	lead->name.key_lo = key.lo;
}

/* Step 1: is data a whole entry of this build, with tupdesc's columns? */
static bool
well_formed(const char *data, Size len, TupleDesc tupdesc, SharedHeader *h)
{
	const Oid  *types;
	const int32 *typmods;
	const char *tuples;
	Size		pos = 0;

	if (len < MAXALIGN(sizeof(SharedHeader)))
		return false;
	memcpy(h, data, sizeof(SharedHeader));
	if (h->magic != SHARED_MAGIC || h->version_hash != CacheSharedLayout() ||
		h->natts != (uint32) tupdesc->natts ||
		h->tuples_len > (uint64) cache_max_entry_size_kb * 1024 ||
		h->datarows_len > (uint64) cache_max_entry_size_kb * 1024 ||
		len != MAXALIGN(sizeof(SharedHeader)) + types_size(h->natts) +
		h->tuples_len + h->datarows_len)
		return false;
	types = (const Oid *) (data + MAXALIGN(sizeof(SharedHeader)));
	typmods = (const int32 *) (types + h->natts);
	for (int i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);

		if (types[i] != att->atttypid || typmods[i] != att->atttypmod)
			return false;
	}
	/* each minimal tuple lies inside the rows, with at most natts columns */
	tuples = data + MAXALIGN(sizeof(SharedHeader)) + types_size(h->natts);
	while (pos < h->tuples_len)
	{
		MinimalTuple mt = (MinimalTuple) (tuples + pos);
		uint32		t_len;

		if (h->tuples_len - pos < offsetof(MinimalTupleData, t_bits))
			return false;
		t_len = mt->t_len;
		if (t_len < offsetof(MinimalTupleData, t_bits) || t_len > h->tuples_len - pos ||
			(mt->t_infomask2 & HEAP_NATTS_MASK) > tupdesc->natts ||
			mt->t_hoff > t_len + MINIMAL_TUPLE_OFFSET)
			return false;
		pos += MAXALIGN(t_len);
	}
	return pos == h->tuples_len;
}

/*
 * Step 3' for an entry older than this standby's join: read after step 2,
 * the primary's published changes say that none of the counters changed
 * after complete_at, none of its commits went unpublished after it (k),
 * and its heartbeats reached the replay position read before the hash (w:
 * under the WAL's rule step 2 does not order the hash with replay; on the
 * bus its horizon implies it).
 */
static bool
unchanged_as_published(const CacheSharedName *name, XLogRecPtr complete_at,
					   const uint32 *counters, int ncounters, bool *error)
{
	XLogRecPtr	replayed = GetCurrentReplayRecPtr(NULL);
	CacheSharedChanges changes;

	if (tier->changes == NULL ||
		!tier->changes(name, counters, ncounters, &changes, error))
		return false;
	return changes.known_from <= complete_at && changes.changed_at <= complete_at &&
		changes.watermark >= replayed;
}

/*
 * Does this standby's own knowledge miss commits an entry complete at
 * complete_at must be checked against? Those before its join; and, under
 * the WAL's rule while its start horizon is ahead, those of transactions
 * whose record came before replay began (never replayed here): any entry.
 */
static bool
knowledge_incomplete(XLogRecPtr complete_at)
{
	return complete_at < CacheJoinedAt() || (CacheWalTrusted() && CacheWalStartPending());
}

/* Steps 2, 3', 3 and 4 of the serve rule, for an entry complete at complete_at. */
static SharedVerdict
judge(const CacheSharedName *name, XLogRecPtr complete_at, List *relids,
	  const uint32 *counters, int ncounters, bool *error)
{
	if (RecoveryInProgress())
	{
		/* 2: every commit the snapshot sees has reached this node */
		if (CacheCheckStandby(relids, false) != CACHE_BYPASS_NONE)
			return SHARED_REFUSE;
		/* 3': commits unknown to changed_at[] */
		if (knowledge_incomplete(complete_at) &&
			!unchanged_as_published(name, complete_at, counters, ncounters, error))
			return SHARED_REFUSE;
	}
	else if (!CacheCountersQuiet(counters, ncounters) || complete_at < CacheKnownFrom())
		return SHARED_REFUSE;
	/* 3: none of them changed after the result's snapshot */
	if (!CacheCountersUnchangedSince(counters, ncounters, complete_at))
		return SHARED_REFUSE;
	/* 4: what it shows is visible to this session's next statements */
	if (RecoveryInProgress() && complete_at > GetXLogReplayRecPtr(NULL))
		return SHARED_NEWER;
	return SHARED_SERVE;
}

/* Copy a served entry's rows into local memory, as a hit has them. */
static void
copy_rows(const char *data, const SharedHeader *h, CachedResult *result)
{
	const char *tuples = data + MAXALIGN(sizeof(SharedHeader)) + types_size(h->natts);

	result->len = h->tuples_len;
	result->data = palloc(Max(result->len, 1));
	memcpy(result->data, tuples, result->len);
	result->datarows = NULL;
	result->datarows_len = h->datarows_len;
	if (h->datarows_len > 0)
	{
		result->datarows = palloc(h->datarows_len);
		memcpy(result->datarows, tuples + h->tuples_len, h->datarows_len);
	}
}

/* One GET: served (rows in *result), refused, newer, or missing/error. */
static bool
try_serve(CacheSharedLead *lead, List *relids, const uint32 *counters, int ncounters,
		  TupleDesc tupdesc, CachedResult *result, bool *refused, bool *error)
{
	SharedHeader h;
	SharedVerdict v = SHARED_REFUSE;
	Size		len;
	char	   *data = tier->get(&lead->name, &len, error);

	if (data == NULL)
		return false;
	if (well_formed(data, len, tupdesc, &h))
		v = judge(&lead->name, h.complete_at, relids, counters, ncounters, error);
	if (v == SHARED_SERVE)
		copy_rows(data, &h, result);
	else
		*refused = true;
	pfree(data);
	return v == SHARED_SERVE;
}

static int
lock_expiry_ms(void)
{
	return Max(cache_wait_timeout_ms, SHARED_MIN_LOCK_MS);
}

/* The tier failed: count it, and use it no more in this execution. */
static bool
tier_failed(CacheSharedLead *lead)
{
	CacheStatsCount(CACHE_STAT_SHARED_ERRORS, lead->queryid);
	lead->active = false;
	return false;
}

/* The ending of a fetch that serves nothing: count a refusal once. */
static bool
not_served(CacheSharedLead *lead, bool refused)
{
	if (refused)
		CacheStatsCount(CACHE_STAT_SHARED_REFUSALS, lead->queryid);
	return false;
}

/*
 * A leader, after reading its counters (and, on a standby, passing the
 * standby check): serve a shared entry if the rule allows it (true: rows in
 * *result, counted as a hit and a shared hit); otherwise take the
 * cross-node lock, or wait for the node holding it to put its result, for
 * at most sfcache.wait_timeout, and return false to compute.
 */
bool
CacheSharedFetch(CacheSharedLead *lead, List *relids, const uint32 *counters, int ncounters,
				 TupleDesc tupdesc, CachedResult *result)
{
	TimestampTz start = GetCurrentTimestamp();
	long		sleep_ms = SHARED_POLL_FIRST_MS;
	bool		refused = false;
	bool		waited = false;
	bool		error = false;
	instr_time	asked;

	if (!lead->active)
		return false;
	for (;;)
	{
		long		left;
		CacheSharedLock locked;

		INSTR_TIME_SET_CURRENT(asked);
		if (try_serve(lead, relids, counters, ncounters, tupdesc, result, &refused, &error))
		{
			CacheStatsCount(CACHE_STAT_HITS, lead->queryid);
			CacheStatsCount(CACHE_STAT_SHARED_HITS, lead->queryid);
			return true;
		}
		if (error)
			return tier_failed(lead);
		locked = tier->lock(&lead->name, lock_expiry_ms());
		/* the first GET and lock: later rounds wait for another node */
		if (!lead->asked)
			add_tier_time(lead, asked);
		lead->asked = true;
		switch (locked)
		{
			case CACHE_SHARED_LOCK_OURS:
				lead->locked = true;
				return not_served(lead, refused);
			case CACHE_SHARED_LOCK_ERROR:
				not_served(lead, refused);
				return tier_failed(lead);
			case CACHE_SHARED_LOCK_HELD:
				break;
		}
		if (!waited)
			CacheStatsCount(CACHE_STAT_SHARED_LOCK_WAITS, lead->queryid);
		waited = true;
		left = cache_wait_timeout_ms - (long) ((GetCurrentTimestamp() - start) / 1000);
		if (left <= 0)
			return not_served(lead, refused);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 Min(sleep_ms, left), SfcWaitEvent("SfcacheSharedTier"));
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		sleep_ms = Min(sleep_ms * 2, SHARED_POLL_MAX_MS);
	}
}

/* The bytes of an entry for result, complete at complete_at. */
static char *
serialise(XLogRecPtr complete_at, const CachedResult *result, TupleDesc tupdesc, Size *len)
{
	SharedHeader h = {0};
	Size		types_at = MAXALIGN(sizeof(SharedHeader));
	char	   *data;
	Oid		   *types;
	int32	   *typmods;

	h.magic = SHARED_MAGIC;
	h.version_hash = CacheSharedLayout();
	h.complete_at = complete_at;
	h.natts = tupdesc->natts;
	h.tuples_len = result->len;
	h.datarows_len = result->datarows ? result->datarows_len : 0;
	*len = types_at + types_size(h.natts) + h.tuples_len + h.datarows_len;
	data = palloc0(*len);
	memcpy(data, &h, sizeof(h));
	types = (Oid *) (data + types_at);
	typmods = (int32 *) (types + h.natts);
	for (int i = 0; i < tupdesc->natts; i++)
	{
		types[i] = TupleDescAttr(tupdesc, i)->atttypid;
		typmods[i] = TupleDescAttr(tupdesc, i)->atttypmod;
	}
	memcpy(data + types_at + types_size(h.natts), result->data, h.tuples_len);
	if (h.datarows_len > 0)
		memcpy(data + types_at + types_size(h.natts) + h.tuples_len, result->datarows,
			   h.datarows_len);
	return data;
}

/*
 * The leader's end: put its result (put: it was computed under the local
 * store rule and stored or admitted), then release the cross-node lock if
 * it holds it. Also on its error path, with put false.
 */
void
CacheSharedFinish(CacheSharedLead *lead, bool put, const CachedResult *result,
				  TupleDesc tupdesc, int ttl_s)
{
	instr_time	asked;

	if (!lead->active)
		return;
	lead->active = false;
	INSTR_TIME_SET_CURRENT(asked);
	if (put)
	{
		Size		len;
		char	   *data = serialise(lead->complete_at, result, tupdesc, &len);

		if (tier->put(&lead->name, data, len, ttl_s * 1000))
			CacheStatsCount(CACHE_STAT_SHARED_STORES, lead->queryid);
		else
			CacheStatsCount(CACHE_STAT_SHARED_ERRORS, lead->queryid);
		pfree(data);
	}
	if (lead->locked)
		tier->unlock(&lead->name);
	lead->locked = false;
	if (lead->asked)
	{
		add_tier_time(lead, asked);
		CacheStatsNoteTierTime(INSTR_TIME_GET_MICROSEC(lead->tier_time));
	}
}
