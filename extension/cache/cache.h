/*-------------------------------------------------------------------------
 *
 * cache.h
 *		The interface of extension/cache, the result cache, to core and the
 *		other subsystems: its Init, the entry points core_hooks.c calls from
 *		each hook, the callbacks other subsystems register (committed
 *		invalidations, commits to carry to other nodes, the standby's rule),
 *		and the invalidations another node's commits cause. What the cache's
 *		own files share is in cache_internal.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef SFCACHE_CACHE_H
#define SFCACHE_CACHE_H

#include "access/xact.h"
#include "access/xlogdefs.h"
#include "catalog/objectaccess.h"
#include "commands/explain.h"
#include "executor/execdesc.h"
#include "nodes/parsenodes.h"
#include "parser/parse_node.h"
#include "nodes/plannodes.h"
#include "tcop/dest.h"
#include "tcop/utility.h"

#include "base/base.h"

/* ---- the cache's entry points (cache_init.c and the files named) ---- */

extern void CacheInit(void);

/* cache_plan.c: planner; NULL when the statement is planned as usual */
extern PlannedStmt *CachePlanStatement(Query *parse, const char *query_string, bool generic,
									   int cursorOptions);

/* cache_plan.c: ProcessUtility, the text of the statement EXECUTE runs */
extern const char *CacheUtilityBegin(Node *stmt, ProcessUtilityContext context);
extern void CacheUtilityEnd(const char *saved_execute_text);

/* cache_explain.c: ExplainOneQuery, before and after the plan is shown */
extern void CacheExplainBegin(void);
extern void CacheExplainEnd(ExplainState *es);

/* cache_explain.c: ProcessUtility, around an EXPLAIN statement */
extern bool CacheExplainUtilityBegin(PlannedStmt *pstmt);
extern void CacheExplainUtilityEnd(bool saved);

/* cache_capture_plan.c: a write's rows captured from its plan */
extern void CacheCaptureStatement(QueryDesc *queryDesc, int eflags);

/* cache_inval_hooks.c: where writes are seen */
extern void CacheExecutorStart(QueryDesc *queryDesc, int eflags);
extern bool CacheUtilityWritesBegin(Node *stmt);
extern void CacheUtilityWritesEnd(bool commit_prepared);
extern void CacheUtilityDone(Node *stmt);
extern void CacheObjectAccess(ObjectAccessType access, Oid classId,
							  Oid objectId, int subId, void *arg);

/* cache_guc.c: a setting of sfcache.immutable_functions checked */
extern void CacheGucUtilityDone(Node *stmt);

/* cache_cold.c: statements the cache does not pay for run as planned */
extern void CacheColdExecutorStart(QueryDesc *queryDesc, int eflags);
extern void CacheColdNoteAnalyzed(ParseState *pstate, Query *query);

/* cache_uninstall.c: DROP EXTENSION sfcache leaves nothing */
extern void CacheUninstallBegin(Node *stmt);
extern void CacheUninstallDone(Node *stmt);

/* cache_inval_commit.c: the commit protocol's transaction callback */
extern void CacheXactEvent(XactEvent event);

/* cache_store.c: transaction end, frees a database's results after a DROP */
extern void CacheStoreXactEvent(XactEvent event);
extern void CacheDatabaseDropped(Oid dbid);

/*
 * cache_inval_commit.c: called once per committed transaction that wrote
 * (so invalidated) relations, with their list, after its commit became
 * visible. Other subsystems register one from their Init (the index advice
 * counts invalidations).
 */
typedef void (*CacheInvalidationCallback) (List *relids);

extern void CacheRegisterInvalidationCallback(CacheInvalidationCallback callback);

/*
 * cache_window_bounds.c: called when a leader's window on (relid, attno),
 * compared by opno (column on the left) in statement queryid, came out as
 * a point for want of an index: the relation has no descendants, the
 * result is to be stored, the leader's scan did not read every row
 * passing the conjunct's filters, and no btree index without predicate
 * leads with the column in the comparison's family and collation. One
 * callback (the index advice counts starved windows).
 */
typedef void (*CacheWindowStarvedCallback) (Oid relid, AttrNumber attno, Oid opno,
											uint64 queryid);

extern void CacheRegisterWindowStarvedCallback(CacheWindowStarvedCallback callback);

/*
 * cache_inval_commit.c: told of each commit that invalidates something, to carry
 * it to other nodes (the Redis bus, extension/bus). BEGIN comes before the
 * commit record is written, DONE after the commit became visible (with the
 * database, the relations, whether everything was invalidated, and an LSN
 * at or past the end of the commit record), ABORTED if it did not commit.
 * The callback runs inside the commit: it copies into shared memory, and
 * never waits nor fails.
 */
typedef enum CacheCommitPhase
{
	CACHE_COMMIT_BEGIN,
	CACHE_COMMIT_DONE,
	CACHE_COMMIT_ABORTED
} CacheCommitPhase;

/*
 * A tag as it travels to another node: the relation, a hash of the tracked
 * column's name and the value's hash (cache_tags.c). The node's database
 * and the counter it maps to are the receiver's to add.
 */
typedef struct CacheTag
{
	Oid			relid;
	uint32		column_hash;
	uint32		value_hash;
} CacheTag;

/*
 * What a commit invalidated (DONE only): everything; or relids, whose
 * results all drop, and row_relids, written by rows that were all
 * captured, whose results restricted on tracked values drop only for the
 * tags listed (at most CACHE_MAX_COMMIT_TAGS; beyond, the commit lists
 * those relations in relids instead).
 */
#define CACHE_MAX_COMMIT_TAGS 64

typedef struct CacheCommitInfo
{
	Oid			dbid;
	XLogRecPtr	commit_lsn;		/* DONE only */
	bool		everything;		/* DONE only: everything is invalidated */
	int			nrelids;		/* DONE only */
	const Oid  *relids;
	int			nrow_relids;	/* DONE only */
	const Oid  *row_relids;
	int			ntags;			/* DONE only */
	const CacheTag *tags;
} CacheCommitInfo;

typedef void (*CacheCommitCallback) (CacheCommitPhase phase,
									 const CacheCommitInfo *info);

extern void CacheRegisterCommitCallback(CacheCommitCallback callback);

/* cache_plan.c: ExecutorStart, counts a cached plan's planned bypass */
extern void CacheCountPlannedBypass(PlannedStmt *stmt, int eflags);

/* cache_scan.c: ExecutorEnd, before the advice walks the plan */
extern void CacheExecutorEnd(QueryDesc *queryDesc);

/* cache_replay.c: ExecutorRun (core_hooks.c) */
extern DestReceiver *CacheReplayDestReceiver(QueryDesc *queryDesc, ScanDirection direction,
											 uint64 count);

/* ---- bypass reasons (cache_stats.c names them) ---- */

typedef enum CacheBypass
{
	CACHE_BYPASS_NONE = 0,
	CACHE_BYPASS_DISABLED,		/* sfcache.cache = off */
	CACHE_BYPASS_OPT_OUT,		/* leading comment sfcache:off */
	CACHE_BYPASS_NOT_SELECT,	/* utility, DML, SELECT INTO, cursor */
	CACHE_BYPASS_ROW_LOCK,		/* FOR UPDATE / SHARE */
	CACHE_BYPASS_NOT_IMMUTABLE, /* a volatile or stable function */
	CACHE_BYPASS_RELATION_KIND, /* catalog, foreign table, sequence */
	CACHE_BYPASS_TEMP_RELATION,
	CACHE_BYPASS_EXCLUDED,		/* sfcache.exclude() */
	CACHE_BYPASS_ISOLATION,		/* REPEATABLE READ or SERIALIZABLE */
	CACHE_BYPASS_OWN_WRITE,		/* this transaction wrote a relation read */
	CACHE_BYPASS_STANDBY,		/* a hot standby without the Redis bus */
	CACHE_BYPASS_TOO_LARGE,		/* result over sfcache.max_entry_size */
	CACHE_BYPASS_COMMIT_IN_FLIGHT,	/* a writer was committing */
	CACHE_BYPASS_NO_MEMORY,		/* could not make room for the result */
	CACHE_BYPASS_TOO_MANY_RELATIONS,	/* reads more than CACHE_MAX_RELS */
	CACHE_BYPASS_WAIT_TIMEOUT,	/* waited sfcache.wait_timeout for a leader */
	CACHE_BYPASS_RECORD_RESULT, /* anonymous record columns: typmods are local
								 * to a backend */
	CACHE_BYPASS_FOREIGN_RELATION,	/* a foreign table, or one in a hierarchy */
	CACHE_BYPASS_NOT_ADMITTED,	/* first miss of its key: not kept
								 * (cache_admit.c); counted as an outcome
								 * (CACHE_STAT_NOT_ADMITTED), not a bypass */
	CACHE_BYPASS_STANDBY_BEHIND,	/* a standby not yet replayed past what
									 * the bus told it, or the bus behind its
									 * replay */
	CACHE_BYPASS_CATALOG_LOOKUP,	/* a value computed from the catalogs
									 * (cache_catalog.c) */
	CACHE_BYPASS_OUTSIDE_WINDOW,	/* waited for a leader whose windows did
									 * not hold its constants, and found
									 * another leader computing */
	CACHE_BYPASS_COLD,			/* a statement the cache rarely serves, run as
								 * PostgreSQL plans it (cache_cold.c) */
	CACHE_NUM_BYPASS
} CacheBypass;

/*
 * On a hot standby, whether results may be served or stored at all: the
 * Redis bus (extension/bus) registers one, which says whether every commit
 * the standby has replayed has reached it as an invalidation. Without one,
 * a standby bypasses with CACHE_BYPASS_STANDBY. Beyond it, the cache itself
 * checks that the standby replayed past the invalidations it was told of
 * for the relations a statement reads (CacheInvalidateRelationsOf).
 */
typedef CacheBypass (*CacheStandbyCheck) (void);

extern void CacheRegisterStandbyCheck(CacheStandbyCheck check);

/*
 * cache_inval_counters.c: another node's commits (the Redis bus), with the
 * commit's LSN (InvalidXLogRecPtr if none): a standby serves and stores
 * results over these relations again once replayed past it. Relations
 * whose results all drop, or (CacheInvalidateRowsOf) relations written by
 * captured rows, with the tags those rows held, as CacheCommitInfo has them.
 */
extern void CacheInvalidateRelationsOf(Oid dbid, int nrelids, const Oid *relids,
									   XLogRecPtr replay_needed);
extern void CacheInvalidateRowsOf(Oid dbid, int nrelids, const Oid *relids,
								  int ntags, const CacheTag *tags,
								  XLogRecPtr replay_needed);
extern void CacheInvalidateAllNow(XLogRecPtr replay_needed);
extern void CacheInvalidateAllOnJoin(XLogRecPtr replay_needed);
extern int	CacheCommitCounters(Oid dbid, int nrelids, const Oid *relids,
								int nrow_relids, const Oid *row_relids,
								int ntags, const CacheTag *tags, uint32 *out,
								int max);
extern int	CacheSlotsAwaitingReplay(XLogRecPtr replay, XLogRecPtr *replay_needed_all);

/*
 * cache_shared.c: the shared result tier (sfcache.redis_results). The Redis
 * side registers itself (extension/bus, bus_results.c); the cache owns
 * what an entry holds, when one may be served (doc/DESIGN.md, "The shared
 * result tier") and when to ask. A name is the system identifier, the
 * timeline and the 128-bit key: nodes that differ in either never share.
 * Every call answers at once or within the tier's own timeout, never
 * raises an error, and says whether Redis failed (*error): the cache then
 * behaves as if the tier were empty. Called with no lock held.
 */
typedef struct CacheSharedName
{
	uint64		sysid;
	uint32		timeline;
	uint64		key_hi;
	uint64		key_lo;
} CacheSharedName;

/* What a primary published: k, w, and the largest field of the counters. */
typedef struct CacheSharedChanges
{
	XLogRecPtr	known_from;		/* k: every commit before it raised nothing */
	XLogRecPtr	watermark;		/* w: the last watermark it published */
	XLogRecPtr	changed_at;		/* the largest field of the counters asked */
} CacheSharedChanges;

/* The layout of counters and entries: the build's (SFCACHE_VERSION). */
extern uint32 CacheSharedLayout(void);

typedef enum CacheSharedLock
{
	CACHE_SHARED_LOCK_OURS,		/* taken: compute, put, unlock */
	CACHE_SHARED_LOCK_HELD,		/* another node computes it */
	CACHE_SHARED_LOCK_ERROR
} CacheSharedLock;

typedef struct CacheSharedTier
{
	bool		(*enabled) (void);
	/* the entry's bytes (palloc'd) or NULL when there is none */
	char	   *(*get) (const CacheSharedName *name, Size *len, bool *error);
	bool		(*put) (const CacheSharedName *name, const char *data, Size len,
						int ttl_ms);
	/* the cross-node lock, expiring after expire_ms */
	CacheSharedLock (*lock) (const CacheSharedName *name, int expire_ms);
	/* release it if it is still this backend's */
	void		(*unlock) (const CacheSharedName *name);

	/*
	 * The changes the primary published for late joiners (doc/DESIGN.md,
	 * "Late joiners") about these counters: false when there are none to
	 * trust (no hash, or written on another Redis run) or on *error.
	 */
	bool		(*changes) (const CacheSharedName *name, const uint32 *counters,
							int ncounters, CacheSharedChanges *changes,
							bool *error);
} CacheSharedTier;

extern void CacheRegisterSharedTier(const CacheSharedTier *tier);

#endif							/* SFCACHE_CACHE_H */
