/*-------------------------------------------------------------------------
 *
 * cache_plan.c
 *		The cache's part of the planner hook (core_hooks.c dispatches it
 *		here): a cacheable top-level SELECT is not planned at all.
 *		It becomes a one-node plan, a custom scan that carries the analyzed
 *		query and its key; the scan looks the key up when it runs, and only
 *		on a miss plans and runs the saved query (cache_scan.c).
 *
 * The plan keeps what the executor and the plan cache need from a real
 * one: every relation's range table entry and, from PostgreSQL 16 on,
 * every permission info (so permission checks run on a hit), and the
 * relation and function dependencies plus the row-security
 * flag (so the plan cache invalidates it on DDL or a role change). A
 * generic plan of a prepared statement therefore serves hits without ever
 * being planned again.
 *
 * Only the client's own statements are cached: a statement is the
 * client's when the planner is given the very string the client sent
 * (debug_query_string: the simple protocol's query, the extended
 * protocol's prepared statement) or, under a client's EXECUTE, the
 * prepared statement's text, and no executor or utility statement is
 * running around it. Queries of functions, triggers (deferred ones run at
 * COMMIT, outside any executor) and PL/pgSQL expressions are planned from
 * their own strings, so depth alone is not trusted (core's nesting level,
 * common/base_nesting.c). This file keeps the text of the prepared statement
 * a client's EXECUTE runs, from the ProcessUtility hook.
 *
 * A client's SELECT that bypasses for a reason known at planning is
 * planned as usual, and is counted under its reason once per execution,
 * not per planning (a prepared statement's generic plan is planned once
 * and run many times): the reason is kept per query id in this backend
 * and counted at ExecutorStart (CacheCountPlannedBypass), so that
 * sfcache.statements' calls count every execution once. A plain EXPLAIN
 * is not an execution.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/prepare.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "tcop/tcopprot.h"
#include "tcop/utility.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "cache/cache_internal.h"

/* While a client's EXECUTE runs: the text of the statement it executes. */
static const char *client_execute_text = NULL;

/* Query id -> why its last planning bypassed, in this backend. */
typedef struct PlannedBypass
{
	uint64		queryid;
	CacheBypass why;
} PlannedBypass;

#define MAX_PLANNED_BYPASSES 4096

static HTAB *planned_bypasses = NULL;

/* The scan's output: the query's visible columns, by name and type. */
static void
build_target_lists(Query *query, List **scan_tlist, List **plan_tlist)
{
	ListCell   *lc;
	AttrNumber	resno = 1;

	*scan_tlist = NIL;
	*plan_tlist = NIL;
	foreach(lc, query->targetList)
	{
		TargetEntry *tle = lfirst(lc);
		Oid			type = exprType((Node *) tle->expr);
		int32		typmod = exprTypmod((Node *) tle->expr);
		Oid			collation = exprCollation((Node *) tle->expr);
		TargetEntry *plan_tle;

		if (tle->resjunk)
			continue;
		*scan_tlist = lappend(*scan_tlist,
							  makeTargetEntry((Expr *) makeNullConst(type, typmod, collation),
											  resno, tle->resname, false));
		plan_tle = makeTargetEntry((Expr *) makeVar(INDEX_VAR, resno, type, typmod,
													collation, 0),
								   resno, tle->resname, false);
		/* RowDescription names the column's table and attribute, as uncached */
		plan_tle->resorigtbl = tle->resorigtbl;
		plan_tle->resorigcol = tle->resorigcol;
		*plan_tlist = lappend(*plan_tlist, plan_tle);
		resno++;
	}
}

static CustomScan *
make_cache_scan(Query *query, const char *statement, bool generic, int cursorOptions,
				const CacheableInfo *info)
{
	CustomScan *cscan = makeNode(CustomScan);
	CacheScanPrivate priv;

	build_target_lists(query, &cscan->custom_scan_tlist, &cscan->scan.plan.targetlist);
	cscan->scan.scanrelid = 0;
	cscan->scan.plan.startup_cost = 0;
	cscan->scan.plan.total_cost = 0.01;
	cscan->scan.plan.plan_rows = 1;
	cscan->scan.plan.plan_width = 0;
	cscan->flags = 0;
	cscan->methods = &cache_scan_plan_methods;

	/*
	 * No copy: the plan lives as long as the query tree it was made from, and
	 * the plan cache copies both. The saved query is copied before each
	 * planning on a miss, since the planner scribbles on its input.
	 */
	priv.query = query;

	/*
	 * A statement that would bypass the cache if it ran now (its transaction
	 * wrote a relation it reads, or another isolation level) leaves its key
	 * to be computed when a later execution needs it: a one-shot plan never
	 * does, and those bypasses are common (reads after writes in one
	 * transaction).
	 */
	priv.windows = CacheWindowsFind(query);
	if (CacheCheckRuntimeBypass(info->relids) == CACHE_BYPASS_NONE)
		priv.key = CacheKeyForStatement(query, statement,
										statement ? (int) strlen(statement) : 0,
										CacheWindowedConsts(priv.windows));
	else
		priv.key.hi = priv.key.lo = 0;
	priv.relids = info->relids;
	priv.inh_roots = info->inh_roots;
	priv.funcids = CacheFunctionsExecutedBy(query);
	priv.tags = CacheStatementTags(query);
	priv.ttl_override_s = info->ttl_override_s;
	priv.ttl_default = info->ttl_default;
	priv.cursor_options = cursorOptions;
	priv.generic_plan = generic;
	priv.query_string = statement;
	cscan->custom_private = CacheScanPrivateToList(&priv);
	return cscan;
}

/*
 * statement is this statement's own text: a client may send thousands of
 * statements in one string, and each plan keeps a copy of it.
 */
static PlannedStmt *
make_cache_plan(Query *query, const char *statement, bool generic, int cursorOptions,
				const CacheableInfo *info)
{
	PlannedStmt *stmt = makeNode(PlannedStmt);
	bool		has_row_security = false;
	List	   *perminfos;

	stmt->commandType = CMD_SELECT;
	stmt->queryId = query->queryId;
	stmt->canSetTag = query->canSetTag;
	stmt->planTree = (Plan *) make_cache_scan(query, statement, generic, cursorOptions, info);
	/* 16 and later check permissions from permInfos alone (base_rtable.c) */
	SfcCollectRelations(query, &stmt->rtable, &perminfos);
	SfcPlannedStmtSetPermInfos(stmt, perminfos);
	extract_query_dependencies((Node *) query, &stmt->relationOids,
							   &stmt->invalItems, &has_row_security);
	stmt->dependsOnRole = has_row_security;
	stmt->stmt_location = query->stmt_location;
	stmt->stmt_len = query->stmt_len;
	return stmt;
}

static const char *
statement_text(Query *query, const char *query_string, int *len)
{
	int			location = Max(query->stmt_location, 0);

	*len = query->stmt_len > 0 ? query->stmt_len : (int) strlen(query_string + location);
	return query_string + location;
}

/* Was this string sent by the client (see the header comment)? */
static bool
is_client_statement(const char *query_string)
{
	return query_string != NULL && MyBackendType == B_BACKEND &&
		(query_string == debug_query_string || query_string == client_execute_text);
}

/*
 * Remember why a client's SELECT bypasses, for CacheCountPlannedBypass; a
 * statement without a query id, or one beyond the table's size, is
 * counted now (once per planning).
 */
static void
note_planned_bypass(uint64 queryid, CacheBypass why)
{
	PlannedBypass *entry;
	bool		found;

	if (planned_bypasses == NULL)
	{
		HASHCTL		info;

		info.keysize = sizeof(uint64);
		info.entrysize = sizeof(PlannedBypass);
		info.hcxt = TopMemoryContext;
		planned_bypasses = hash_create("sfcache planned bypasses", 64, &info,
									   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	if (queryid == 0 ||
		(hash_get_num_entries(planned_bypasses) >= MAX_PLANNED_BYPASSES &&
		 hash_search(planned_bypasses, &queryid, HASH_FIND, NULL) == NULL))
	{
		CacheStatsBypass(why, queryid);
		return;
	}
	entry = hash_search(planned_bypasses, &queryid, HASH_ENTER, &found);
	entry->why = why;
}

/* A statement counted at planning (a cold one) is not counted again at its start. */
static void
forget_planned_bypass(uint64 queryid)
{
	if (planned_bypasses != NULL)
		hash_search(planned_bypasses, &queryid, HASH_REMOVE, NULL);
}

/*
 * ExecutorStart (core_hooks.c): an execution of a
 * client's SELECT whose planning bypassed the cache counts as one bypass.
 * Only at nesting level 0 (statements of functions run inside another
 * executor), never for EXPLAIN without ANALYZE, never for a cache plan
 * (its scan counts its outcome).
 */
void
CacheCountPlannedBypass(PlannedStmt *stmt, int eflags)
{
	PlannedBypass *entry;

	if (planned_bypasses == NULL || (eflags & EXEC_FLAG_EXPLAIN_ONLY) ||
		sfc_nesting_level > 0 || stmt->commandType != CMD_SELECT ||
		stmt->queryId == 0 || MyBackendType != B_BACKEND)
		return;
	if (stmt->planTree != NULL && IsA(stmt->planTree, CustomScan) &&
		((CustomScan *) stmt->planTree)->methods == &cache_scan_plan_methods)
		return;
	entry = hash_search(planned_bypasses, &stmt->queryId, HASH_FIND, NULL);
	if (entry != NULL)
		CacheStatsBypass(entry->why, stmt->queryId);
}

/* Plan a client's SELECT as a cache plan, or say why it bypasses. */
static PlannedStmt *
plan_client_select(Query *parse, const char *query_string, bool generic, int cursorOptions)
{
	CacheableInfo info;
	int			len = 0;
	const char *text = statement_text(parse, query_string, &len);

	CacheStatsRegisterStatement(parse->queryId, query_string, parse->stmt_location,
								parse->stmt_len);
	if (cache_cache_mode == CACHE_MODE_OFF)
		info.bypass = CACHE_BYPASS_DISABLED;
	else
		CacheCheckCacheable(parse, query_string, &info);
	if (info.bypass == CACHE_BYPASS_NONE)
		return make_cache_plan(parse, pnstrdup(text, len), generic, cursorOptions, &info);
	note_planned_bypass(parse->queryId, info.bypass);
	CacheExplainNoteBypass(info.bypass);
	return NULL;
}

/*
 * The planner hook (core_hooks.c): a cache plan for a client's cacheable
 * SELECT; NULL when the statement is to be planned as usual. generic: no
 * parameter values were given to plan with (the simple protocol, or a
 * prepared statement's generic plan, cache_child_plan.c).
 */
PlannedStmt *
CachePlanStatement(Query *parse, const char *query_string, bool generic, int cursorOptions)
{
	PlannedStmt *plan;
	bool		decided;
	instr_time	started;

	if (parse->commandType != CMD_SELECT || !is_client_statement(query_string) ||
		!SfcExtensionActive())
		return NULL;

	/* a client's SELECT under DECLARE, CREATE TABLE AS, COPY and such */
	if (sfc_nesting_level > 0 || (cursorOptions & (CURSOR_OPT_SCROLL | CURSOR_OPT_HOLD)))
	{
		CacheStatsBypass(CACHE_BYPASS_NOT_SELECT, parse->queryId);
		return NULL;
	}
	if (CacheColdPlansAsUsual(parse, generic, &decided))
	{
		forget_planned_bypass(parse->queryId);
		return NULL;
	}
	if (decided)
		INSTR_TIME_SET_CURRENT(started);
	plan = plan_client_select(parse, query_string, generic, cursorOptions);
	if (plan != NULL && decided)
	{
		instr_time	made;

		INSTR_TIME_SET_CURRENT(made);
		INSTR_TIME_SUBTRACT(made, started);
		CacheColdNoteDecided(plan);
		CacheStatsNotePlanMade(plan, (uint64) INSTR_TIME_GET_MICROSEC(made));
	}
	return plan;
}

/* The text of the prepared statement a client's EXECUTE (or EXPLAIN of one) runs. */
static const char *
executed_statement_text(Node *stmt, ProcessUtilityContext context)
{
	PreparedStatement *prepared;

	if (context != PROCESS_UTILITY_TOPLEVEL)
		return NULL;
	if (IsA(stmt, ExplainStmt))
		stmt = ((ExplainStmt *) stmt)->query;
	if (IsA(stmt, Query) && ((Query *) stmt)->commandType == CMD_UTILITY)
		stmt = ((Query *) stmt)->utilityStmt;
	if (stmt == NULL || !IsA(stmt, ExecuteStmt))
		return NULL;
	prepared = FetchPreparedStatement(((ExecuteStmt *) stmt)->name, false);
	return prepared ? prepared->plansource->query_string : NULL;
}

/*
 * ProcessUtility (core_hooks.c), before the command: under a client's
 * EXECUTE (or EXPLAIN of one), the statement it runs is the client's own.
 * Returns what CacheUtilityEnd() restores.
 */
const char *
CacheUtilityBegin(Node *stmt, ProcessUtilityContext context)
{
	const char *saved = client_execute_text;

	if (!SfcUtilityNests(stmt))
		client_execute_text = executed_statement_text(stmt, context);
	return saved;
}

/* ProcessUtility, after the command, whether it succeeded or failed. */
void
CacheUtilityEnd(const char *saved_execute_text)
{
	client_execute_text = saved_execute_text;
}
