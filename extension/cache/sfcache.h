/*-------------------------------------------------------------------------
 *
 * sfcache.h
 *		Declarations shared by the files of the sfcache module: each file's
 *		initialisation entry point, the cache's settings, and the types that
 *		cross file boundaries (cache keys, bypass reasons, outcomes).
 *
 *-------------------------------------------------------------------------
 */
#ifndef SFCACHE_H
#define SFCACHE_H

#include "datatype/timestamp.h"
#include "lib/stringinfo.h"
#include "nodes/params.h"
#include "nodes/parsenodes.h"

/* ---- settings (cache_guc.c) ---- */

typedef enum SfcCacheMode
{
	SFC_CACHE_OFF,
	SFC_CACHE_COALESCE,			/* merge concurrent identical misses only */
	SFC_CACHE_ON				/* merge and keep results */
} SfcCacheMode;

extern int	sfc_cache_mode;
extern int	sfc_memory_mb;
extern int	sfc_max_entries;
extern int	sfc_max_entry_size_kb;
extern int	sfc_ttl_s;
extern int	sfc_wait_timeout_ms;
extern int	sfc_max_statements;
extern char *sfc_immutable_functions;
extern int	sfc_test_hold_leader_lock;
extern int	sfc_test_hold_commit_lock;
extern int	sfc_test_hold_follower_lock;

extern void CacheGucInit(void);

/* test_hold.c */
extern void TestHoldOnAdvisoryLock(int key);

/* ---- bypass reasons (cache_stats.c names them) ---- */

typedef enum SfcBypass
{
	SFC_BYPASS_NONE = 0,
	SFC_BYPASS_DISABLED,		/* sfcache.cache = off */
	SFC_BYPASS_OPT_OUT,			/* leading comment sfcache:off */
	SFC_BYPASS_NOT_SELECT,		/* utility, DML, SELECT INTO, cursor */
	SFC_BYPASS_ROW_LOCK,		/* FOR UPDATE / SHARE */
	SFC_BYPASS_NOT_IMMUTABLE,	/* a volatile or stable function */
	SFC_BYPASS_RELATION_KIND,	/* catalog, foreign table, sequence */
	SFC_BYPASS_TEMP_RELATION,
	SFC_BYPASS_EXCLUDED,		/* sfcache.exclude() */
	SFC_BYPASS_ISOLATION,		/* REPEATABLE READ or SERIALIZABLE */
	SFC_BYPASS_OWN_WRITE,		/* this transaction wrote a relation read */
	SFC_BYPASS_STANDBY,
	SFC_BYPASS_TOO_LARGE,		/* result over sfcache.max_entry_size */
	SFC_BYPASS_COMMIT_IN_FLIGHT,	/* a writer was committing */
	SFC_BYPASS_NO_MEMORY,		/* could not make room for the result */
	SFC_BYPASS_TOO_MANY_RELATIONS,	/* reads more than SFC_MAX_RELS */
	SFC_BYPASS_WAIT_TIMEOUT,	/* waited sfcache.wait_timeout for a leader */
	SFC_BYPASS_RECORD_RESULT,	/* anonymous record columns: typmods are
								 * local to a backend */
	SFC_BYPASS_FOREIGN_RELATION,	/* a foreign table, or one in a hierarchy */
	SFC_NUM_BYPASS
} SfcBypass;

/* ---- cache keys (cache_key.c) ---- */

/* 128 bits of hash naming one result: statement, constants, parameters, role. */
typedef struct CacheKey
{
	uint64		hi;
	uint64		lo;
} CacheKey;

extern CacheKey CacheKeyForQuery(Query *query);

/* cache_key_memo.c */
extern CacheKey CacheKeyForStatement(Query *query, const char *text, int len);
extern CacheKey CacheKeyWithParams(CacheKey query_key, ParamListInfo params);

/* cache_settings.c */
extern void CacheSettingsAppend(StringInfo buf);

/* ---- cacheability (cacheable.c) ---- */

/* What the cacheability check learnt about a statement. */
typedef struct CacheableInfo
{
	SfcBypass	bypass;
	List	   *relids;			/* OIDs of every relation it reads */
	List	   *inh_roots;		/* those read with their descendants */
	int			ttl_override_s; /* smallest sfcache.set_ttl() among them, 0 if none */
	bool		ttl_default;	/* does sfcache.ttl apply to one of them? */
} CacheableInfo;

extern int	StatementTtl(int ttl_override_s, bool ttl_default);

extern void CheckCacheable(Query *query, const char *query_string,
						   CacheableInfo *info);
extern SfcBypass CheckRuntimeBypass(List *relids);
extern SfcBypass CheckHierarchies(List *inh_roots);

/* ---- the code a statement runs (cache_code.c) ---- */

extern bool FunctionIsMutable(Oid funcid);
extern bool NodeRunsMutableCode(Node *node, List **types);
extern List *FunctionsExecutedBy(Query *query);
extern void CheckFunctionsExecutable(List *funcids);

/* ---- relation settings (relation_settings.c) ---- */

extern void RelationSettingsInit(void);
extern bool RelationIsExcluded(Oid relid);
extern int	RelationTtl(Oid relid);

/* ---- invalidation (inval.c) ---- */

#define SFC_MAX_RELS 64			/* a statement reading more is not cached */

/* The generations of a statement's relations, read before its snapshot. */
typedef struct GenSnapshot
{
	int			nslots;
	uint64		global;
	uint32		slots[SFC_MAX_RELS];
	uint64		gens[SFC_MAX_RELS];
} GenSnapshot;

extern void InvalInit(void);
extern Size InvalShmemSize(void);
extern void InvalShmemInit(void);
extern bool GenSnapshotTake(List *relids, GenSnapshot *snap);
extern bool GenSnapshotIsCurrent(const GenSnapshot *snap);
extern bool GensAreCurrent(uint64 global, int nslots, const uint32 *slots,
						   const uint64 *gens);
extern bool TransactionWroteAny(List *relids);
extern void InvalidateRelationNow(Oid relid);
extern void InvalidateAllNow(void);

/* ---- shared store (cache_store.c) ---- */

extern Size CacheStoreShmemSize(void);
extern void CacheStoreShmemInit(void);

/* ---- singleflight (singleflight.c) ---- */

typedef enum SfcOutcome
{
	SFC_HIT,					/* served from a ready entry */
	SFC_FOLLOWER_HIT,			/* waited for a leader, then served */
	SFC_LEADER,					/* this backend computes and publishes */
	SFC_RUN_UNCACHED			/* run it without the cache */
} SfcOutcome;

/* A result in backend-local memory: serialised minimal tuples. */
typedef struct CachedResult
{
	char	   *data;
	Size		len;
} CachedResult;

extern SfcOutcome SingleflightBegin(CacheKey key, uint64 shape,
									CachedResult *result, SfcBypass *why);
extern SfcBypass SingleflightPublish(CacheKey key, const GenSnapshot *gens,
									 const CachedResult *result, int ttl_s);
extern void SingleflightAbandon(CacheKey key, SfcBypass why);
extern void CacheFlushAll(void);

/* ---- statistics (cache_stats.c) ---- */

typedef enum SfcCounter
{
	SFC_STAT_HITS,
	SFC_STAT_MISSES,
	SFC_STAT_COALESCED,
	SFC_STAT_HANDOFFS,
	SFC_STAT_STORES,
	SFC_STAT_EVICTIONS,
	SFC_STAT_INVALIDATIONS,
	SFC_STAT_EXPIRATIONS,
	SFC_STAT_WAIT_TIMEOUTS,
	SFC_NUM_COUNTERS
} SfcCounter;

extern Size CacheStatsShmemSize(void);
extern void CacheStatsShmemInit(void);
extern void CacheStatsCount(SfcCounter counter, uint64 shape);
extern void CacheStatsBypass(SfcBypass why, uint64 shape);
extern void CacheStatsStored(uint64 shape, Size bytes);
extern void CacheStatsRegisterShape(uint64 queryid, const char *text, int len);
extern void CacheStatsKeySeen(uint64 shape, CacheKey key);
extern const char *BypassReasonName(SfcBypass why);

/* ---- executor integration (cache_plan.c, cache_scan.c, cache_run.c) ---- */

extern void CachePlanInit(void);
extern void CacheExplainInit(void);
extern void CacheExplainNoteBypass(SfcBypass why);
extern bool SfcacheStartingSavedQuery(void);
extern void CacheScanInit(void);
extern int	sfc_nesting_level;

/* ---- hook chaining (sfcache.c) ---- */

#include "tcop/utility.h"

extern void CallNextProcessUtility(ProcessUtility_hook_type prev,
								   PlannedStmt *pstmt, const char *queryString,
								   bool readOnlyTree, ProcessUtilityContext context,
								   ParamListInfo params, QueryEnvironment *queryEnv,
								   DestReceiver *dest, QueryCompletion *qc);

/* ---- shared memory (shmem.c) ---- */

extern void SfcacheShmemInit(void);
extern TimestampTz SfcacheSharedStartedAt(void);

/* advice_hooks.c: index advice and hypothetical indexes */
extern void AdviceInit(void);

#endif							/* SFCACHE_H */
