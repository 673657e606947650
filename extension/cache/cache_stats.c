/*-------------------------------------------------------------------------
 *
 * cache_stats.c
 *		The result cache's counters: global ones (sfcache.stats), bypasses
 *		by reason, and per statement (sfcache.statements), with the
 *		SQL functions that read and reset them.
 *
 * Note about locking: global counters are atomics. Statements live in a
 * partitioned shared hash table keyed by (database, role, query id); a
 * partition's LWLock is taken shared to find a statement and exclusive to add
 * or remove one, and each statement's counters are protected by its spinlock.
 * When the table is full, new statements are not tracked (counted in
 * "untracked" on the global row) rather than evicting old ones.
 *
 * Distinct keys per statement are counted exactly up to SMALL_KEYS (their
 * hashes kept in the entry: two keys in one register of the estimator
 * would read as one), then estimated with a 64-register HyperLogLog kept
 * in the statement's entry itself (lib/hyperloglog.h lives in local memory
 * only).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>
#include "utils/tuplestore.h"

#include "access/htup_details.h"
#include "catalog/pg_authid.h"
#include "common/hashfn.h"
#include "fmgr.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "storage/ipc.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/timestamp.h"

#include "cache/cache_internal.h"

#define SHAPE_PARTITIONS 16
#define SHAPE_TEXT_LEN 256
#define HLL_REGISTERS 64
#define SMALL_KEYS 8

typedef struct StatementKey
{
	Oid			dbid;
	Oid			userid;
	uint64		queryid;
} StatementKey;

typedef struct StatementStats
{
	StatementKey key;
	slock_t		mutex;
	uint64		counters[CACHE_NUM_STATS];
	uint64		times_us[CACHE_NUM_TIMES];
	uint64		bypasses;
	uint64		bytes_stored;
	CacheBypass last_bypass;
	/* sfcache.cold_after (cache_cold.c): the window being counted, and */
	uint32		cold_seen;		/* executions through the cache in it */
	uint32		cold_served;	/* of those, served (hits, coalesced) */
	uint32		cold_left;		/* executions still to run as planned */
	uint32		cold_sampled;	/* cold executions taken, for sampling */
	uint8		cold_streak;	/* cold verdicts in a row, up to 3 */
	bool		cold_by_cost;	/* the cold run's verdict was by cost */
	bool		cold_costly;	/* the last window cost more than it saved */
	uint8		cold_samples_served;	/* its samples served in a row */
	uint64		cold_exec_us;	/* the window's leaders' own runs */
	uint32		cold_exec_mean_us;	/* their mean, of the last window that had
									 * leaders */
	uint64		cold_cost_us;	/* the window's work in the cache: keys,
								 * lookups, leaders' windows and stores */
	uint32		run_mean_us;	/* leaders' own runs, a moving mean (0: none
								 * yet), for the shared tier's gate */
	/* windowed statements: followers a leader's windows held, and not */
	uint16		follows_served;
	uint16		follows_outside;
	uint8		hll[HLL_REGISTERS];
	uint8		nsmall;			/* distinct keys counted exactly, or
								 * SMALL_KEYS + 1: more, estimated */
	uint64		small_keys[SMALL_KEYS];
	char		query[SHAPE_TEXT_LEN];
} StatementStats;

typedef struct StatsShared
{
	LWLockPadded *locks;
	pg_atomic_uint64 counters[CACHE_NUM_STATS];
	pg_atomic_uint64 times_us[CACHE_NUM_TIMES];
	pg_atomic_uint64 bypasses[CACHE_NUM_BYPASS];
	pg_atomic_uint64 untracked;
	pg_atomic_uint64 tier_mean_us;	/* a leader's Redis commands of the shared
									 * tier, a moving mean (0: none yet) */
	pg_atomic_uint32 resets;	/* bumped by sfcache.reset() */
	TimestampTz reset_at;
} StatsShared;

static StatsShared *stats = NULL;
static HTAB *statements = NULL;

/* Statements this backend knows are registered, valid while resets is unchanged. */
static HTAB *known_statements = NULL;
static uint32 known_statements_resets = 0;

static const char *const bypass_names[CACHE_NUM_BYPASS] = {
	[CACHE_BYPASS_NONE] = "none",
	[CACHE_BYPASS_DISABLED] = "disabled",
	[CACHE_BYPASS_OPT_OUT] = "opt-out comment",
	[CACHE_BYPASS_NOT_SELECT] = "not a plain SELECT",
	[CACHE_BYPASS_ROW_LOCK] = "row lock",
	[CACHE_BYPASS_NOT_IMMUTABLE] = "volatile or stable function",
	[CACHE_BYPASS_RELATION_KIND] = "relation kind",
	[CACHE_BYPASS_TEMP_RELATION] = "temporary relation",
	[CACHE_BYPASS_EXCLUDED] = "excluded relation",
	[CACHE_BYPASS_ISOLATION] = "isolation level",
	[CACHE_BYPASS_OWN_WRITE] = "own write",
	[CACHE_BYPASS_STANDBY] = "standby without bus",
	[CACHE_BYPASS_TOO_LARGE] = "too large",
	[CACHE_BYPASS_COMMIT_IN_FLIGHT] = "commit in flight",
	[CACHE_BYPASS_NO_MEMORY] = "no memory",
	[CACHE_BYPASS_TOO_MANY_RELATIONS] = "too many relations",
	[CACHE_BYPASS_WAIT_TIMEOUT] = "wait timeout",
	[CACHE_BYPASS_RECORD_RESULT] = "anonymous record result",
	[CACHE_BYPASS_FOREIGN_RELATION] = "foreign relation",
	[CACHE_BYPASS_NOT_ADMITTED] = "not admitted",
	[CACHE_BYPASS_STANDBY_BEHIND] = "standby behind",
	[CACHE_BYPASS_CATALOG_LOOKUP] = "catalog lookup",
	[CACHE_BYPASS_OUTSIDE_WINDOW] = "outside window",
	[CACHE_BYPASS_COLD] = "cold statement",
};

const char *
CacheBypassReasonName(CacheBypass why)
{
	return bypass_names[why];
}

/* Pure: the counters and the per-statement hash table. */
static Size
stats_shmem_size(void)
{
	return add_size(MAXALIGN(sizeof(StatsShared)),
					hash_estimate_size(cache_max_statements, sizeof(StatementStats)));
}

static uint32
statement_hash(const void *key, Size keysize)
{
	const StatementKey *k = key;

	return hash_combine(hash_combine(k->dbid, k->userid), (uint32) (k->queryid ^ (k->queryid >> 32)));
}

/* Caller must hold AddinShmemInitLock. */
static void
stats_shmem_init(void)
{
	HASHCTL		info;
	bool		found;

	stats = ShmemInitStruct("sfcache stats", sizeof(StatsShared), &found);
	if (!found)
	{
		stats->locks = GetNamedLWLockTranche("sfcache statements");
		for (int i = 0; i < CACHE_NUM_STATS; i++)
			pg_atomic_init_u64(&stats->counters[i], 0);
		for (int i = 0; i < CACHE_NUM_TIMES; i++)
			pg_atomic_init_u64(&stats->times_us[i], 0);
		for (int i = 0; i < CACHE_NUM_BYPASS; i++)
			pg_atomic_init_u64(&stats->bypasses[i], 0);
		pg_atomic_init_u64(&stats->untracked, 0);
		pg_atomic_init_u64(&stats->tier_mean_us, 0);
		pg_atomic_init_u32(&stats->resets, 0);
		stats->reset_at = GetCurrentTimestamp();
	}
	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(StatementKey);
	info.entrysize = sizeof(StatementStats);
	info.hash = statement_hash;
	info.num_partitions = SHAPE_PARTITIONS;
	statements = ShmemInitHash("sfcache statements", cache_max_statements, &info,
							   HASH_ELEM | HASH_FUNCTION | HASH_PARTITION | HASH_FIXED_SIZE);
}

/* The statistics' part of shared memory, with one lock per partition. */
const SfcShmemPart CacheStatsShmemPart = {
	"sfcache statements", SHAPE_PARTITIONS, stats_shmem_size, stats_shmem_init
};

static StatementKey
statement_key_of(Oid userid, uint64 queryid)
{
	StatementKey key;

	memset(&key, 0, sizeof(key));
	key.dbid = MyDatabaseId;
	key.userid = userid;
	key.queryid = queryid;
	return key;
}

static StatementKey
statement_key(uint64 queryid)
{
	return statement_key_of(GetUserId(), queryid);
}

static LWLock *
statement_lock(uint32 hashcode)
{
	return &stats->locks[hashcode % SHAPE_PARTITIONS].lock;
}

/*
 * Run fn on the statement of queryid for the current database and role, under
 * its spinlock. Statements are created by CacheStatsRegisterStatement only.
 */
#define WITH_STATEMENT(queryid, s, body) \
	WITH_STATEMENT_OF(statement_key(queryid), s, body)

/* The same, for a statement of the current database and the given key. */
#define WITH_STATEMENT_OF(statementkey, s, body) \
	do { \
		StatementKey	key_ = (statementkey); \
		uint32		hash_ = statement_hash(&key_, sizeof(key_)); \
		LWLock	   *lock_ = statement_lock(hash_); \
		StatementStats	   *s; \
		LWLockAcquire(lock_, LW_SHARED); \
		s = hash_search_with_hash_value(statements, &key_, hash_, HASH_FIND, NULL); \
		if (s != NULL) \
		{ \
			SpinLockAcquire(&s->mutex); \
			body; \
			SpinLockRelease(&s->mutex); \
		} \
		LWLockRelease(lock_); \
	} while (0)

/*
 * Has this backend already registered the statement since the last reset? Saves
 * a shared lock on every statement the cache plans.
 */
static bool
statement_known_locally(const StatementKey *key)
{
	uint32		resets = pg_atomic_read_u32(&stats->resets);
	bool		found;

	if (known_statements == NULL || resets != known_statements_resets)
	{
		HASHCTL		info;

		if (known_statements != NULL)
			hash_destroy(known_statements);
		info.keysize = sizeof(StatementKey);
		info.entrysize = sizeof(StatementKey);
		info.hcxt = TopMemoryContext;
		known_statements = hash_create("sfcache known statements", 256, &info,
									   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		known_statements_resets = resets;
	}
	(void) hash_search(known_statements, key, HASH_ENTER, &found);
	return found;
}

/*
 * Make sure the statement is tracked, keeping a prefix of its text (its
 * span of source, as base_normalize.c shows it).
 */
void
CacheStatsRegisterStatement(uint64 queryid, const char *source, int location, int length)
{
	StatementKey key = statement_key(queryid);
	uint32		hash = statement_hash(&key, sizeof(key));
	LWLock	   *lock = statement_lock(hash);
	StatementStats *s;
	bool		found;
	char	   *shown;

	if (queryid == 0 || statement_known_locally(&key))
		return;
	LWLockAcquire(lock, LW_SHARED);
	s = hash_search_with_hash_value(statements, &key, hash, HASH_FIND, NULL);
	LWLockRelease(lock);
	if (s != NULL)
		return;

	shown = SfcStatementText(queryid, source, location, length);
	LWLockAcquire(lock, LW_EXCLUSIVE);
	s = hash_search_with_hash_value(statements, &key, hash, HASH_ENTER_NULL, &found);
	if (s == NULL)
		pg_atomic_fetch_add_u64(&stats->untracked, 1);
	else if (!found)
	{
		memset((char *) s + sizeof(StatementKey), 0, sizeof(StatementStats) - sizeof(StatementKey));
		SpinLockInit(&s->mutex);
		if (shown != NULL)
		{
			int			len = pg_mbcliplen(shown, strlen(shown), SHAPE_TEXT_LEN - 1);

			memcpy(s->query, shown, len);
			s->query[len] = '\0';
		}
	}
	LWLockRelease(lock);
	if (shown != NULL)
		pfree(shown);
}

void
CacheStatsCount(CacheStat counter, uint64 queryid)
{
	pg_atomic_fetch_add_u64(&stats->counters[counter], 1);
	if (queryid != 0)
		WITH_STATEMENT(queryid, s, s->counters[counter]++);
}

/*
 * sfcache.cold_after (cache_cold.c), under the statement's spinlock. A full
 * window of executions through the cache is cold when it was served less
 * than once in a hundred, or when the cache cost it more time than it
 * saved: its hits saved a leader's run each (the window's leaders' mean),
 * and every execution through the cache worked where a cold one does not
 * (a hit on its key and lookup, a leader on its key, lookup, windows and
 * store; either on its cache plan when it was made for it alone). Waits
 * for leaders are not counted: a waiting backend leaves the cores to
 * others, and a follower waits at most a run it would have made
 * (cache_singleflight.c stops following leaders whose windows rarely
 * hold their followers). A window served too rarely makes the statement
 * cold, and so does the second costly window in a row: the time in the
 * cache is wall-clock time, and on a busy server one window in ten of a
 * statement that pays for itself comes out costly (a few leaders
 * descheduled, or waiting for a partition lock; measured in bench/soak at
 * 16 clients on two cores), which would run it bare for a whole cold run.
 * A cold verdict makes the statement cold for COLD_RUNS_PER_WINDOW times
 * the window, doubled for each cold verdict in a row up to
 * COLD_MAX_DOUBLINGS times (a statement whose keys never repeat pays a
 * window through the cache in 121 rather than in 16). One
 * cold execution in COLD_SAMPLE_EVERY still goes through the cache: a
 * served one ends a cold run that was served too rarely, and
 * COLD_COST_SAMPLES_SERVED served in a row end one that was too costly
 * (its samples are served now and then by design, a quarter or more: with
 * three in a row, chance ended such runs early): a herd of identical
 * executions of a statement that was cold is coalesced after a few
 * samples (the first stores, past admission, the next is a hit), not
 * after the cold run.
 */
#define COLD_RUNS_PER_WINDOW 15
#define COLD_MAX_DOUBLINGS 3
#define COLD_SAMPLE_EVERY 64
#define COLD_COST_SAMPLES_SERVED 8

/*
 * A cold execution is asked for on every execution of a cold statement,
 * where a visit to its shared entry (a partition lock, a hash lookup, a
 * spinlock) was a quarter of what sfcache added to a primary-key SELECT's
 * cost (bench/callgrind-select). So a backend takes a lease: the visit
 * that takes a cold execution also takes up to COLD_LEASE - 1 more, never
 * the next sample's nor past the cold run, which the backend then runs
 * without a visit. They are counted into the statement's bypasses at the
 * backend's next visit to it, when it reads sfcache.statements, or when
 * it exits cleanly (a backend that is terminated loses its last few). A
 * served sample that ends a cold run leaves other backends' leases to run
 * out: up to COLD_LEASE - 1 more executions as planned each, which is
 * always correct (regress/specs/cold_leases.spec). One lease per slot, by
 * query id; sfcache.reset() voids them.
 */
#define COLD_LEASE 16
#define COLD_LEASE_SLOTS 16

typedef struct ColdLease
{
	uint64		queryid;
	Oid			userid;
	uint32		resets;			/* stats->resets when it was taken */
	uint32		left;			/* cold executions still to run */
	uint32		uncounted;		/* run, not yet in the statement's bypasses */
} ColdLease;

static ColdLease cold_leases[COLD_LEASE_SLOTS];
static bool cold_leases_counted_at_exit = false;

static inline void
take_cold(StatementStats *s, bool *cold, uint32 *leased)
{
	uint32		to_sample;

	if (s->cold_left == 0)
		return;
	s->cold_left--;
	if (++s->cold_sampled % COLD_SAMPLE_EVERY == 0)
		return;
	s->bypasses++;
	s->last_bypass = CACHE_BYPASS_COLD;
	*cold = true;
	to_sample = COLD_SAMPLE_EVERY - 1 - s->cold_sampled % COLD_SAMPLE_EVERY;
	*leased = Min(Min(COLD_LEASE - 1, s->cold_left), to_sample);
	s->cold_left -= *leased;
	s->cold_sampled += *leased;
}

/*
 * Did the window cost more time than its hits saved? A hit saved a leader's
 * run: the window's leaders' mean, or the last such window's when all were
 * served.
 */
static inline bool
cold_window_costs_more(const StatementStats *s)
{
	uint32		leaders = s->cold_seen - s->cold_served;
	double		mean_us = s->cold_exec_mean_us;

	if (leaders > 0)
		mean_us = (double) s->cold_exec_us / leaders;
	if (mean_us == 0)
		return false;
	return mean_us * s->cold_served < (double) s->cold_cost_us;
}

/*
 * An execution through the cache, served or not: the time it spent in the
 * cache (cost_us) and, a leader's, its own run (exec_us). The time in the
 * cache counts up to COLD_COST_CAP leader runs (this window's mean so far,
 * or the last window's): a backend descheduled in a lookup for a time
 * slice is not what the cache costs, and one such in a window of hits
 * would outweigh the runs they saved.
 */
#define COLD_COST_CAP 4

static inline void
cold_window_note(StatementStats *s, bool served, uint64 cost_us, uint64 exec_us)
{
	uint32		leaders;
	uint64		mean_us;
	bool		served_enough;
	bool		costly;

	if (cache_cold_after <= 0)
		return;
	if (s->cold_left > 0)
	{
		/* a sample of a cold run */
		s->cold_samples_served = served ? s->cold_samples_served + 1 : 0;
		if (served && (!s->cold_by_cost ||
					   s->cold_samples_served >= COLD_COST_SAMPLES_SERVED))
			s->cold_left = s->cold_streak = s->cold_samples_served = 0;
		return;
	}
	leaders = s->cold_seen - s->cold_served;
	mean_us = leaders > 0 ? s->cold_exec_us / leaders : s->cold_exec_mean_us;
	s->cold_seen++;
	s->cold_served += served;
	if (mean_us > 0)
		cost_us = Min(cost_us, COLD_COST_CAP * Max(mean_us, exec_us));
	s->cold_cost_us += cost_us + (uint64) cache_test_added_cache_time_ms * 1000;
	s->cold_exec_us += exec_us;
	if (s->cold_seen >= (uint32) cache_cold_after)
	{
		served_enough = (uint64) s->cold_served * 100 >= s->cold_seen;
		costly = served_enough && cold_window_costs_more(s);
		if (!served_enough || (costly && s->cold_costly))
		{
			s->cold_left = (COLD_RUNS_PER_WINDOW * s->cold_seen) << s->cold_streak;
			s->cold_streak = Min(s->cold_streak + 1, COLD_MAX_DOUBLINGS);
			s->cold_by_cost = served_enough;
			s->cold_samples_served = 0;
			costly = false;
		}
		else if (!costly)
			s->cold_streak = 0;
		s->cold_costly = costly;
		leaders = s->cold_seen - s->cold_served;
		if (leaders > 0)
			s->cold_exec_mean_us = (uint32) Min(s->cold_exec_us / leaders, PG_UINT32_MAX);
		s->cold_seen = s->cold_served = 0;
		s->cold_cost_us = s->cold_exec_us = 0;
	}
}

/*
 * A follower of a windowed statement's leader was served by its windows,
 * or was not (its constants lay in another window): counted per statement,
 * halved as they grow, so that the recent ones weigh.
 */
#define FOLLOWS_HALVED_AT 64
#define FOLLOWS_OUTSIDE_SLACK 2

static inline void
note_follow(StatementStats *s, bool served)
{
	if (served)
		s->follows_served++;
	else
		s->follows_outside++;
	if (s->follows_served >= FOLLOWS_HALVED_AT || s->follows_outside >= FOLLOWS_HALVED_AT)
	{
		s->follows_served /= 2;
		s->follows_outside /= 2;
	}
}

void
CacheStatsNoteFollow(uint64 queryid, bool served)
{
	if (queryid != 0)
		WITH_STATEMENT(queryid, s, note_follow(s, served));
}

/*
 * Does following a leader of this windowed statement pay? Not known while
 * no follower was served and no more than FOLLOWS_OUTSIDE_SLACK found
 * themselves outside (cache_singleflight.c then follows only a leader whose
 * constants are near its own); it pays while its followers lately found
 * themselves outside the leader's windows no more often than inside (a few
 * more allowed); otherwise it does not (constants spread over more windows
 * than a herd shares): waiting for a leader then only delays the execution
 * that runs anyway. Unknown is not "both counters zero": with that, one
 * sampled follower found outside would make it pay (1 <= 0 + slack).
 */
static inline CacheFollowVerdict
follow_verdict(const StatementStats *s)
{
	if (s->follows_served == 0 && s->follows_outside <= FOLLOWS_OUTSIDE_SLACK)
		return CACHE_FOLLOW_UNKNOWN;
	if (s->follows_outside <= s->follows_served + FOLLOWS_OUTSIDE_SLACK)
		return CACHE_FOLLOW_PAYS;
	return CACHE_FOLLOW_DOES_NOT_PAY;
}

CacheFollowVerdict
CacheStatsFollowVerdict(uint64 queryid)
{
	CacheFollowVerdict verdict = CACHE_FOLLOW_UNKNOWN;

	if (queryid != 0)
		WITH_STATEMENT(queryid, s, verdict = follow_verdict(s));
	return verdict;
}

/* Count a lease's executions run so far into its statement. */
static void
count_lease(ColdLease *lease)
{
	if (lease->uncounted > 0 && lease->resets == pg_atomic_read_u32(&stats->resets))
		WITH_STATEMENT_OF(statement_key_of(lease->userid, lease->queryid), s,
						  s->bypasses += lease->uncounted);
	lease->uncounted = 0;
}

/* Every lease's executions so far, into their statements. */
static void
count_leases(void)
{
	for (int i = 0; i < COLD_LEASE_SLOTS; i++)
		count_lease(&cold_leases[i]);
}

/* At a clean exit (see COLD_LEASE; not after an error, which may hold locks). */
static void
count_leases_at_exit(int code, Datum arg)
{
	if (code == 0)
		count_leases();
}

/*
 * The visit that takes a cold execution and a lease on the next ones, or
 * finds the statement warm; counts what the lease's slot held before.
 * Apart from CacheStatsTakeCold(), whose lease path then saves no
 * registers.
 */
static pg_noinline bool
take_cold_lease(ColdLease *lease, uint64 queryid, Oid userid, uint32 resets)
{
	uint32		leased = 0;
	bool		cold = false;

	if (lease->queryid != queryid || lease->userid != userid)
		count_lease(lease);
	else if (lease->resets != resets)
		lease->uncounted = 0;
	WITH_STATEMENT(queryid, s, (s->bypasses += lease->uncounted,
								take_cold(s, &cold, &leased)));
	if (!cold_leases_counted_at_exit)
	{
		before_shmem_exit(count_leases_at_exit, (Datum) 0);
		cold_leases_counted_at_exit = true;
	}
	lease->queryid = queryid;
	lease->userid = userid;
	lease->resets = resets;
	lease->left = leased;
	lease->uncounted = 0;
	return cold;
}

/*
 * The one-shot cache plan made last (the simple protocol's, a custom
 * plan: cache_plan.c), and how long its making took, until its execution
 * takes it into its time in the cache: work that PostgreSQL's own plan
 * would not have cost (a miss plans the child besides, as its run). Left
 * out, a statement whose hits about paid for the rest of the ledger paid
 * for its cache plans on top: Django's statement on 3M rows with indexes
 * and `now` at random (bench/windows) ran at 0.82-0.9x PostgreSQL without
 * sfcache, its windows' verdicts falling on either side of even, a
 * quarter of its executions through the cache.
 */
static const PlannedStmt *plan_made = NULL;
static uint64 plan_made_us = 0;

void
CacheStatsNotePlanMade(const PlannedStmt *stmt, uint64 us)
{
	plan_made = stmt;
	plan_made_us = us;
}

/*
 * An execution of stmt starts (take false: ExecutorStart, cache_cold.c)
 * or looks its key up (take: the making's time, once). Another plan
 * starting forgets the one made: that one never ran, and its memory may be
 * reused.
 */
uint64
CacheStatsPlanMadeUs(const PlannedStmt *stmt, bool take)
{
	uint64		us = 0;

	if (stmt != plan_made)
		plan_made = NULL;
	else if (take)
	{
		us = plan_made_us;
		plan_made = NULL;
	}
	return us;
}

/*
 * Is the statement cold (cache_cold.c)? Then this execution counts as a
 * bypass: from the backend's lease, or in the visit that takes one.
 */
bool
CacheStatsTakeCold(uint64 queryid)
{
	ColdLease  *lease = &cold_leases[queryid % COLD_LEASE_SLOTS];
	Oid			userid = GetUserId();
	uint32		resets = pg_atomic_read_u32(&stats->resets);

	if (queryid == 0)
		return false;
	if (lease->queryid == queryid && lease->userid == userid &&
		lease->resets == resets && lease->left > 0)
	{
		lease->left--;
		lease->uncounted++;
	}
	else if (!take_cold_lease(lease, queryid, userid, resets))
		return false;
	pg_atomic_fetch_add_u64(&stats->bypasses[CACHE_BYPASS_COLD], 1);
	return true;
}

/*
 * An execution served a result (outcome: a hit or a coalesced follower; a
 * window hit when by_window), saving the execution of its rows' leader,
 * after cost_us of work in the cache (its key and lookup). One visit to
 * the statement for all of it: this is the hit path.
 */
void
CacheStatsServed(CacheStat outcome, bool by_window, uint64 queryid, uint64 saved_us,
				 uint64 cost_us)
{
	pg_atomic_fetch_add_u64(&stats->counters[outcome], 1);
	if (by_window)
		pg_atomic_fetch_add_u64(&stats->counters[CACHE_STAT_WINDOW_HITS], 1);
	pg_atomic_fetch_add_u64(&stats->times_us[CACHE_TIME_SAVED], saved_us);
	if (queryid != 0)
		WITH_STATEMENT(queryid, s, (s->counters[outcome]++,
									s->counters[CACHE_STAT_WINDOW_HITS] += by_window,
									s->times_us[CACHE_TIME_SAVED] += saved_us,
									cold_window_note(s, true, cost_us, 0)));
}

/*
 * Observe mode: an execution that would have been served (outcome: an
 * observed hit or coalesced follower; an observed window hit when
 * by_window) ran its own plan in ran_us, the time the cache would have
 * saved. For sfcache.cold_after it counts as served: a statement that would
 * hit is not cold.
 */
void
CacheStatsObserved(CacheStat outcome, bool by_window, uint64 queryid, uint64 ran_us)
{
	pg_atomic_fetch_add_u64(&stats->counters[outcome], 1);
	if (by_window)
		pg_atomic_fetch_add_u64(&stats->counters[CACHE_STAT_OBSERVED_WINDOW_HITS], 1);
	pg_atomic_fetch_add_u64(&stats->times_us[CACHE_TIME_OBSERVED_SAVED], ran_us);
	if (queryid != 0)
		WITH_STATEMENT(queryid, s, (s->counters[outcome]++,
									s->counters[CACHE_STAT_OBSERVED_WINDOW_HITS] += by_window,
									s->times_us[CACHE_TIME_OBSERVED_SAVED] += ran_us,
									cold_window_note(s, true, 0, 0)));
}

/*
 * A moving mean that weighs the last value by a quarter: a statement's first
 * run (catalogs to load, a cold buffer cache) is forgotten after a few.
 */
static inline uint32
moving_mean(uint64 mean, uint64 value)
{
	value = Min(value, PG_UINT32_MAX);
	if (mean == 0)
		return (uint32) Max(value, 1);
	return (uint32) Max((mean * 3 + value) / 4, 1);
}

/* A leader's outcome in a statement's counters (under its spinlock). */
static inline void
add_leader(StatementStats *s, CacheBypass why, uint64 exec_us, uint64 window_us,
		   uint64 cost_us)
{
	if (why == CACHE_BYPASS_NONE)
		s->counters[CACHE_STAT_LEADER_EXECUTIONS]++;
	else if (why == CACHE_BYPASS_NOT_ADMITTED)
		s->counters[CACHE_STAT_NOT_ADMITTED]++;
	else
	{
		s->bypasses++;
		s->last_bypass = why;
	}
	s->times_us[CACHE_TIME_LEADER] += exec_us;
	s->times_us[CACHE_TIME_WINDOW] += window_us;
	s->run_mean_us = moving_mean(s->run_mean_us, exec_us);
	cold_window_note(s, false, cost_us, exec_us);
}

/*
 * A leader's execution counts once: as a leader execution when it
 * published its result (stored, or handed to the followers in coalesce
 * mode), as not admitted, or as a bypass for why it could not store; with
 * its run, its windows' time and all its work in the cache besides its
 * run (cost_us), in one visit to its statement.
 */
void
CacheStatsLeader(CacheBypass why, uint64 queryid, uint64 exec_us, uint64 window_us,
				 uint64 cost_us)
{
	if (why == CACHE_BYPASS_NONE)
		pg_atomic_fetch_add_u64(&stats->counters[CACHE_STAT_LEADER_EXECUTIONS], 1);
	else if (why == CACHE_BYPASS_NOT_ADMITTED)
		pg_atomic_fetch_add_u64(&stats->counters[CACHE_STAT_NOT_ADMITTED], 1);
	else
		pg_atomic_fetch_add_u64(&stats->bypasses[why], 1);
	pg_atomic_fetch_add_u64(&stats->times_us[CACHE_TIME_LEADER], exec_us);
	pg_atomic_fetch_add_u64(&stats->times_us[CACHE_TIME_WINDOW], window_us);
	if (queryid != 0)
		WITH_STATEMENT(queryid, s, add_leader(s, why, exec_us, window_us, cost_us));
}

/* The statement's leaders' mean run, in microseconds (0: none yet). */
uint32
CacheStatsRunMean(uint64 queryid)
{
	uint32		mean = 0;

	if (queryid != 0)
		WITH_STATEMENT(queryid, s, mean = s->run_mean_us);
	return mean;
}

/*
 * A leader's time in the shared tier's Redis commands (cache_shared.c),
 * into the node's moving mean, one sample counting up to TIER_SAMPLE_CAP
 * times the mean (a backend's first command connects). Concurrent leaders
 * may overwrite each other's update: the mean loses a sample, never its
 * scale. sfcache.reset() keeps it: it is a measure, not a counter.
 */
#define TIER_SAMPLE_CAP 4

void
CacheStatsNoteTierTime(uint64 us)
{
	uint64		mean = pg_atomic_read_u64(&stats->tier_mean_us);

	if (mean > 0)
		us = Min(us, TIER_SAMPLE_CAP * mean);
	pg_atomic_write_u64(&stats->tier_mean_us, moving_mean(mean, us));
}

/* The node's mean time of a leader's Redis commands (0: none yet). */
uint64
CacheStatsTierMean(void)
{
	return pg_atomic_read_u64(&stats->tier_mean_us);
}

void
CacheStatsAddTime(CacheTime time, uint64 queryid, uint64 us)
{
	pg_atomic_fetch_add_u64(&stats->times_us[time], us);
	if (queryid != 0)
		WITH_STATEMENT(queryid, s, s->times_us[time] += us);
}

/*
 * An execution that looked its key up, then ran by itself (why): a bypass,
 * and for the cold verdict an execution not served, with its run and its
 * time in the cache, as a leader's. Misses that run alone instead of
 * leading (cache_singleflight.c's lead rule) cost what a leader costs but
 * its store and windows: uncounted, a statement whose misses mostly run
 * alone looked as if its few leaders' hits paid for all of them.
 */
void
CacheStatsRanAlone(CacheBypass why, uint64 queryid, uint64 exec_us, uint64 cost_us)
{
	pg_atomic_fetch_add_u64(&stats->bypasses[why], 1);
	if (queryid != 0)
		WITH_STATEMENT(queryid, s, (s->bypasses++, s->last_bypass = why,
									cold_window_note(s, false, cost_us, exec_us)));
}

void
CacheStatsBypass(CacheBypass why, uint64 queryid)
{
	pg_atomic_fetch_add_u64(&stats->bypasses[why], 1);
	if (queryid != 0)
		WITH_STATEMENT(queryid, s, (s->bypasses++, s->last_bypass = why));
}

void
CacheStatsStored(uint64 queryid, Size bytes)
{
	pg_atomic_fetch_add_u64(&stats->counters[CACHE_STAT_STORES], 1);
	if (queryid != 0)
		WITH_STATEMENT(queryid, s, (s->counters[CACHE_STAT_STORES]++, s->bytes_stored += bytes));
}

/* A key in a statement's exact list of its first distinct keys. */
static inline void
small_keys_add(StatementStats *s, uint64 hash)
{
	for (int i = 0; i < s->nsmall && s->nsmall <= SMALL_KEYS; i++)
		if (s->small_keys[i] == hash)
			return;
	if (s->nsmall < SMALL_KEYS)
		s->small_keys[s->nsmall++] = hash;
	else
		s->nsmall = SMALL_KEYS + 1;
}

/* Feed a key into its statement's count of distinct keys. */
void
CacheStatsKeySeen(uint64 queryid, CacheKey key)
{
	int			reg = key.lo % HLL_REGISTERS;
	uint8		rank = (key.hi == 0) ? 65 : pg_rightmost_one_pos64(key.hi) + 1;

	if (queryid != 0)
		WITH_STATEMENT(queryid, s, (s->hll[reg] = Max(s->hll[reg], rank),
									small_keys_add(s, key.hi ^ key.lo)));
}

static double
hll_estimate(const uint8 *reg)
{
	double		sum = 0;
	int			zeros = 0;
	double		m = HLL_REGISTERS;
	double		estimate;

	for (int i = 0; i < HLL_REGISTERS; i++)
	{
		sum += ldexp(1.0, -reg[i]);
		zeros += (reg[i] == 0);
	}
	estimate = 0.709 * m * m / sum;
	if (estimate <= 2.5 * m && zeros > 0)
		estimate = m * log(m / zeros);	/* small-range correction */
	return estimate;
}

/*
 * Remove the statements of database dbid, which DROP DATABASE has just removed.
 * No backend can be connected to it, so none has them in known_statements.
 */
void
CacheStatsForgetDatabase(Oid dbid)
{
	HASH_SEQ_STATUS seq;
	StatementStats *s;

	for (int i = 0; i < SHAPE_PARTITIONS; i++)
		LWLockAcquire(&stats->locks[i].lock, LW_EXCLUSIVE);
	hash_seq_init(&seq, statements);
	while ((s = hash_seq_search(&seq)) != NULL)
	{
		if (s->key.dbid == dbid)
			hash_search(statements, &s->key, HASH_REMOVE, NULL);
	}
	for (int i = SHAPE_PARTITIONS - 1; i >= 0; i--)
		LWLockRelease(&stats->locks[i].lock);
}

/* ---- SQL functions ---- */

SFC_FUNCTION_INFO_V1(sfcache_bypass_counts_0_1);
SFC_FUNCTION_INFO_V1(sfcache_statements_0_1);
SFC_FUNCTION_INFO_V1(sfcache_reset_0_1);

/* The global counters, for sfcache.stats (cache_sql.c). */
void
CacheStatsTotals(CacheStatsTotal *out)
{
	for (int i = 0; i < CACHE_NUM_STATS; i++)
		out->counters[i] = pg_atomic_read_u64(&stats->counters[i]);
	out->bypasses = 0;
	for (int i = 1; i < CACHE_NUM_BYPASS; i++)
		out->bypasses += pg_atomic_read_u64(&stats->bypasses[i]);
	out->untracked = pg_atomic_read_u64(&stats->untracked);
	for (int i = 0; i < CACHE_NUM_TIMES; i++)
		out->times_us[i] = pg_atomic_read_u64(&stats->times_us[i]);
	out->reset_at = stats->reset_at;
}

Datum
sfcache_bypass_counts_0_1(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 1; i < CACHE_NUM_BYPASS; i++)
	{
		Datum		values[2];
		bool		nulls[2] = {0};

		/* an outcome of its own (sfcache.stats' not_admitted) */
		if (i == CACHE_BYPASS_NOT_ADMITTED)
			continue;

		values[0] = CStringGetTextDatum(bypass_names[i]);
		values[1] = Int64GetDatum(pg_atomic_read_u64(&stats->bypasses[i]));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* A statement's executions: each ends in one outcome or one bypass. */
static uint64
statement_calls(const StatementStats *s)
{
	return s->counters[CACHE_STAT_HITS] + s->counters[CACHE_STAT_COALESCED] +
		s->counters[CACHE_STAT_OBSERVED_HITS] + s->counters[CACHE_STAT_OBSERVED_COALESCED] +
		s->counters[CACHE_STAT_LEADER_EXECUTIONS] +
		s->counters[CACHE_STAT_NOT_ADMITTED] + s->bypasses;
}

/* One row of sfcache.statements as 0.3 defined it; the statement is a stable copy. */
static void
put_statement_row_0_1(ReturnSetInfo *rsinfo, const StatementStats *s)
{
	Datum		values[12];
	bool		nulls[12] = {0};
	int			n = 0;

	values[n++] = ObjectIdGetDatum(s->key.dbid);
	values[n++] = ObjectIdGetDatum(s->key.userid);
	values[n++] = Int64GetDatum((int64) s->key.queryid);
	values[n++] = CStringGetTextDatum(s->query);
	values[n++] = Int64GetDatum(statement_calls(s));
	values[n++] = Int64GetDatum(s->counters[CACHE_STAT_HITS]);
	values[n++] = Int64GetDatum(s->counters[CACHE_STAT_COALESCED]);
	values[n++] = Int64GetDatum(s->counters[CACHE_STAT_MISSES]);
	values[n++] = Int64GetDatum(s->counters[CACHE_STAT_STORES]);
	values[n++] = Int64GetDatum(s->bypasses);
	if (s->bypasses == 0)
		nulls[n++] = true;
	else
		values[n++] = CStringGetTextDatum(bypass_names[s->last_bypass]);
	values[n++] = Int64GetDatum(s->bytes_stored);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* Microseconds as the milliseconds the views show (pg_stat_statements'). */
Datum
CacheStatsMsDatum(uint64 us)
{
	return Float8GetDatum((double) us / 1000.0);
}

/*
 * One row of sfcache.statements: calls = hits + coalesced +
 * observed_hits + observed_coalesced + leader_executions + not_admitted +
 * bypasses; window_hits is a part of hits, observed_window_hits of
 * observed_hits; then the times, in CacheTime's order.
 */
static void
put_statement_row(ReturnSetInfo *rsinfo, const StatementStats *s)
{
	Datum		values[18 + CACHE_NUM_TIMES];
	bool		nulls[18 + CACHE_NUM_TIMES] = {0};
	int			n = 0;

	values[n++] = ObjectIdGetDatum(s->key.dbid);
	values[n++] = ObjectIdGetDatum(s->key.userid);
	values[n++] = Int64GetDatum((int64) s->key.queryid);
	values[n++] = CStringGetTextDatum(s->query);
	values[n++] = Int64GetDatum(statement_calls(s));
	values[n++] = Int64GetDatum(s->counters[CACHE_STAT_HITS]);
	values[n++] = Int64GetDatum(s->counters[CACHE_STAT_COALESCED]);
	values[n++] = Int64GetDatum(s->counters[CACHE_STAT_LEADER_EXECUTIONS]);
	values[n++] = Int64GetDatum(s->counters[CACHE_STAT_NOT_ADMITTED]);
	values[n++] = Int64GetDatum(s->counters[CACHE_STAT_WINDOW_HITS]);
	values[n++] = Int64GetDatum(s->bypasses);
	if (s->bypasses == 0)
		nulls[n++] = true;
	else
		values[n++] = CStringGetTextDatum(bypass_names[s->last_bypass]);
	values[n++] = Int64GetDatum(s->counters[CACHE_STAT_STORES]);
	values[n++] = Int64GetDatum(s->bytes_stored);
	values[n++] = Int64GetDatum(s->counters[CACHE_STAT_OBSERVED_HITS]);
	values[n++] = Int64GetDatum(s->counters[CACHE_STAT_OBSERVED_COALESCED]);
	values[n++] = Int64GetDatum(s->counters[CACHE_STAT_OBSERVED_WINDOW_HITS]);
	for (int i = 0; i < CACHE_NUM_TIMES; i++)
		values[n++] = CacheStatsMsDatum(s->times_us[i]);
	Assert(n == rsinfo->setDesc->natts);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

typedef void (*StatementRowFn) (ReturnSetInfo *rsinfo, const StatementStats *s);

/* Every statement the caller may see, through put_row. */
static void
put_statement_rows(FunctionCallInfo fcinfo, StatementRowFn put_row)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bool		all_roles = has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
	HASH_SEQ_STATUS seq;
	StatementStats *s;

	/* this backend's own cold executions are counted (COLD_LEASE) */
	count_leases();
	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < SHAPE_PARTITIONS; i++)
		LWLockAcquire(&stats->locks[i].lock, LW_SHARED);
	hash_seq_init(&seq, statements);
	while ((s = hash_seq_search(&seq)) != NULL)
	{
		StatementStats copy;

		if (!all_roles && s->key.userid != GetUserId())
			continue;
		SpinLockAcquire(&s->mutex);
		copy = *s;
		SpinLockRelease(&s->mutex);
		put_row(rsinfo, &copy);
	}
	for (int i = 0; i < SHAPE_PARTITIONS; i++)
		LWLockRelease(&stats->locks[i].lock);
}

SFC_FUNCTION_INFO_V1(sfcache_statements_0_4);

Datum
sfcache_statements_0_1(PG_FUNCTION_ARGS)
{
	put_statement_rows(fcinfo, put_statement_row_0_1);
	return (Datum) 0;
}

Datum
sfcache_statements_0_4(PG_FUNCTION_ARGS)
{
	put_statement_rows(fcinfo, put_statement_row);
	return (Datum) 0;
}

/* The distinct keys column is computed here to keep put_statement_row short. */
SFC_FUNCTION_INFO_V1(sfcache_statement_keys_0_1);

Datum
sfcache_statement_keys_0_1(PG_FUNCTION_ARGS)
{
	StatementKey key;
	uint32		hash;
	LWLock	   *lock;
	StatementStats *s;
	double		estimate = 0;

	memset(&key, 0, sizeof(key));
	key.dbid = PG_GETARG_OID(0);
	key.userid = PG_GETARG_OID(1);
	key.queryid = (uint64) PG_GETARG_INT64(2);
	if (key.userid != GetUserId() &&
		!has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS))
		PG_RETURN_NULL();
	hash = statement_hash(&key, sizeof(key));
	lock = statement_lock(hash);
	LWLockAcquire(lock, LW_SHARED);
	s = hash_search_with_hash_value(statements, &key, hash, HASH_FIND, NULL);
	if (s != NULL)
	{
		uint8		reg[HLL_REGISTERS];
		uint8		nsmall;

		SpinLockAcquire(&s->mutex);
		memcpy(reg, s->hll, sizeof(reg));
		nsmall = s->nsmall;
		SpinLockRelease(&s->mutex);
		estimate = nsmall <= SMALL_KEYS ? nsmall : hll_estimate(reg);
	}
	LWLockRelease(lock);
	if (s == NULL)
		PG_RETURN_NULL();
	PG_RETURN_INT64((int64) rint(estimate));
}

Datum
sfcache_reset_0_1(PG_FUNCTION_ARGS)
{
	HASH_SEQ_STATUS seq;
	StatementStats *s;

	for (int i = 0; i < SHAPE_PARTITIONS; i++)
		LWLockAcquire(&stats->locks[i].lock, LW_EXCLUSIVE);
	hash_seq_init(&seq, statements);
	while ((s = hash_seq_search(&seq)) != NULL)
		hash_search(statements, &s->key, HASH_REMOVE, NULL);
	for (int i = 0; i < CACHE_NUM_STATS; i++)
		pg_atomic_write_u64(&stats->counters[i], 0);
	for (int i = 0; i < CACHE_NUM_TIMES; i++)
		pg_atomic_write_u64(&stats->times_us[i], 0);
	for (int i = 0; i < CACHE_NUM_BYPASS; i++)
		pg_atomic_write_u64(&stats->bypasses[i], 0);
	pg_atomic_write_u64(&stats->untracked, 0);
	pg_atomic_fetch_add_u32(&stats->resets, 1);
	stats->reset_at = GetCurrentTimestamp();
	for (int i = 0; i < SHAPE_PARTITIONS; i++)
		LWLockRelease(&stats->locks[i].lock);
	PG_RETURN_VOID();
}
