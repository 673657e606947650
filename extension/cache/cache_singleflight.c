/*-------------------------------------------------------------------------
 *
 * cache_singleflight.c
 *		The state machine of a cache key, so that identical concurrent
 *		misses run once: one function per transition. This file alone
 *		changes an entry's state, leader and waiters; the store
 *		(cache_store.c) holds the slots.
 *
 *	  free --lead--> computing --publish--> ready --(stale, replaced,
 *	                     |                          evicted, flushed,
 *	                     |                          last transient read)--> free
 *	                     +--abandon(CACHE_ABANDON_RETRY)--> free: one follower leads
 *	                     +--abandon(CACHE_ABANDON_RUN_ALONE)--> free: followers run
 *	                                                         by themselves
 *
 * A free entry is a slot the store holds (on its free list, or just handed
 * to a leader that has yet to claim it), its key absent from the store's
 * table. The store evicts and flushes ready entries only through the
 * owner registered here (CacheSingleflightInit): it asks whether an entry
 * may go and has this file let it go.
 *
 * A backend that finds a computing entry follows it: it registers as a
 * waiter and sleeps on the entry's condition variable, interruptibly and
 * for at most sfcache.wait_timeout, then reads the leader's result. If the
 * leader errors, is cancelled or exits (before_shmem_exit), the entry is
 * abandoned for retry and the first follower to take the partition lock
 * becomes the new leader; the others find it computing and keep waiting.
 * A result that cannot be stored (too large, no memory, a write committed
 * meanwhile) releases the followers to run by themselves. A follower whose
 * constants lie outside the published result's validity windows runs by
 * itself while other followers have yet to read that result (they may lie
 * inside), and leads the key again once none has; if another such follower
 * already leads it, it runs by itself too. It waits for one leader at most,
 * so concurrent constants in different windows do not run one after
 * another. And it does not wait at all while the statement's followers
 * lately found themselves outside their leaders' windows more often than
 * inside (cache_stats.c): its constants spread over more windows than its
 * herds share, so it leads an entry of its own at once (one such
 * execution in FOLLOW_SAMPLE_EVERY follows a near leader all the same, to
 * notice when herds come back). Until its followers have told either way,
 * it follows only a leader whose timestamp, timestamptz and date constants
 * are near its own (near_leader(): within a second plus the leader's age,
 * as the clocks of one herd's clients are), and one far leader in
 * FOLLOW_SAMPLE_EVERY (wide windows may hold constants far apart): a first
 * herd whose constants were drawn over minutes leads an entry each at
 * once, where it used to wait for the first leader's whole run only to
 * find itself outside.
 *
 * A follower's registration is with one claim of the slot (its claim
 * count): a leader that abandons sets the waiters to zero, and another
 * backend may claim the slot again for the same key before a follower
 * wakes; that follower is not among the new leader's waiters, so it
 * registers with that claim (or reads its result unregistered).
 *
 * A windowed key has CACHE_WINDOW_ENTRIES entries, one window each. A miss
 * that does not follow leads a free one or, only while no other leader of
 * the key computes, replaces one outside its windows; with a leader
 * computing and none free it runs by itself. A leader that has published
 * releases the key's other entries with the same windows, published before
 * its own (copies by leaders that ran side by side). So misses that
 * share a window without following one another (far constants, which only
 * the leaders' scans could tell apart) do not crowd other windows out of
 * the entries.
 *
 * In coalesce mode, and for a key not admitted (cache_admit.c), a
 * published entry is transient: the last follower to read it removes it.
 *
 * In observe mode every transition is as in on mode (a leader registers,
 * publishes and keeps its result) except serving: a lookup that finds a
 * current entry holding it, or a leader computing that on mode would
 * follow, says so and copies nothing, registers as no follower and never
 * sleeps; one that on mode would not follow leads. (Observers record no
 * follows, so the follow verdict learns from on-mode sessions only.)
 *
 * Locking: every transition holds the partition lock of the entry's key
 * (CacheStorePartitionLock) exclusively; a lookup holds it shared. A
 * follower sleeps on the slot's condition variable without a lock.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "common/int.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "pgstat.h"
#include "storage/ipc.h"
#include "utils/date.h"
#include "utils/timestamp.h"

#include "cache/cache_internal.h"

/*
 * One execution in this many of a windowed statement whose followers lately
 * landed outside their leaders' windows follows a near leader all the same;
 * of one whose follows have not told yet, a far leader.
 */
#define FOLLOW_SAMPLE_EVERY 16

/*
 * A leader's time constants are near a lookup's when they are within this
 * of each other, plus the time since the leader claimed its entry: the
 * spread of a herd whose clients read a real clock (a page load that
 * arrives while the leader runs read its clock that much later).
 */
#define NEAR_SLACK_US USECS_PER_SEC

/* The entry this backend leads, if any, for clean-up on error or exit. */
static CacheEntry *leading = NULL;
static CacheKey leading_key;

/* A windowed leader's key, its entry's index and its constants. */
static CacheKey leading_base;
static int	leading_index;
static CacheWindowProbe *leading_probe;

typedef enum FollowResult
{
	FOLLOW_SERVED,				/* read the leader's result */
	FOLLOW_RETRY,				/* look the key up again (maybe lead) */
	FOLLOW_OUTSIDE,				/* the result's windows do not hold this
								 * execution: look it up again, lead or run */
	FOLLOW_RUN_ALONE,			/* run without the cache */
	FOLLOW_WAITING				/* still computing */
} FollowResult;

static bool
keys_equal(CacheKey a, CacheKey b)
{
	return a.hi == b.hi && a.lo == b.lo;
}

/*
 * Transition free -> computing: map key to the slot the store handed out,
 * with this backend as leader; false if the store's table is full. Caller
 * holds the key's partition lock exclusively.
 */
static bool
claim(CacheEntry *fresh, CacheKey key, uint32 hashcode, uint64 queryid,
	  const CacheLeaderTimes *times)
{
	if (!CacheStoreInsert(fresh, key, hashcode))
		return false;
	fresh->state = CACHE_ENTRY_COMPUTING;
	fresh->transient = false;
	fresh->leader_pid = MyProcPid;
	fresh->waiters = 0;
	fresh->queryid = queryid;
	fresh->claim++;
	/* its age matters only to lookups comparing its time constants */
	fresh->claimed_at = times->n > 0 ? GetCurrentTimestamp() : 0;
	fresh->lead_times = *times;
	return true;
}

/*
 * Transition computing or ready -> free: record how it ended for the
 * followers of its key, wake them, and give the slot back to the store.
 * Caller holds the entry's partition lock exclusively.
 */
static void
release(CacheEntry *e, CacheAbandon ending, CacheBypass why)
{
	e->last_key = e->key;
	e->last_ending = ending;
	e->last_reason = why;
	e->state = CACHE_ENTRY_FREE;
	e->waiters = 0;
	ConditionVariableBroadcast(&e->cv);
	CacheStoreRemove(e);
}

/* For the store: may a slot go to make room or in a flush? */
static bool
entry_evictable(const CacheEntry *e)
{
	return e->state == CACHE_ENTRY_READY && e->waiters == 0;
}

/* For the store: transition ready -> free, evicted or flushed. */
static void
entry_evict(CacheEntry *e)
{
	release(e, CACHE_ABANDON_RETRY, CACHE_BYPASS_NONE);
}

static const CacheEntryOwner entry_owner = {entry_evictable, entry_evict};

/* From CacheInit: the store asks this file before it takes a slot back. */
void
CacheSingleflightInit(void)
{
	CacheStoreSetOwner(&entry_owner);
}

/* Do this execution's windowed constants lie inside the entry's windows? */
static bool
in_windows(CacheEntry *e, CacheWindowProbe *probe)
{
	const char *windows;
	Size		len;

	if (probe == NULL)
		return true;
	windows = CacheStoreEntryWindows(e, &len);
	return CacheWindowsContain(windows, len, probe);
}

/*
 * This execution's timestamp, timestamptz and date constants, for
 * near_leader(); none without windows.
 */
static void
probe_times(const CacheWindowProbe *probe, CacheLeaderTimes *times)
{
	times->n = 0;
	times->days = 0;
	for (int i = 0; probe != NULL && i < probe->n; i++)
	{
		const CacheWindowValue *v = &probe->values[i];
		Oid			type;

		if (v->keyed)
			continue;
		type = exprType(v->spec->value);
		if (type != TIMESTAMPOID && type != TIMESTAMPTZOID && type != DATEOID)
			continue;
		if (times->n == CACHE_LEADER_TIMES)
		{
			/* too many to record: nothing to compare */
			times->n = 0;
			return;
		}
		if (type == DATEOID)
		{
			times->days |= 1 << times->n;
			times->values[times->n++] = DatumGetDateADT(v->value);
		}
		else
			times->values[times->n++] = DatumGetTimestamp(v->value);
	}
}

/*
 * May the leader of entry e be computing a window that holds this
 * execution? Its time constants and ours must be within NEAR_SLACK_US and
 * the leader's age of each other (dates and infinities: equal). With
 * nothing to compare (no time constants: integers have no clock bounding
 * their spread) it may. Only a guess: a far leader is not followed, a near
 * one's result is served only if its windows hold this execution. Caller
 * holds e's partition lock.
 */
static bool
near_leader(const CacheEntry *e, const CacheLeaderTimes *mine)
{
	const CacheLeaderTimes *lead = &e->lead_times;
	int64		slack;

	if (lead->n == 0 || mine->n != lead->n || mine->days != lead->days)
		return true;
	slack = NEAR_SLACK_US + Max(GetCurrentTimestamp() - e->claimed_at, 0);
	for (int i = 0; i < lead->n; i++)
	{
		int64		a = lead->values[i];
		int64		b = mine->values[i];
		int64		d;

		if (a == b)
			continue;
		if ((lead->days & (1 << i)) != 0 || TIMESTAMP_NOT_FINITE(a) ||
			TIMESTAMP_NOT_FINITE(b) || pg_sub_s64_overflow(a, b, &d) ||
			d < -slack || d > slack)
			return false;
	}
	return true;
}

/* What a lookup found under one key. */
typedef enum Found
{
	FOUND_SERVED,				/* a current result whose windows hold this
								 * execution: copied */
	FOUND_COMPUTING,			/* a leader runs it */
	FOUND_FREE,					/* no entry, or a stale one: lead it */
	FOUND_OUTSIDE,				/* a current result outside the windows, that
								 * no follower has yet to read: may be
								 * replaced */
	FOUND_STILL_READ			/* the same, with followers yet to read it */
} Found;

/*
 * Transition ready -> served: copy a current entry's result. Otherwise say
 * what the key holds (*computing: its entry, if computing, its leader's
 * claim and whether it is near_leader(); *recent: a result outside the
 * windows that was read since the last clock sweep).
 */
static Found
serve_ready(CacheKey key, uint32 hashcode, CachedResult *result,
			CacheWindowProbe *probe, const CacheLeaderTimes *times,
			CacheEntry **computing, uint32 *claim, bool *near, bool *recent)
{
	LWLock	   *lock = CacheStorePartitionLock(hashcode);
	CacheEntry *e;
	CacheStat	why_not;
	Found		state = FOUND_FREE;

	*computing = NULL;
	*recent = false;
	LWLockAcquire(lock, LW_SHARED);
	e = CacheStoreLookup(key, hashcode);
	if (e != NULL && e->state == CACHE_ENTRY_COMPUTING)
	{
		*computing = e;
		*claim = e->claim;
		*near = near_leader(e, times);
		state = FOUND_COMPUTING;
	}
	else if (e != NULL && CacheStoreEntryIsCurrent(e, GetCurrentTimestamp(), &why_not))
	{
		if (in_windows(e, probe))
		{
			/* observe mode serves nothing: the rows are not copied */
			if (cache_cache_mode != CACHE_MODE_OBSERVE)
				CacheStoreCopyResult(e, result);
			pg_atomic_write_u32(&e->referenced, 1);
			state = FOUND_SERVED;
		}
		else
		{
			*recent = pg_atomic_read_u32(&e->referenced) != 0;
			state = e->waiters > 0 ? FOUND_STILL_READ : FOUND_OUTSIDE;
		}
	}
	LWLockRelease(lock);
	return state;
}

typedef enum LeadResult
{
	LEAD_OK,					/* this backend is the leader */
	LEAD_TAKEN,					/* another backend registered the key first */
	LEAD_NO_SLOT,				/* every entry is computing: no room */
	LEAD_STILL_READ				/* a result outside this execution's windows
								 * that followers have yet to read */
} LeadResult;

static void abandon_on_exit(int code, Datum arg);

/*
 * Transition absent (or stale, or ready for constants outside its windows:
 * replaced) -> computing, with this backend as leader. A current result
 * outside the windows is not replaced while followers registered on it
 * have yet to read it: they may lie inside.
 */
static LeadResult
lead(CacheKey key, uint32 hashcode, uint64 queryid, CacheWindowProbe *probe,
	 const CacheLeaderTimes *times)
{
	static bool exit_callback_registered = false;
	LWLock	   *lock = CacheStorePartitionLock(hashcode);
	CacheEntry *fresh = CacheStoreAllocate();
	CacheEntry *e;
	CacheStat	why_not;
	bool		current = true;
	LeadResult	result = LEAD_TAKEN;

	if (fresh == NULL)
		return LEAD_NO_SLOT;
	if (!exit_callback_registered)
	{
		before_shmem_exit(abandon_on_exit, (Datum) 0);
		exit_callback_registered = true;
	}

	LWLockAcquire(lock, LW_EXCLUSIVE);
	e = CacheStoreLookup(key, hashcode);
	if (e != NULL && e->state == CACHE_ENTRY_READY &&
		(current = CacheStoreEntryIsCurrent(e, GetCurrentTimestamp(), &why_not)) &&
		e->waiters > 0 && !in_windows(e, probe))
		result = LEAD_STILL_READ;
	else if (e != NULL && e->state == CACHE_ENTRY_READY &&
			 (!current || !in_windows(e, probe)))
	{
		/* followers still registered on it will find the slot changed */
		if (!current)
			CacheStatsCount(why_not, e->queryid);
		release(e, CACHE_ABANDON_RETRY, CACHE_BYPASS_NONE);
		e = NULL;
	}
	if (e == NULL)
		result = claim(fresh, key, hashcode, queryid, times) ? LEAD_OK : LEAD_NO_SLOT;
	if (result == LEAD_OK)
	{
		leading = fresh;
		leading_key = key;
	}
	LWLockRelease(lock);

	if (result != LEAD_OK)
		CacheStoreReleaseUnused(fresh);
	return result;
}

/*
 * Transition computing -> computing with one more waiter, unless another
 * leader claimed the entry since the lookup saw it (claim): then the
 * lookup decides again whether to follow that one.
 */
static bool
register_follower(CacheEntry *e, CacheKey key, uint32 claim)
{
	LWLock	   *lock = CacheStorePartitionLock(CacheStoreHashKey(key));
	bool		registered = false;

	LWLockAcquire(lock, LW_EXCLUSIVE);
	if (e->state == CACHE_ENTRY_COMPUTING && keys_equal(e->key, key) &&
		e->claim == claim)
	{
		e->waiters++;
		registered = true;
	}
	LWLockRelease(lock);
	return registered;
}

/*
 * A follower looks at the entry it waits on. Caller must hold the partition
 * lock of the follower's key (not of whatever key the slot holds now: while
 * the slot holds that key, that lock protects it, and it is the lock under
 * which the slot's last_key was written when that key was removed). The
 * registration is dropped unless the entry is still computing. A
 * registration is with one claim of the slot (*claim): once that leader
 * abandoned it (the waiters set to zero), another backend may have
 * claimed it again for the same key, and this follower is not among its
 * waiters: it registers with that claim, or reads its result unregistered.
 */
static FollowResult
follower_check(CacheEntry *e, CacheKey key, uint32 *claim, CachedResult *result,
			   CacheWindowProbe *probe, CacheBypass *why)
{
	CacheStat	why_not;
	bool		registered = e->claim == *claim;
	bool		served;

	if (!keys_equal(e->key, key) || e->state == CACHE_ENTRY_FREE)
	{
		/* abandoned; the slot tells how, unless it was reused since */
		if (keys_equal(e->last_key, key) && e->last_ending == CACHE_ABANDON_RUN_ALONE)
		{
			*why = e->last_reason;
			return FOLLOW_RUN_ALONE;
		}
		return FOLLOW_RETRY;
	}
	if (e->state == CACHE_ENTRY_COMPUTING)
	{
		if (!registered)
		{
			e->waiters++;
			*claim = e->claim;
		}
		return FOLLOW_WAITING;
	}

	if (registered)
		e->waiters--;
	if (!CacheStoreEntryIsCurrent(e, GetCurrentTimestamp(), &why_not))
		return FOLLOW_RETRY;
	/* a leader's result for constants outside its windows: run (lead) */
	served = in_windows(e, probe);
	if (served)
		CacheStoreCopyResult(e, result);
	if (e->transient && e->waiters == 0)
		release(e, CACHE_ABANDON_RETRY, CACHE_BYPASS_NONE);
	return served ? FOLLOW_SERVED : FOLLOW_OUTSIDE;
}

/* Drop a registration when giving up on waiting (timeout or error). */
static void
unregister_follower(CacheEntry *e, CacheKey key, uint32 claim)
{
	LWLock	   *lock = CacheStorePartitionLock(CacheStoreHashKey(key));

	LWLockAcquire(lock, LW_EXCLUSIVE);
	if (keys_equal(e->key, key) && e->state != CACHE_ENTRY_FREE && e->claim == claim &&
		e->waiters > 0)
		e->waiters--;
	LWLockRelease(lock);
}

static long
ms_left(TimestampTz start)
{
	return cache_wait_timeout_ms -
		(long) ((GetCurrentTimestamp() - start) / 1000);
}

/* Sleep on the entry until its leader ends, the key changes, or time runs out. */
static FollowResult
wait_for_leader(CacheEntry *e, CacheKey key, uint32 claim, TimestampTz start,
				CachedResult *result, CacheWindowProbe *probe, CacheBypass *why)
{
	FollowResult r = FOLLOW_WAITING;
	volatile uint32 registered_claim = claim;	/* read in PG_CATCH */

	if (!register_follower(e, key, claim))
		return FOLLOW_RETRY;

	PG_TRY();
	{
		SfcTestHoldOnAdvisoryLock(cache_test_hold_follower_lock);
		ConditionVariablePrepareToSleep(&e->cv);
		for (;;)
		{
			LWLock	   *lock = CacheStorePartitionLock(CacheStoreHashKey(key));
			uint32		now_claim = registered_claim;
			long		left;

			LWLockAcquire(lock, LW_EXCLUSIVE);
			r = follower_check(e, key, &now_claim, result, probe, why);
			registered_claim = now_claim;
			LWLockRelease(lock);
			if (r != FOLLOW_WAITING)
				break;
			if ((left = ms_left(start)) <= 0)
				break;
			(void) ConditionVariableTimedSleep(&e->cv, left,
											   SfcWaitEvent("SfcacheSingleflight"));
		}
	}
	PG_CATCH();
	{
		ConditionVariableCancelSleep();
		unregister_follower(e, key, registered_claim);
		PG_RE_THROW();
	}
	PG_END_TRY();
	ConditionVariableCancelSleep();

	if (r == FOLLOW_WAITING)
	{
		unregister_follower(e, key, registered_claim);
		*why = CACHE_BYPASS_WAIT_TIMEOUT;
		CacheStatsCount(CACHE_STAT_WAIT_TIMEOUTS, e->queryid);
		r = FOLLOW_RUN_ALONE;
	}
	return r;
}

/*
 * An execution served a result (outcome: a hit or a coalesced follower),
 * and a window hit when served for constants the leader had not; with the
 * time since it began its lookup, but for its wait for leaders since
 * waited_from (0: none), which is no work (what sfcache.cold_after weighs
 * against the leader's run it saved).
 */
static void
count_served(CacheStat outcome, uint64 queryid, const CacheWindowProbe *probe,
			 const CachedResult *result, TimestampTz waited_from)
{
	instr_time	now;
	int64		work_us = 0;

	/* the time in the cache is for the cold verdict alone: no clock without */
	if (cache_cold_after > 0)
	{
		INSTR_TIME_SET_CURRENT(now);
		INSTR_TIME_SUBTRACT(now, result->started);
		work_us = (int64) INSTR_TIME_GET_MICROSEC(now);
		if (waited_from != 0)
			work_us -= GetCurrentTimestamp() - waited_from;
		work_us = Max(work_us, 0) + (int64) result->planning_us;
	}
	CacheStatsServed(outcome, probe != NULL && probe->by_window, queryid, result->exec_us,
					 (uint64) Max(work_us, 0));
}

/*
 * The key of a blanked key's i-th window entry: the 0th is the key itself,
 * the only one of a statement without windows.
 */
static CacheKey
window_entry_key(CacheKey key, int i)
{
	key.hi ^= (uint64) i * UINT64CONST(0x9E3779B97F4A7C15);
	key.lo += (uint64) i;
	return key;
}

/*
 * Is e a copy of a window just published (windows, expiring at
 * published): a ready result, that no follower has yet to read, published
 * before it, with the same windows? Caller holds e's partition lock.
 */
static bool
is_copy(CacheEntry *e, const StringInfoData *windows, TimestampTz published,
		const CacheWindowProbe *probe)
{
	const char *theirs;
	Size		len;

	if (e == NULL || !entry_evictable(e) || e->transient || e->expires_at >= published)
		return false;
	theirs = CacheStoreEntryWindows(e, &len);
	return CacheWindowsSame(windows->data, windows->len, theirs, len, probe);
}

/*
 * Once a windowed key's leader has published, release the key's other
 * entries that are copies of its window (is_copy): leaders that ran side
 * by side in one window, each of whose result took an entry that another
 * window could use. Only those published before it: two leaders each
 * releasing the other's would leave the window with none. A shared look
 * first, the lock taken exclusively only to release.
 */
static void
release_copies(CacheKey base, int mine, const StringInfoData *windows,
			   TimestampTz published, const CacheWindowProbe *probe)
{
	for (int i = 0; i < CACHE_WINDOW_ENTRIES; i++)
	{
		CacheKey	k = window_entry_key(base, i);
		uint32		hashcode = CacheStoreHashKey(k);
		LWLock	   *lock = CacheStorePartitionLock(hashcode);
		CacheEntry *e;
		bool		copy;

		if (i == mine)
			continue;
		LWLockAcquire(lock, LW_SHARED);
		copy = is_copy(CacheStoreLookup(k, hashcode), windows, published, probe);
		LWLockRelease(lock);
		if (!copy)
			continue;
		LWLockAcquire(lock, LW_EXCLUSIVE);
		e = CacheStoreLookup(k, hashcode);
		if (is_copy(e, windows, published, probe))
			release(e, CACHE_ABANDON_RETRY, CACHE_BYPASS_NONE);
		LWLockRelease(lock);
	}
}

/* A lookup of a key's window entries: what it found, and where it may lead. */
typedef struct EntriesScan
{
	CacheEntry *computing;		/* an entry a leader runs, if any: the first
								 * near_leader() one, else the first */
	CacheKey	computing_key;
	uint32		computing_claim;
	bool		computing_near;
	int			lead_at;		/* a free entry, else (while none computes)
								 * one outside the windows, not read lately
								 * first, else -1 */
} EntriesScan;

/* Look each entry up: true (and the rows) if one serves this execution. */
static bool
scan_entries(CacheKey key, int nentries, CachedResult *result, CacheWindowProbe *probe,
			 const CacheLeaderTimes *times, EntriesScan *scan, CacheKey *entry_key)
{
	int			free_at = -1;
	int			old_at = -1;
	int			recent_at = -1;

	scan->computing = NULL;
	scan->computing_claim = 0;
	scan->computing_near = false;
	for (int i = 0; i < nentries; i++)
	{
		CacheKey	k = window_entry_key(key, i);
		CacheEntry *c;
		uint32		claim = 0;
		bool		near = false;
		bool		recent = false;

		switch (serve_ready(k, CacheStoreHashKey(k), result, probe, times, &c,
							&claim, &near, &recent))
		{
			case FOUND_SERVED:
				*entry_key = k;
				return true;
			case FOUND_COMPUTING:
				if (scan->computing == NULL || (near && !scan->computing_near))
				{
					scan->computing = c;
					scan->computing_key = k;
					scan->computing_claim = claim;
					scan->computing_near = near;
				}
				break;
			case FOUND_FREE:
				if (free_at < 0)
					free_at = i;
				break;
			case FOUND_OUTSIDE:
				if (!recent && old_at < 0)
					old_at = i;
				if (recent_at < 0)
					recent_at = i;
				break;
			case FOUND_STILL_READ:
				break;
		}
	}

	/*
	 * A result is replaced only while no other leader of the key computes:
	 * misses that do not follow one another may share a window all the same
	 * (only the leaders' scans tell), and each would replace another window's
	 * result with a copy of the same one. Such a miss runs by itself, as
	 * PostgreSQL would, and pays neither windows nor a store.
	 */
	if (free_at >= 0)
		scan->lead_at = free_at;
	else if (scan->computing != NULL)
		scan->lead_at = -1;
	else
		scan->lead_at = old_at >= 0 ? old_at : recent_at;
	return false;
}

/* The statement's follow verdict, as one lookup asked for it. */
typedef struct FollowAsk
{
	bool		asked;			/* asked since the lookup began or last landed
								 * outside a leader's windows */
	CacheFollowVerdict verdict;
	bool		sampled;		/* one lookup in FOLLOW_SAMPLE_EVERY */
} FollowAsk;

/*
 * May a windowed lookup follow a computing leader, near_leader() or not?
 * While following pays, any; while that is unknown, a near one, or a
 * sampled far one (wide windows may hold constants far apart: only a
 * follow tells); while it does not pay, a sampled near one, to notice when
 * herds come back.
 */
static bool
may_follow(uint64 queryid, FollowAsk *ask, bool near)
{
	static uint32 follows_skipped = 0;

	if (!ask->asked)
	{
		ask->asked = true;
		ask->verdict = CacheStatsFollowVerdict(queryid);
		ask->sampled = ask->verdict != CACHE_FOLLOW_PAYS &&
			++follows_skipped % FOLLOW_SAMPLE_EVERY == 0;
	}
	switch (ask->verdict)
	{
		case CACHE_FOLLOW_PAYS:
			return true;
		case CACHE_FOLLOW_UNKNOWN:
			return near || ask->sampled;
		case CACHE_FOLLOW_DOES_NOT_PAY:
			return near && ask->sampled;
	}
	return true;
}

/*
 * Lead the entry the scan chose (transition to computing). False (*outcome
 * unset) if another backend was first: look the key up again.
 */
static bool
lead_scanned(CacheKey key, const EntriesScan *scan, uint64 queryid, CacheWindowProbe *probe,
			 const CacheLeaderTimes *times, bool waited, CacheKey *entry_key,
			 CacheBypass *why, CacheOutcome *outcome)
{
	CacheKey	k;

	if (scan->lead_at < 0)
	{
		/* none to lead (scan_entries): run as PostgreSQL would */
		*why = CACHE_BYPASS_OUTSIDE_WINDOW;
		*outcome = CACHE_RUN_UNCACHED;
		return true;
	}
	k = window_entry_key(key, scan->lead_at);
	switch (lead(k, CacheStoreHashKey(k), queryid, probe, times))
	{
		case LEAD_OK:
			*entry_key = k;
			leading_base = key;
			leading_index = scan->lead_at;
			leading_probe = probe;
			CacheStatsCount(CACHE_STAT_MISSES, queryid);
			if (waited)
				CacheStatsCount(CACHE_STAT_HANDOFFS, queryid);
			*outcome = CACHE_LEADER;
			return true;
		case LEAD_NO_SLOT:
			*why = CACHE_BYPASS_NO_MEMORY;
			*outcome = CACHE_RUN_UNCACHED;
			return true;
		case LEAD_STILL_READ:
		case LEAD_TAKEN:
			break;
	}
	return false;
}

/*
 * Look a key up. On CACHE_HIT and CACHE_FOLLOWER_HIT, *result holds the rows;
 * on CACHE_LEADER the caller must end with CacheSingleflightPublish() or
 * CacheSingleflightAbandon() for *entry_key; on CACHE_RUN_UNCACHED, *why
 * says why. probe (NULL without windows) holds this execution's windowed
 * constants: an entry is served only if they lie inside its windows, and
 * the key has CACHE_WINDOW_ENTRIES entries (*entry_key is the one used), so
 * that constants alternating between a few windows find each its own.
 * A hit and a served follower are counted here (hits, coalesced, and
 * window_hits of either); a leader's and an uncached run's outcome by the
 * caller, once it is known. In observe mode a lookup that would have hit
 * returns CACHE_OBSERVED_HIT without the rows, and one that would have
 * followed a leader CACHE_OBSERVED_FOLLOWER without waiting; the caller
 * runs the statement and counts them.
 *
 * A lookup that finds a leader computing one of the entries follows it
 * (constants of one herd usually share a window): while following pays
 * for the statement, any leader; while that is not known yet, a near one
 * (near_leader()). A follower that the leader's windows did not hold
 * follows one more leader at most, then leads an entry that no follower
 * has yet to read, or runs by itself: so concurrent constants in
 * different windows do not wait for one another in a line. While
 * following does not pay for the statement (its followers mostly land
 * outside), it does not follow, but leads.
 */
static CacheOutcome
lookup(CacheKey key, CacheKey *entry_key, uint64 queryid, CachedResult *result,
	   CacheWindowProbe *probe, CacheBypass *why, TimestampTz *waited_since)
{
	int			nentries = probe != NULL ? CACHE_WINDOW_ENTRIES : 1;
	TimestampTz start = 0;
	bool		waited = false;
	int			outside = 0;	/* leaders followed whose windows did not hold
								 * it */
	FollowAsk	ask = {false, CACHE_FOLLOW_UNKNOWN, false};
	CacheLeaderTimes times;

	probe_times(probe, &times);
	for (;;)
	{
		EntriesScan scan;
		bool		follows;
		CacheOutcome outcome;

		if (scan_entries(key, nentries, result, probe, &times, &scan, entry_key))
		{
			if (cache_cache_mode == CACHE_MODE_OBSERVE)
				return CACHE_OBSERVED_HIT;
			count_served(CACHE_STAT_HITS, queryid, probe, result, start);
			return CACHE_HIT;
		}
		CHECK_FOR_INTERRUPTS();
		follows = scan.computing != NULL && outside < 2 &&
			(probe == NULL || may_follow(queryid, &ask, scan.computing_near));
		/* observe mode leads where on mode would, but never waits */
		if (follows && cache_cache_mode == CACHE_MODE_OBSERVE)
			return CACHE_OBSERVED_FOLLOWER;
		if (!follows)
		{
			if (lead_scanned(key, &scan, queryid, probe, &times, waited, entry_key, why,
							 &outcome))
				return outcome;
			continue;
		}

		if (cache_wait_timeout_ms <= 0)
		{
			*why = CACHE_BYPASS_WAIT_TIMEOUT;
			return CACHE_RUN_UNCACHED;
		}
		if (!waited)
		{
			waited = true;
			start = GetCurrentTimestamp();
			*waited_since = start;
		}
		switch (wait_for_leader(scan.computing, scan.computing_key, scan.computing_claim,
								start, result, probe, why))
		{
			case FOLLOW_SERVED:
				*entry_key = scan.computing_key;
				count_served(CACHE_STAT_COALESCED, queryid, probe, result, start);
				if (probe != NULL)
					CacheStatsNoteFollow(queryid, true);
				return CACHE_FOLLOWER_HIT;
			case FOLLOW_RUN_ALONE:
				return CACHE_RUN_UNCACHED;
			case FOLLOW_OUTSIDE:
				outside++;
				CacheStatsNoteFollow(queryid, false);
				/* that may have settled the verdict */
				ask.asked = false;
				break;
			case FOLLOW_RETRY:
			case FOLLOW_WAITING:
				break;
		}
	}
}

CacheOutcome
CacheSingleflightBegin(CacheKey key, CacheKey *entry_key, uint64 queryid,
					   CachedResult *result, CacheWindowProbe *probe, CacheBypass *why)
{
	TimestampTz waited_since = 0;
	CacheOutcome outcome = lookup(key, entry_key, queryid, result, probe, why,
								  &waited_since);

	result->waited_us = 0;
	if (waited_since != 0)
	{
		result->waited_us = (uint64) Max(GetCurrentTimestamp() - waited_since, 0);
		CacheStatsAddTime(CACHE_TIME_WAIT, queryid, result->waited_us);
	}
	return outcome;
}

/*
 * Transition computing -> ready: the leader stores its result, unless a
 * relation it read changed meanwhile or there is no room, in which case
 * the followers are released to run by themselves. A result not to be
 * kept (keep false: not admitted, or coalesce mode) is only handed to the
 * followers waiting for it, as a transient entry the last of them removes;
 * with none waiting it is not written at all, and a follower that comes
 * after looks the key up again. Returns why it was not stored, or
 * CACHE_BYPASS_NONE.
 */
CacheBypass
CacheSingleflightPublish(CacheKey key, const CacheGenSnapshot *gens,
						 const CachedResult *result, const StringInfoData *windows,
						 int ttl_s, bool keep)
{
	bool		transient = !keep || cache_cache_mode == CACHE_MODE_COALESCE;
	CacheBypass unkept = (cache_cache_mode == CACHE_MODE_COALESCE) ? CACHE_BYPASS_NONE : CACHE_BYPASS_NOT_ADMITTED;
	LWLock	   *lock;
	dsa_pointer dp;
	Size		size;
	TimestampTz published;

	Assert(leading != NULL && keys_equal(leading_key, key));
	lock = CacheStorePartitionLock(leading->hashcode);
	if (transient)
	{
		int			waiters;

		LWLockAcquire(lock, LW_SHARED);
		waiters = leading->waiters;
		LWLockRelease(lock);
		if (waiters == 0)
		{
			CacheSingleflightAbandon(key, CACHE_ABANDON_RETRY, CACHE_BYPASS_NONE);
			return unkept;
		}
	}

	dp = CacheStoreWriteResult(gens, windows, result, &size);
	if (!DsaPointerIsValid(dp))
	{
		CacheSingleflightAbandon(key, CACHE_ABANDON_RUN_ALONE, CACHE_BYPASS_NO_MEMORY);
		return CACHE_BYPASS_NO_MEMORY;
	}

	LWLockAcquire(lock, LW_EXCLUSIVE);
	if (!CacheGenSnapshotIsCurrent(gens) || (transient && leading->waiters == 0))
	{
		/* stale already, or nobody to hand it to */
		bool		current = CacheGenSnapshotIsCurrent(gens);

		LWLockRelease(lock);
		CacheStoreFreeResult(dp);
		if (current)
			CacheSingleflightAbandon(key, CACHE_ABANDON_RETRY, CACHE_BYPASS_NONE);
		else
			CacheSingleflightAbandon(key, CACHE_ABANDON_RUN_ALONE,
									 CACHE_BYPASS_COMMIT_IN_FLIGHT);
		return current ? unkept : CACHE_BYPASS_COMMIT_IN_FLIGHT;
	}
	CacheStoreAttachResult(leading, dp, size);
	leading->state = CACHE_ENTRY_READY;
	leading->transient = transient;
	leading->leader_pid = 0;
	leading->expires_at = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													  (int64) ttl_s * 1000);
	ConditionVariableBroadcast(&leading->cv);
	if (keep || cache_cache_mode == CACHE_MODE_COALESCE)
		CacheStatsStored(leading->queryid, size);
	published = leading->expires_at;
	leading = NULL;
	LWLockRelease(lock);
	if (!transient && leading_probe != NULL)
		release_copies(leading_base, leading_index, windows, published, leading_probe);
	leading_probe = NULL;
	return transient ? unkept : CACHE_BYPASS_NONE;
}

/*
 * Transition computing -> free. CACHE_ABANDON_RETRY: the leader failed (or
 * nobody is to keep its result) and a follower takes over; why is
 * CACHE_BYPASS_NONE. CACHE_ABANDON_RUN_ALONE: the followers run by themselves
 * and bypass for why.
 */
void
CacheSingleflightAbandon(CacheKey key, CacheAbandon how, CacheBypass why)
{
	CacheEntry *e = leading;
	LWLock	   *lock;

	Assert((how == CACHE_ABANDON_RETRY) == (why == CACHE_BYPASS_NONE));
	if (e == NULL || !keys_equal(leading_key, key))
		return;
	leading = NULL;
	leading_probe = NULL;

	lock = CacheStorePartitionLock(e->hashcode);
	LWLockAcquire(lock, LW_EXCLUSIVE);
	if (keys_equal(e->key, key) && e->state == CACHE_ENTRY_COMPUTING &&
		e->leader_pid == MyProcPid)
		release(e, how, why);
	LWLockRelease(lock);
}

/* A leader that exits (FATAL, pg_terminate_backend) hands its key over. */
static void
abandon_on_exit(int code, Datum arg)
{
#ifdef SFCACHE_PLANT_FOLLOWER_NOT_WOKEN
	/* planted bug (bench/soak, issue 33): the key is not handed over */
	return;
#endif
	if (leading != NULL)
		CacheSingleflightAbandon(leading_key, CACHE_ABANDON_RETRY, CACHE_BYPASS_NONE);
}

void
CacheFlushAll(void)
{
	CacheStoreFlush();
	CacheAdmitReset();
}
