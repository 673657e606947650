/*-------------------------------------------------------------------------
 *
 * cache_internal.h
 *		What the result cache's own files share (settings, keys, windows,
 *		cacheability, counters and the write set, the store, singleflight,
 *		statistics, the custom scan). Only files of extension/cache include
 *		it (scripts/check-includes); other subsystems and core see cache.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef SFCACHE_CACHE_INTERNAL_H
#define SFCACHE_CACHE_INTERNAL_H

#include "access/xact.h"
#include "access/xlogdefs.h"
#include "catalog/objectaccess.h"
#include "commands/explain.h"
#include "datatype/timestamp.h"
#include "executor/execdesc.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "nodes/extensible.h"
#include "nodes/params.h"
#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"
#include "nodes/primnodes.h"
#include "storage/condition_variable.h"
#include "storage/lwlock.h"
#include "tcop/dest.h"
#include "tcop/utility.h"
#include "utils/dsa.h"
#include "utils/relcache.h"
#include "utils/reltrigger.h"
#include "utils/snapshot.h"

#include "cache/cache.h"


/* ---- settings (cache_guc.c) ---- */

typedef enum CacheMode
{
	CACHE_MODE_OFF,
	CACHE_MODE_COALESCE,		/* merge concurrent identical misses only */
	CACHE_MODE_ON,				/* merge and keep results */
	CACHE_MODE_OBSERVE			/* keep results as on, serve none: count what
								 * would have been served */
} CacheMode;

extern int	cache_cache_mode;
extern int	cache_memory_mb;
extern int	cache_max_entries;
extern int	cache_max_entry_size_kb;
extern int	cache_ttl_s;
extern int	cache_wait_timeout_ms;
extern int	cache_cold_after;
extern int	cache_shared_min_duration_ms;
extern int	cache_max_statements;
extern int	cache_max_tags_per_transaction;
extern bool cache_wal_invalidations;
extern char *cache_immutable_functions;
extern bool cache_admission;
extern int	cache_admission_window;
extern int	cache_admission_period_s;
extern int	cache_test_admission_clock_s;
extern int	cache_test_hold_leader_lock;
extern int	cache_test_hold_commit_lock;
extern int	cache_test_hold_follower_lock;
extern int	cache_test_added_cache_time_ms;

extern void CacheGucInit(void);


/* ---- cache keys (cache_key.c) ---- */

/* 128 bits of hash naming one result: statement, constants, parameters, role. */
typedef struct CacheKey
{
	uint64		hi;
	uint64		lo;
} CacheKey;


/* The Consts of a query tree, blanked while its shape is keyed. */
typedef struct CacheKeyConsts
{
	int			n;
	int			cap;
	Const	  **nodes;
	Datum	   *values;
	bool	   *isnull;
} CacheKeyConsts;

extern void CacheKeyConstsBlank(Query *query, CacheKeyConsts *consts);
extern void CacheKeyConstsRestore(CacheKeyConsts *consts);
extern void CacheKeyConstsFree(CacheKeyConsts *consts);
extern CacheKey CacheKeyShape(Query *blanked, CacheKeyConsts *consts);
extern CacheKey CacheKeyCombine(CacheKey shape, const CacheKeyConsts *consts,
								const Bitmapset *windowed);

/* cache_key_memo.c */
extern CacheKey CacheKeyForStatement(Query *query, const char *text, int len,
									 const Bitmapset *windowed);
extern CacheKey CacheKeyWithParams(CacheKey query_key, ParamListInfo params,
								   const Bitmapset *windowed_params);

/* ---- validity windows of range constants (cache_window*.c) ---- */

/*
 * One windowed constant of a statement, found when it is planned
 * (cache_window.c): the constant (a Const, or an external Param) is one
 * side of the top-level conjunct "column strategy constant" on relation
 * occurrence relid, written here with the column on the left.
 */
typedef struct CacheWindowSpec
{
	Node	   *value;			/* Const or Param (PARAM_EXTERN) */
	int			const_index;	/* Const: its place in the key's walk; else -1 */
	Oid			relid;
	AttrNumber	attno;
	Oid			coltype;		/* the column's own type (output, length) */
	int			strategy;		/* BTLessStrategyNumber ... column side */
	Oid			opfamily;		/* the btree family of the comparison */
	Oid			lefttype;		/* the comparison's column-side input type */
	Oid			righttype;		/* and its constant-side type */
	Oid			collid;			/* the comparison's input collation */
	Oid			cmp_proc;		/* btree order proc (lefttype, righttype) */
	Oid			self_cmp_proc;	/* btree order proc (lefttype, lefttype) */
	char	   *colname;
	Index		varno;			/* the occurrence's range table index */
	List	   *filters;		/* other conjuncts of its clause on the same
								 * occurrence (Vars of any varno: the scan's) */
} CacheWindowSpec;

/* One windowed constant's value at an execution, and how to compare it. */
typedef struct CacheWindowValue
{
	const CacheWindowSpec *spec;
	Datum		value;
	bool		keyed;			/* null, or another type: in the key instead */
	int16		typlen;
	bool		typbyval;
	FmgrInfo	cmp;			/* cmp(column value, constant) */
} CacheWindowValue;

/* The windowed constants of one execution, as a lookup checks them. */
typedef struct CacheWindowProbe
{
	int			n;
	CacheWindowValue *values;
	bool		by_window;		/* out: served for another constant image */
	bool		keep_copy;		/* copy the matched entry's windows (EXPLAIN) */
	char	   *copy;			/* out: that copy */
	Size		copy_len;
} CacheWindowProbe;

extern List *CacheWindowsFind(Query *query);
extern List *CacheWindowSpecsToList(List *specs);
extern List *CacheWindowSpecsFromList(List *list);
extern Bitmapset *CacheWindowedConsts(List *specs);
extern CacheWindowProbe *CacheWindowProbeMake(List *specs, ParamListInfo params,
											  Bitmapset **windowed_params);

/* cache_window_scan.c: bounds seen by the leader's own scan */
typedef struct CacheWindowWatch CacheWindowWatch;
extern CacheWindowWatch *CacheWindowWatchStart(const CacheWindowProbe *probe,
											   QueryDesc *child);
extern bool CacheWindowWatchBounds(const CacheWindowWatch *watch, int i, bool *has_lo,
								   Datum *lo, bool *has_hi, Datum *hi);

/* cache_window_bounds.c */
extern void CacheWindowsCompute(const CacheWindowProbe *probe, const CacheWindowWatch *watch,
								bool ranges, ParamListInfo params, Snapshot snapshot,
								uint64 queryid, StringInfo out);
extern bool CacheWindowsContain(const char *windows, Size len, CacheWindowProbe *probe);
extern bool CacheWindowsSame(const char *a, Size alen, const char *b, Size blen,
							 const CacheWindowProbe *probe);
extern void CacheWindowsExplain(const CacheWindowProbe *probe, const char *windows,
								Size len, ExplainState *es);

/* cache_key_settings.c */
extern void CacheKeySettingsAppend(StringInfo buf);

/* ---- cacheability (cache_cacheable.c) ---- */

/* What the cacheability check learnt about a statement. */
typedef struct CacheableInfo
{
	CacheBypass bypass;
	List	   *relids;			/* OIDs of every relation it reads */
	List	   *inh_roots;		/* those read with their descendants */
	int			ttl_override_s; /* smallest sfcache.set_ttl() among them, 0 if
								 * none */
	bool		ttl_default;	/* does sfcache.ttl apply to one of them? */
} CacheableInfo;

extern int	CacheStatementTtl(int ttl_override_s, bool ttl_default);

extern void CacheCheckCacheable(Query *query, const char *query_string,
								CacheableInfo *info);
extern CacheBypass CacheCheckRuntimeBypass(List *relids);
extern CacheBypass CacheCheckHierarchies(List *inh_roots);

extern CacheBypass CacheCheckStandby(List *relids, bool storing);
extern bool CacheCheckStandbySnapshot(Snapshot snapshot);

/* ---- the code a statement runs (cache_code.c) ---- */

extern bool CacheNodeRunsMutableCode(Node *node, List **types);
extern List *CacheFunctionsExecutedBy(Query *query);
extern void CacheCheckFunctionsExecutable(List *funcids);

/* ---- IMMUTABLE code whose result comes from the catalogs (cache_catalog.c) ---- */

extern bool CacheNodeReadsCatalogs(Node *node);

/* ---- a set of counter numbers (cache_counterset.c) ---- */

typedef struct CacheCounterSet
{
	uint32	   *members;		/* in the order added; NULL before the first */
	int			nmembers;
	int			capacity;
	struct counterset_hash *table;	/* once more than a few, for lookups */
} CacheCounterSet;

extern bool CacheCounterSetAdd(CacheCounterSet *set, uint32 counter);
extern int	CacheCounterSetCount(const CacheCounterSet *set);
extern bool CacheCounterSetNext(const CacheCounterSet *set, int *pos, uint32 *counter);
extern void CacheCounterSetReset(CacheCounterSet *set);

/* ---- a relation's ancestors, cached per backend (cache_ancestors.c) ---- */

extern const SfcShmemPart CacheAncestorsShmemPart;
extern List *CacheRelationAncestors(Oid relid);
extern void CacheInheritanceChanged(void);
extern void CacheInheritanceXactBump(bool end_of_xact);
extern void CacheInheritanceEpochBump(void);

/* ---- invalidation by key values (cache_tracked.c, cache_tags.c) ---- */

/* A tracked column, as writers hash its values (CacheTrackedColumnsResolved). */
typedef struct CacheTrackedColumn
{
	AttrNumber	attnum;
	Oid			atttype;
	Oid			attcoll;
	bool		generated;
	uint32		column_hash;	/* CacheTagColumnHash of its name */
} CacheTrackedColumn;

#define CACHE_MAX_RESOLVED_COLUMNS 8

extern bool CacheIsCaptureFunction(Oid fnoid);
extern bool CacheTriggerCapturesEveryRow(const Trigger *trig);
extern int	CacheTrackedColumnsResolved(Oid relid, CacheTrackedColumn *columns);
extern List *CacheTrackedColumnsOf(Oid relid);
extern bool CacheTableAlone(Oid relid, bool *tracked);
extern bool CacheColumnIsTracked(List *columns, const char *attname);
extern char *CacheColumnUntrackable(Oid relid, const char *attname);
extern List *CacheStatementTags(Query *query);
extern int	CacheQualTagValues(Node *qual, Index varno, AttrNumber attno, Oid atttype,
							   Oid attcoll, Node **values, Oid *hashprocs, int max);
extern bool CacheTagValue(Node *node, ParamListInfo params, Datum *value, bool *isnull);
extern Oid	CacheTagHashProc(Oid atttype, Oid attcoll, Oid opno, Oid inputcollid,
							 Oid valuetype);
extern int	CacheResultCounters(List *relids, List *statement_tags,
								ParamListInfo params, uint32 *counters);

/* ---- relation settings (cache_relation_settings.c) ---- */

extern void CacheRelationSettingsInit(void);
extern bool CacheRelationIsExcluded(Oid relid);
extern int	CacheRelationTtl(Oid relid);

/* ---- invalidation counters (cache_inval_counters.c) ---- */

#define CACHE_MAX_RELS 64		/* a statement reading more is not cached */
#define CACHE_MAX_COUNTERS 256	/* counters one result depends on; beyond,
								 * relations depend on all their rows */
#define CACHE_GEN_SLOTS 16384	/* generation slots: hash of (database,
								 * relation) */

/* The counters a result depends on, read before its snapshot. */
typedef struct CacheGenSnapshot
{
	int			nslots;
	uint64		global_gen;
	uint32		slots[CACHE_MAX_COUNTERS];
	uint64		gens[CACHE_MAX_COUNTERS];
} CacheGenSnapshot;

extern const SfcShmemPart CacheInvalShmemPart;
extern uint32 CacheAnyRowCounter(Oid relid);
extern uint32 CacheWholeRelationCounter(Oid relid);
extern uint32 CacheTagCounter(Oid relid, const char *attname, uint32 valuehash);
extern uint32 CacheTagCounterOf(Oid relid, uint32 column_hash, uint32 valuehash);
extern uint32 CacheTagColumnHash(const char *attname);
extern bool CacheGenSnapshotTake(const uint32 *counters, int ncounters, CacheGenSnapshot *snap);
extern bool CacheGenSnapshotIsCurrent(const CacheGenSnapshot *snap);
extern bool CacheGensAreCurrent(uint64 global_gen, int nslots, const uint32 *slots,
								const uint64 *gens);
extern void CacheCountersBeforeCommit(const CacheCounterSet *counters, bool global);
extern void CacheCountersAfterCommit(const CacheCounterSet *counters, bool global);
extern bool CacheReplayedPast(List *relids, XLogRecPtr replay);
extern void CacheCountersChangedAt(const CacheCounterSet *counters, bool global,
								   XLogRecPtr lsn);
extern XLogRecPtr CacheKnownFrom(void);
extern XLogRecPtr CacheJoinedAt(void);
extern bool CacheCountersQuiet(const uint32 *counters, int ncounters);
extern bool CacheCountersUnchangedSince(const uint32 *counters, int ncounters,
										XLogRecPtr lsn);

/* ---- invalidations in the WAL (cache_inval_wal.c, cache_inval_wal_standby.c) ---- */

extern void CacheWalInit(void);
extern Oid *CacheOidArray(List *oids);
extern void CacheWalLogInvalidations(bool everything, List *relids, List *row_relids,
									 int ntags, const CacheTag *tags);
extern const SfcShmemPart CacheWalStandbyShmemPart;
extern void CacheWalRedoStartup(void);
extern void CacheWalNoteRecord(TransactionId xid);
extern bool CacheWalTrusted(void);
extern CacheBypass CacheWalStoreCheck(void);
extern bool CacheWalStartPending(void);
extern bool CacheWalSnapshotPastStart(Snapshot snapshot);

/* ---- the transaction's write set (cache_inval_writeset.c) ---- */

extern void CacheNoteRelationWrite(Oid relid);
extern void CacheNoteRowWrite(Oid relid);
extern void CacheNoteCapturedRow(Oid relid, uint32 column_hash, uint32 valuehash);
extern void CacheNoteUncapturedRow(Oid relid);
extern bool CacheCapturesRowsOf(Oid relid, bool *whole);
extern void CacheNotePlanChange(Oid relid);
extern void CacheNoteGlobalWrite(void);
extern bool CacheTransactionWroteAny(List *relids);
extern void CacheInvalidateRelationNow(Oid relid);
extern const CacheCounterSet *CacheWrittenCounters(void);
extern bool CacheWroteGlobal(void);
extern List *CacheWrittenRelations(void);
extern List *CachePlanChangedRelations(void);
extern List *CacheWholeRelations(void);
extern const CacheTag *CacheWrittenTags(int *ntags);
extern void CacheForgetWrites(void);

/* ---- the commit protocol (cache_inval_commit.c), for COMMIT PREPARED ---- */

extern void CacheCommitPreparedBegin(void);
extern void CacheCommitPreparedEnd(void);

/* ---- admission (cache_admit.c) ---- */

extern const SfcShmemPart CacheAdmitShmemPart;
extern bool CacheAdmitRecordMiss(CacheKey key);
extern void CacheAdmitReset(void);

/* ---- shared store (cache_store.c) ---- */

extern const SfcShmemPart CacheStoreShmemPart;

/* ---- singleflight (cache_singleflight.c) ---- */

typedef enum CacheOutcome
{
	CACHE_HIT,					/* served from a ready entry */
	CACHE_FOLLOWER_HIT,			/* waited for a leader, then served */
	CACHE_LEADER,				/* this backend computes and publishes */
	CACHE_RUN_UNCACHED,			/* run it without the cache */
	CACHE_OBSERVED_HIT,			/* observe mode: a ready entry would have
								 * served it; it runs its own plan */
	CACHE_OBSERVED_FOLLOWER		/* observe mode: it would have waited for a
								 * leader; it runs its own plan at once */
} CacheOutcome;

/*
 * A result in backend-local memory: serialised minimal tuples and, when
 * every column has a setting-independent text form (cache_run.c), the
 * same rows as the bodies of DataRow messages with every column in text
 * (datarows, cache_replay.c). want_datarows and want_both are the
 * reader's: copy only the DataRows when there are any, unless want_both
 * (a portal that may be fetched again, with another receiver) asks for the
 * tuples too.
 */
typedef struct CachedResult
{
	char	   *data;
	Size		len;
	char	   *datarows;		/* uint32 length + body per row; NULL: none */
	Size		datarows_len;
	bool		want_datarows;
	bool		want_both;
	uint64		exec_us;		/* the leader's execution of these rows */
	uint64		waited_us;		/* set by CacheSingleflightBegin: time spent
								 * waiting for leaders */
	instr_time	started;		/* when the execution began its lookup */
	uint64		planning_us;	/* making its one-shot cache plan (0: none) */
} CachedResult;

/* entries per blanked key of a statement with validity windows */
#define CACHE_WINDOW_ENTRIES 8

extern CacheOutcome CacheSingleflightBegin(CacheKey key, CacheKey *entry_key, uint64 queryid,
										   CachedResult *result, CacheWindowProbe *probe,
										   CacheBypass *why);
extern CacheBypass CacheSingleflightPublish(CacheKey key, const CacheGenSnapshot *gens,
											const CachedResult *result,
											const StringInfoData *windows, int ttl_s,
											bool keep);

/*
 * How a leader gives its key up (CacheSingleflightAbandon), and so how the
 * followers waiting on it go on.
 */
typedef enum CacheAbandon
{
	CACHE_ABANDON_RETRY,		/* it failed, or nobody is to keep its result:
								 * a follower looks the key up again (one
								 * leads) */
	CACHE_ABANDON_RUN_ALONE		/* its result cannot be stored: the followers
								 * run by themselves, bypassing for its reason */
} CacheAbandon;

extern void CacheSingleflightInit(void);
extern void CacheSingleflightAbandon(CacheKey key, CacheAbandon how, CacheBypass why);
extern void CacheFlushAll(void);

/* ---- statistics (cache_stats.c) ---- */

/*
 * Counters. An execution of a cached statement ends in exactly one outcome
 * (hits, coalesced, leader executions, not admitted, observed hits,
 * observed coalesced, or a bypass counted by reason); the others count
 * events (a miss is a lookup that led, whatever came of it). A window hit
 * is also a hit, an observed window hit also an observed hit.
 */
typedef enum CacheStat
{
	CACHE_STAT_HITS,			/* outcome: served a stored result */
	CACHE_STAT_MISSES,			/* event: a lookup found nothing and led */
	CACHE_STAT_COALESCED,		/* outcome: a follower served its leader's
								 * result */
	CACHE_STAT_HANDOFFS,		/* event: a follower took over as leader */
	CACHE_STAT_STORES,
	CACHE_STAT_EVICTIONS,
	CACHE_STAT_INVALIDATIONS,
	CACHE_STAT_EXPIRATIONS,
	CACHE_STAT_WAIT_TIMEOUTS,	/* event (the execution is a bypass) */
	CACHE_STAT_LEADER_EXECUTIONS,	/* outcome: a leader published its result */
	CACHE_STAT_NOT_ADMITTED,	/* outcome: computed, refused by admission */
	CACHE_STAT_WINDOW_HITS,		/* of the hits and coalesced followers, those
								 * served by a validity window for other
								 * constants than the leader's */
	CACHE_STAT_SHARED_HITS,		/* of the hits, those served from the shared
								 * tier (cache_shared.c) */
	CACHE_STAT_SHARED_STORES,	/* event: results put into the shared tier */
	CACHE_STAT_SHARED_REFUSALS, /* event: a shared entry the rule refused */
	CACHE_STAT_SHARED_LOCK_WAITS,	/* event: waited for another node's lock */
	CACHE_STAT_SHARED_ERRORS,	/* event: Redis failed or timed out */
	CACHE_STAT_OBSERVED_HITS,	/* outcome (observe mode): would have been a
								 * hit, ran its own plan */
	CACHE_STAT_OBSERVED_COALESCED,	/* outcome (observe mode): would have
									 * followed a leader, ran its own plan */
	CACHE_STAT_OBSERVED_WINDOW_HITS,	/* of the observed hits, those a
										 * validity window would have served */
	CACHE_NUM_STATS
} CacheStat;

/*
 * Times, in microseconds, kept beside the counters: what the cache costs
 * and what it saves.
 */
typedef enum CacheTime
{
	CACHE_TIME_LEADER,			/* leaders running the statement */
	CACHE_TIME_WINDOW,			/* leaders computing windows after their run */
	CACHE_TIME_WAIT,			/* executions waiting for a leader */
	CACHE_TIME_SAVED,			/* hits and coalesced followers: their rows'
								 * leader execution, not run again */
	CACHE_TIME_OBSERVED_SAVED,	/* observe mode: the own runs of observed hits
								 * and followers, which on would not run */
	CACHE_NUM_TIMES
} CacheTime;

/* The counters sfcache.stats showed in 0.3, a prefix of CacheStat. */
#define CACHE_NUM_STATS_0_1 (CACHE_STAT_WAIT_TIMEOUTS + 1)

extern const SfcShmemPart CacheStatsShmemPart;
extern void CacheStatsCount(CacheStat counter, uint64 queryid);
extern void CacheStatsServed(CacheStat outcome, bool by_window, uint64 queryid,
							 uint64 saved_us, uint64 cost_us);
extern void CacheStatsAddTime(CacheTime time, uint64 queryid, uint64 us);
extern void CacheStatsObserved(CacheStat outcome, bool by_window, uint64 queryid,
							   uint64 ran_us);
extern bool CacheStatsTakeCold(uint64 queryid);
extern void CacheStatsNoteFollow(uint64 queryid, bool served);

/* Does following a leader of a windowed statement pay (cache_stats.c)? */
typedef enum CacheFollowVerdict
{
	CACHE_FOLLOW_UNKNOWN,		/* too few follows to tell */
	CACHE_FOLLOW_PAYS,
	CACHE_FOLLOW_DOES_NOT_PAY
} CacheFollowVerdict;

extern CacheFollowVerdict CacheStatsFollowVerdict(uint64 queryid);
extern uint32 CacheStatsRunMean(uint64 queryid);
extern void CacheStatsNoteTierTime(uint64 us);
extern uint64 CacheStatsTierMean(void);
extern bool CacheColdPlansAsUsual(Query *parse, bool generic, bool *decided);
extern void CacheColdNoteDecided(const PlannedStmt *stmt);
extern void CacheStatsNotePlanMade(const PlannedStmt *stmt, uint64 us);
extern uint64 CacheStatsPlanMadeUs(const PlannedStmt *stmt, bool take);
extern void CacheStatsLeader(CacheBypass why, uint64 queryid, uint64 exec_us,
							 uint64 window_us, uint64 cost_us);
extern void CacheStatsBypass(CacheBypass why, uint64 queryid);
extern void CacheStatsRanAlone(CacheBypass why, uint64 queryid, uint64 exec_us,
							   uint64 cost_us);
extern void CacheStatsStored(uint64 queryid, Size bytes);
extern void CacheStatsRegisterStatement(uint64 queryid, const char *source, int location,
										int length);
extern void CacheStatsForgetDatabase(Oid dbid);
extern void CacheStatsKeySeen(uint64 queryid, CacheKey key);
extern const char *CacheBypassReasonName(CacheBypass why);

/* The global counters, as sfcache.stats shows them. */
typedef struct CacheStatsTotal
{
	uint64		counters[CACHE_NUM_STATS];
	uint64		bypasses;		/* of every reason */
	uint64		untracked;		/* statements not tracked */
	uint64		times_us[CACHE_NUM_TIMES];
	TimestampTz reset_at;
} CacheStatsTotal;

extern void CacheStatsTotals(CacheStatsTotal *out);
extern Datum CacheStatsMsDatum(uint64 us);

/* ---- the shared result tier (cache_shared.c) ---- */

/* A leader's use of the tier, from before its counters to its end. */
typedef struct CacheSharedLead
{
	bool		active;			/* the tier is asked for this execution */
	bool		locked;			/* this backend holds the cross-node lock */
	uint64		queryid;		/* the statement's, for its counters */
	CacheSharedName name;
	XLogRecPtr	complete_at;	/* L of a result computed now */
	bool		asked;			/* it asked for the lock: a leader's commands */
	instr_time	tier_time;		/* in the tier's commands, not its waits */
} CacheSharedLead;

extern void CacheSharedStart(CacheSharedLead *lead, CacheKey key, uint64 queryid,
							 bool eligible);
extern bool CacheSharedFetch(CacheSharedLead *lead, List *relids, const uint32 *counters,
							 int ncounters, TupleDesc tupdesc, CachedResult *result);
extern void CacheSharedFinish(CacheSharedLead *lead, bool put, const CachedResult *result,
							  TupleDesc tupdesc, int ttl_s);

/* ---- executor integration (cache_plan.c, cache_scan.c, cache_run.c) ---- */

extern void CacheExplainNoteBypass(CacheBypass why);
extern void CacheScanInit(void);

/* ---- the store (cache_store.c), as seen by cache_singleflight.c ---- */

/* An entry's state: cache_singleflight.c alone changes it. */
typedef enum CacheEntryState
{
	CACHE_ENTRY_FREE = 0,		/* on the free list (a zeroed slot is free) */
	CACHE_ENTRY_COMPUTING,		/* a leader is computing the result */
	CACHE_ENTRY_READY			/* the result can be served */
} CacheEntryState;

/*
 * The timestamp, timestamptz and date constants of a windowed execution,
 * in the order of its windowed constants: cache_singleflight.c records a
 * leader's, so that a lookup may tell whether its own constants are near
 * enough the leader's for one window to hold both. n is 0 when there is
 * nothing to compare (none, or more than CACHE_LEADER_TIMES).
 */
#define CACHE_LEADER_TIMES 4

typedef struct CacheLeaderTimes
{
	int64		values[CACHE_LEADER_TIMES]; /* microseconds, or days */
	uint8		n;
	uint8		days;			/* bit i set: values[i] is a date */
} CacheLeaderTimes;

/*
 * One cache entry slot. The fields are protected by the partition lock of
 * the entry's key (CacheStorePartitionLock(hashcode)); the condition
 * variable is the slot's and outlives any one key, so a follower may sleep
 * on it without holding a lock. The store (cache_store.c) maps keys to
 * slots and keeps the results; the state, the leader, the waiters and how
 * the last entry ended are singleflight's (cache_singleflight.c).
 */
typedef struct CacheEntry
{
	CacheKey	key;
	uint32		hashcode;
	Oid			dbid;			/* database of the leader that stored it */
	CacheEntryState state;		/* singleflight's */
	bool		transient;		/* singleflight's: free once waiters have read */
	int			leader_pid;		/* singleflight's */
	int			waiters;		/* singleflight's: followers waiting on it */
	uint32		claim;			/* singleflight's: bumped by each claim */
	TimestampTz claimed_at;		/* singleflight's: when its leader claimed it
								 * (if it has lead_times) */
	CacheLeaderTimes lead_times;	/* singleflight's: its leader's constants */
	uint64		queryid;		/* for per-statement counters
								 * (sfcache.statements) */
	dsa_pointer data;			/* ResultHeader followed by tuples */
	Size		size;
	TimestampTz expires_at;
	TimestampTz stored_at;		/* when its result was attached */
	pg_atomic_uint32 referenced;	/* CLOCK bit */
	/* singleflight's: how the last entry for last_key ended */
	CacheKey	last_key;
	CacheAbandon last_ending;	/* RETRY too when evicted or replaced */
	CacheBypass last_reason;	/* for CACHE_ABANDON_RUN_ALONE */
	int32		next_free;
	ConditionVariable cv;
} CacheEntry;

/*
 * What the store asks of the owner of entry states (cache_singleflight.c
 * registers it from CacheSingleflightInit) when it takes a slot back to
 * make room or to flush: whether an entry may go (ready, nobody waiting),
 * and to let it go (ready -> free, ending with CacheStoreRemove). Both are
 * called with the entry's partition lock held exclusively.
 */
typedef struct CacheEntryOwner
{
	bool		(*evictable) (const CacheEntry *entry);
	void		(*evict) (CacheEntry *entry);
} CacheEntryOwner;

extern void CacheStoreSetOwner(const CacheEntryOwner *owner);

extern uint32 CacheStoreHashKey(CacheKey key);
extern LWLock *CacheStorePartitionLock(uint32 hashcode);
extern CacheEntry *CacheStoreLookup(CacheKey key, uint32 hashcode);
extern CacheEntry *CacheStoreAllocate(void);
extern void CacheStoreReleaseUnused(CacheEntry *entry);
extern bool CacheStoreInsert(CacheEntry *entry, CacheKey key, uint32 hashcode);
extern void CacheStoreRemove(CacheEntry *entry);
extern dsa_pointer CacheStoreWriteResult(const CacheGenSnapshot *gens,
										 const StringInfoData *windows,
										 const CachedResult *result, Size *size);
extern const char *CacheStoreEntryWindows(CacheEntry *entry, Size *len);
extern void CacheStoreFreeResult(dsa_pointer dp);
extern void CacheStoreAttachResult(CacheEntry *entry, dsa_pointer dp, Size size);
extern bool CacheStoreEntryIsCurrent(CacheEntry *entry, TimestampTz now,
									 CacheStat *why_not);
extern void CacheStoreCopyResult(CacheEntry *entry, CachedResult *out);
extern void CacheStoreFlush(void);
extern void CacheStoreUsage(uint64 *bytes, uint64 *entries);

/* ---- the custom scan (cache_scan.c, cache_run.c) ---- */

/* The contents of CustomScan.custom_private, unpacked. */
typedef struct CacheScanPrivate
{
	Query	   *query;			/* analyzed and rewritten, never modified */
	CacheKey	key;			/* of the query tree */
	List	   *relids;			/* relations it reads */
	List	   *inh_roots;		/* those read with their descendants */
	List	   *funcids;		/* functions whose EXECUTE a hit checks */
	List	   *tags;			/* CacheStatementTags() */
	List	   *windows;		/* CacheWindowSpec list: CacheWindowsFind() */
	int			ttl_override_s; /* see CacheableInfo */
	bool		ttl_default;
	int			cursor_options;
	bool		generic_plan;	/* planned without parameter values: the plan
								 * cache may run it many times */
	const char *query_string;
} CacheScanPrivate;

extern const CustomScanMethods cache_scan_plan_methods;

extern List *CacheScanPrivateToList(const CacheScanPrivate *priv);

/* cache_run.c: running the saved query and keeping its rows (the result receiver) */

typedef struct CacheResultReceiver
{
	DestReceiver pub;
	Size		limit;			/* bytes kept in buf; beyond, spill */
	StringInfoData buf;			/* serialised minimal tuples */
	bool		text_rows;		/* also render the rows as DataRows? */
	StringInfoData datarows;	/* see CachedResult */
	FmgrInfo   *text_out;		/* each column's output function */
	Tuplestorestate *spill;		/* every row, once over the limit */
	TupleTableSlot *tmp_slot;
	MemoryContext cxt;			/* where rows must outlive the query */
} CacheResultReceiver;

extern CacheResultReceiver *CacheResultReceiverCreate(Size limit);

/* cache_scan.c: the scan as cache_replay.c drives it */
extern bool CacheScanIsCacheScan(PlanState *planstate);
extern void CacheScanStartRun(PlanState *planstate, bool send_datarows,
							  bool may_run_again);
extern bool CacheScanTakeDataRow(PlanState *planstate, const char **body, uint32 *len);

extern PlannedStmt *CachePlanSavedQuery(const CacheScanPrivate *priv, ParamListInfo params);

/* cache_child_plan.c: the plan a miss runs, kept with a generic cache plan */
extern PlannedStmt *CacheScanChildOfPlan(PlannedStmt *stmt, ParamListInfo params);
extern PlannedStmt *CacheChildPlan(const CustomScan *node, const CacheScanPrivate *priv,
								   const PlannedStmt *outer, ParamListInfo params);
extern PlannedStmt *CacheChildPlanKept(const CustomScan *node);
extern QueryDesc *CacheRunSavedQuery(PlannedStmt *stmt, const CacheScanPrivate *priv,
									 ParamListInfo params, Snapshot snapshot,
									 DestReceiver *dest, int instrument_options,
									 const CacheWindowProbe *watch_probe,
									 CacheWindowWatch **watch);
extern void CacheEndSavedQuery(QueryDesc *qd);

/* cache_explain.c: whether an EXPLAIN runs, and where its text begins */
extern bool CacheExplaining(void);
extern int	CacheExplainLocation(void);

/* cache_explain.c: the plan a miss runs, shown under the cache node */
extern void CacheExplainChild(CustomScanState *node, QueryDesc *child, ExplainState *es);

#endif							/* SFCACHE_CACHE_INTERNAL_H */
