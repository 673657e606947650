/*-------------------------------------------------------------------------
 *
 * core_hooks.c
 *		Owns every hook point sfcache uses. Each hook is installed once,
 *		here, and is a dispatcher that calls the subsystems in the order
 *		written below, then the hook installed before ours or PostgreSQL's
 *		own function (as Citus' shared_library_init.c does). No other file
 *		sets a hook variable or registers a transaction callback.
 *
 * The order, outermost first (a subsystem listed first sees the event
 * first, and sees its end last):
 *
 *	shmem_request, shmem_startup: the previous hook, then base_shmem.c's
 *		registry (the parts in the order they were registered).
 *	post_parse_analyze: base computes the query id when the core does not
 *		(every statement but a write; a write only if the advice asks),
 *		then the previous hook, then base (the statement's text without its
 *		constants, base_normalize.c), then cache (the query the simple
 *		protocol plans next, for cold statements).
 *	planner: cache (a client's cacheable SELECT becomes a cache plan);
 *		otherwise whatif counts the planner call (hypothetical indexes are
 *		offered to one planner call only) around the previous planner.
 *	ExplainOneQuery: cache notes the start, the previous hook (or
 *		explain.c's default) plans and shows the plan, cache appends its
 *		"sfcache: bypass" line.
 *	build_simple_rel (19; get_relation_info before, through compat.c):
 *		the previous hook, then whatif adds the hypothetical indexes it
 *		offers to a table's RelOptInfo.
 *	explain_get_index_name: whatif names its hypothetical indexes;
 *		otherwise the previous hook.
 *	ExecutorStart: advice (sampling asks for row counts before the plan
 *		starts), cache (counts a client's SELECT that bypassed at planning,
 *		notes the relations the statement writes), then the executor; after
 *		it, cache (a write whose plan names its rows' tracked values notes
 *		them, and its executor's copy of the capture trigger is switched off).
 *	ExecutorRun, ExecutorFinish: base (nesting level + 1 around them);
 *		ExecutorRun also lets the cache swap the receiver (cache_replay.c),
 *		decided again at each run of a portal.
 *	ExecutorEnd: cache (the plan EXPLAIN showed under the cache node is
 *		taken off it), advice (records the sampled plan, counts writes),
 *		then the executor.
 *	ProcessUtility: whatif (a plain EXPLAIN shows the session's
 *		hypothetical indexes), base (nesting level + 1 unless EXPLAIN or
 *		EXECUTE), cache (the text of the prepared statement a client's
 *		EXECUTE runs; that an EXPLAIN runs, so the cache node shows its
 *		child plan; the writes the command makes, COMMIT PREPARED
 *		bracketed as a global write in flight), then the command; after it
 *		succeeded, base (COMMIT PREPARED moves every extension epoch),
 *		cache (VACUUM and ANALYZE drop results over their tables) and
 *		advice (counts COPY FROM and TRUNCATE).
 *	object_access: the previous hook, then base (an extension created or
 *		dropped, base_extension.c; a database dropped, noted here), then
 *		cache (ALTER and DROP of relations, hierarchy changes, code and
 *		types that change results).
 *	transaction callback: advice (forgets sampled statements), then cache
 *		(bumps generations around the commit; at commit, the cache's
 *		invalidation callbacks, which the advice registered, run: it
 *		records the transaction's writes with them), then advice (records
 *		the writes no callback did: a rollback), then cache (a
 *		transaction that created or dropped an extension frees its
 *		database's results), then base (moves the database's extension
 *		epoch, so that other sessions read pg_extension again); at the
 *		commit of DROP DATABASE, cache then advice free what they hold of
 *		the dropped database (results, statements, advice record).
 *
 * Subsystems that register with PostgreSQL's own registries (relcache and
 * syscache callbacks, custom scan methods, before_shmem_exit) do so in
 * their Init: those are lists, not chained hooks, and need no order.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_database.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/instrument.h"
#include "miscadmin.h"
#include "optimizer/pathnode.h"
#include "optimizer/plancat.h"
#include "optimizer/planner.h"
#include "parser/analyze.h"
#include "storage/ipc.h"
#include "tcop/tcopprot.h"
#include "tcop/utility.h"

#include "core/core.h"
#include "advice/advice.h"
#include "cache/cache.h"
#include "whatif/whatif.h"

static shmem_request_hook_type prev_shmem_request = NULL;
static shmem_startup_hook_type prev_shmem_startup = NULL;
static post_parse_analyze_hook_type prev_post_parse_analyze = NULL;
static planner_hook_type prev_planner = NULL;
static ExplainOneQuery_hook_type prev_ExplainOneQuery = NULL;
static build_simple_rel_hook_type prev_build_simple_rel = NULL;
static explain_get_index_name_hook_type prev_explain_get_index_name = NULL;
static ExecutorStart_hook_type prev_ExecutorStart = NULL;
static ExecutorRun_hook_type prev_ExecutorRun = NULL;
static ExecutorFinish_hook_type prev_ExecutorFinish = NULL;
static ExecutorEnd_hook_type prev_ExecutorEnd = NULL;
static ProcessUtility_hook_type prev_ProcessUtility = NULL;
static object_access_hook_type prev_object_access = NULL;

/*
 * The database this transaction's DROP DATABASE removes (one at most: it
 * cannot run in a transaction block), or InvalidOid.  Its OAT_DROP comes
 * before checks that can still fail, so its entries are freed at commit.
 */
static Oid	dropped_database = InvalidOid;

/* ---- shared memory ---- */

static void
sfc_shmem_request(void)
{
	if (prev_shmem_request)
		prev_shmem_request();
	SfcShmemRequest();
}

static void
sfc_shmem_startup(void)
{
	if (prev_shmem_startup)
		prev_shmem_startup();
	SfcShmemStartup();
}

/* ---- parse analysis ---- */

/*
 * The query id, when the core computes none (base_queryid.c): every
 * statement but a write, whose id only the advice may read, and then only
 * if it samples it.
 */
static void
sfc_post_parse_analyze(ParseState *pstate, Query *query, SfcHookJumbleState *jstate)
{
	if (query->queryId == 0 && SfcQueryIdsOwn() &&
		((query->commandType != CMD_INSERT && query->commandType != CMD_UPDATE &&
		  query->commandType != CMD_DELETE && query->commandType != CMD_MERGE) ||
		 AdviceWantsQueryId(pstate)))
		jstate = SfcComputeQueryId(query, pstate->p_sourcetext);
	if (prev_post_parse_analyze)
		prev_post_parse_analyze(pstate, query, jstate);
	SfcRememberStatementText(pstate->p_sourcetext, query, jstate);
	CacheColdNoteAnalyzed(pstate, query);
}

/* ---- planning and EXPLAIN ---- */

static PlannedStmt *
sfc_planner(SFC_PLANNER_PARAMS)
{
	PlannedStmt *plan = CachePlanStatement(parse, query_string, boundParams == NULL,
										   cursorOptions);

	if (plan != NULL)
		return plan;
	WhatifPlannerBegin();
	PG_TRY();
	{
		if (prev_planner)
			plan = prev_planner(SFC_PLANNER_ARGS);
		else
			plan = standard_planner(parse, query_string, cursorOptions, boundParams, es);
	}
	PG_FINALLY();
	{
		WhatifPlannerEnd();
	}
	PG_END_TRY();
	return plan;
}

static void
sfc_ExplainOneQuery(Query *query, int cursorOptions, IntoClause *into,
					ExplainState *es, const char *queryString,
					ParamListInfo params, QueryEnvironment *queryEnv)
{
	CacheExplainBegin();
	if (prev_ExplainOneQuery)
		prev_ExplainOneQuery(query, cursorOptions, into, es, queryString,
							 params, queryEnv);
	else
		standard_ExplainOneQuery(query, cursorOptions, into, es, queryString,
								 params, queryEnv);
	CacheExplainEnd(es);
}

static void
sfc_build_simple_rel(PlannerInfo *root, RelOptInfo *rel, RangeTblEntry *rte)
{
	if (prev_build_simple_rel)
		prev_build_simple_rel(root, rel, rte);
	if (rte->rtekind == RTE_RELATION)
		WhatifGetRelationInfo(root, rte->relid, rte->inh, rel);
}

static const char *
sfc_explain_get_index_name(Oid indexid)
{
	const char *name = WhatifExplainIndexName(indexid);

	if (name != NULL)
		return name;
	if (prev_explain_get_index_name)
		return prev_explain_get_index_name(indexid);
	return NULL;
}

/* ---- executor ---- */

static void
sfc_ExecutorStart(QueryDesc *queryDesc, int eflags)
{
	/* before the cold swap: a swapped plan is no cache plan, and is counted */
	CacheCountPlannedBypass(queryDesc->plannedstmt, eflags);
	CacheColdExecutorStart(queryDesc, eflags);
	AdviceExecutorStart(queryDesc, eflags);
	CacheExecutorStart(queryDesc, eflags);
	if (prev_ExecutorStart)
		prev_ExecutorStart(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
	CacheCaptureStatement(queryDesc, eflags);
}

static void
sfc_ExecutorRun(SFC_EXECUTOR_RUN_PARAMS)
{
	DestReceiver *dest = queryDesc->dest;

	sfc_nesting_level++;
	PG_TRY();
	{
		/* cache: a cached result's rows may go out as stored DataRows */
		queryDesc->dest = CacheReplayDestReceiver(queryDesc, direction, count);
		if (prev_ExecutorRun)
			prev_ExecutorRun(SFC_EXECUTOR_RUN_ARGS);
		else
			standard_ExecutorRun(SFC_EXECUTOR_RUN_ARGS);
	}
	PG_FINALLY();
	{
		queryDesc->dest = dest;
		sfc_nesting_level--;
	}
	PG_END_TRY();
}

static void
sfc_ExecutorFinish(QueryDesc *queryDesc)
{
	sfc_nesting_level++;
	PG_TRY();
	{
		if (prev_ExecutorFinish)
			prev_ExecutorFinish(queryDesc);
		else
			standard_ExecutorFinish(queryDesc);
	}
	PG_FINALLY();
	{
		sfc_nesting_level--;
	}
	PG_END_TRY();
}

static void
sfc_ExecutorEnd(QueryDesc *queryDesc)
{
	CacheExecutorEnd(queryDesc);
	AdviceExecutorEnd(queryDesc);
	if (prev_ExecutorEnd)
		prev_ExecutorEnd(queryDesc);
	else
		standard_ExecutorEnd(queryDesc);
}

/* ---- utility statements ---- */

/* The arguments of one ProcessUtility call. */
typedef struct UtilityCall
{
	PlannedStmt *pstmt;
	const char *queryString;
	bool		readOnlyTree;
	ProcessUtilityContext context;
	ParamListInfo params;
	QueryEnvironment *queryEnv;
	DestReceiver *dest;
	QueryCompletion *qc;
} UtilityCall;

/* The previous ProcessUtility hook, or PostgreSQL's own. */
static void
run_utility(const UtilityCall *c)
{
	if (prev_ProcessUtility)
		prev_ProcessUtility(c->pstmt, c->queryString, c->readOnlyTree,
							c->context, c->params, c->queryEnv, c->dest, c->qc);
	else
		standard_ProcessUtility(c->pstmt, c->queryString, c->readOnlyTree,
								c->context, c->params, c->queryEnv, c->dest,
								c->qc);
}

/* What the subsystems did before a command, to undo after it. */
typedef struct UtilityUndo
{
	int			nesting_level;	/* base: the level to restore */
	int			whatif_explain; /* whatif: WhatifUtilityBegin()'s result */
	bool		cache_entered;	/* cache: the EXECUTE text was set... */
	const char *execute_text;	/* ... over this one */
	bool		cache_explaining;	/* cache: the EXPLAIN state to restore */
	bool		commit_prepared;	/* cache: a COMMIT PREPARED in flight */
} UtilityUndo;

/* Undo, innermost first, whether the command succeeded or failed. */
static void
utility_undo(const UtilityUndo *u)
{
	CacheUtilityWritesEnd(u->commit_prepared);
	if (u->cache_entered)
	{
		CacheExplainUtilityEnd(u->cache_explaining);
		CacheUtilityEnd(u->execute_text);
	}
	sfc_nesting_level = u->nesting_level;
	WhatifUtilityEnd(u->whatif_explain);
}

/*
 * The subsystems around the command. Each one's "before" runs inside the
 * PG_TRY, so that an error in a later one still undoes what the earlier
 * ones did (u is in memory, not in registers, across the longjmp).
 */
static void
run_utility_wrapped(const UtilityCall *c)
{
	Node	   *stmt = c->pstmt->utilityStmt;
	UtilityUndo u = {sfc_nesting_level, WHATIF_NOT_EXPLAIN, false, NULL, false, false};
	volatile UtilityUndo *vu = &u;

	PG_TRY();
	{
		vu->whatif_explain = WhatifUtilityBegin(stmt);
		if (SfcUtilityNests(stmt))
			sfc_nesting_level++;
		vu->execute_text = CacheUtilityBegin(stmt, c->context);
		vu->cache_explaining = CacheExplainUtilityBegin(c->pstmt);
		vu->cache_entered = true;
		vu->commit_prepared = CacheUtilityWritesBegin(stmt);
		CacheUninstallBegin(stmt);
		run_utility(c);
	}
	PG_CATCH();
	{
		utility_undo(&u);
		PG_RE_THROW();
	}
	PG_END_TRY();
	utility_undo(&u);
}

/* The "after" steps run only when the command succeeded. */
static void
sfc_ProcessUtility(PlannedStmt *pstmt, const char *queryString,
				   bool readOnlyTree, ProcessUtilityContext context,
				   ParamListInfo params, QueryEnvironment *queryEnv,
				   DestReceiver *dest, QueryCompletion *qc)
{
	UtilityCall call = {pstmt, queryString, readOnlyTree, context, params,
	queryEnv, dest, qc};

	run_utility_wrapped(&call);
	SfcExtensionUtilityDone(pstmt->utilityStmt);
	CacheUtilityDone(pstmt->utilityStmt);
	CacheUninstallDone(pstmt->utilityStmt);
	CacheGucUtilityDone(pstmt->utilityStmt);
	AdviceUtilityDone(pstmt->utilityStmt);
}

/* ---- catalog changes and transactions ---- */

static void
sfc_object_access(ObjectAccessType access, Oid classId, Oid objectId,
				  int subId, void *arg)
{
	if (prev_object_access)
		prev_object_access(access, classId, objectId, subId, arg);
	/* lookups, on every statement, not changes */
	if (access == OAT_NAMESPACE_SEARCH || access == OAT_FUNCTION_EXECUTE)
		return;
	SfcExtensionObjectAccess(access, classId, objectId);
	if (access == OAT_DROP && classId == DatabaseRelationId)
		dropped_database = objectId;
	CacheObjectAccess(access, classId, objectId, subId, arg);
}

/* At the end of a transaction that ran DROP DATABASE. */
static void
database_drop_end(XactEvent event)
{
	if (!OidIsValid(dropped_database) ||
		(event != XACT_EVENT_COMMIT && event != XACT_EVENT_ABORT))
		return;
	if (event == XACT_EVENT_COMMIT)
	{
		CacheDatabaseDropped(dropped_database);
		AdviceStoreForgetDatabase(dropped_database);
	}
	dropped_database = InvalidOid;
}

static void
sfc_xact_callback(XactEvent event, void *arg)
{
	AdviceXactEvent(event);
	CacheXactEvent(event);
	AdviceXactEnd(event);
	CacheStoreXactEvent(event);
	SfcExtensionXactEvent(event);
	database_drop_end(event);
}

/* Install every hook; from _PG_init, after the subsystems' Init. */
void
CoreHooksInit(void)
{
	prev_shmem_request = shmem_request_hook;
	shmem_request_hook = sfc_shmem_request;
	prev_shmem_startup = shmem_startup_hook;
	shmem_startup_hook = sfc_shmem_startup;
	prev_post_parse_analyze = post_parse_analyze_hook;
	post_parse_analyze_hook = sfc_post_parse_analyze;
	prev_planner = planner_hook;
	planner_hook = sfc_planner;
	prev_ExplainOneQuery = ExplainOneQuery_hook;
	ExplainOneQuery_hook = sfc_ExplainOneQuery;
	SfcCompatHooksInit();
	prev_build_simple_rel = build_simple_rel_hook;
	build_simple_rel_hook = sfc_build_simple_rel;
	prev_explain_get_index_name = explain_get_index_name_hook;
	explain_get_index_name_hook = sfc_explain_get_index_name;
	prev_ExecutorStart = ExecutorStart_hook;
	ExecutorStart_hook = sfc_ExecutorStart;
	prev_ExecutorRun = ExecutorRun_hook;
	ExecutorRun_hook = sfc_ExecutorRun;
	prev_ExecutorFinish = ExecutorFinish_hook;
	ExecutorFinish_hook = sfc_ExecutorFinish;
	prev_ExecutorEnd = ExecutorEnd_hook;
	ExecutorEnd_hook = sfc_ExecutorEnd;
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = sfc_ProcessUtility;
	prev_object_access = object_access_hook;
	object_access_hook = sfc_object_access;
	RegisterXactCallback(sfc_xact_callback, NULL);
}
