/*-------------------------------------------------------------------------
 *
 * cache_cold.c
 *		Statements the cache does not pay for run as PostgreSQL plans them
 *		(sfcache.cold_after, 100 by default; 0: never). A statement whose
 *		last sfcache.cold_after executions through the cache were served
 *		less than once in a hundred (its keys do not repeat: a lookup, a
 *		miss, a second executor and admission's bookkeeping each time, for
 *		nothing), or spent more time in the cache than the runs its hits
 *		saved in two windows in a row (cache_stats.c), is cold: its next
 *		executions, fifteen times as many, start the plan a miss would run
 *		(the child of its cache plan) in place of the cache plan, then it
 *		goes through the cache again for one window to see whether that
 *		changed. The windows are counted per statement in
 *		sfcache.statements' shared entry (cache_stats.c), where a backend
 *		takes cold executions in leases of up to 16.
 *
 * A plan that nothing keeps (the simple protocol's, or a custom plan with
 * parameter values) is not even made as a cache plan while its statement
 * is cold: the planner hook leaves it to PostgreSQL, so that a cold miss
 * costs one planning and one executor, as without sfcache. A plan the plan
 * cache keeps (a prepared statement's generic plan) is made as a cache
 * plan whatever the temperature, since it outlives it; its executions run
 * its child, planned once (cache_child_plan.c). The planner cannot tell
 * the simple protocol's plan from a generic plan by its arguments (neither
 * has parameter values): the simple protocol plans the very query tree
 * that parse analysis just gave the post_parse_analyze hook, for the very
 * string the client sent, where the plan cache plans a copy. But when the
 * plan cache builds a plan again after an invalidation (DDL on a table),
 * it too plans the tree it has just analysed. That analysis is told apart
 * by its parameters (the simple protocol has none), by its text (an SQL
 * EXECUTE's client string is not the prepared statement's), and, for an
 * extended-protocol Bind of a statement without parameters, by the
 * unnamed portal Bind creates before it asks for the plan (looked for only
 * in a backend that has parsed an extended-protocol statement; a Bind to a
 * named portal without parameters is not told apart: its new plan is
 * PostgreSQL's, run and counted as without sfcache until the plan cache
 * drops it).
 *
 * Running the child in place of the cache plan is what a bypass does: the
 * result is PostgreSQL's own, so this is always correct; it only costs
 * the hits a cold statement might have had. Under EXPLAIN (ANALYZE or not)
 * the cache plan runs, so that EXPLAIN shows the cache node.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "parser/parse_node.h"
#include "tcop/tcopprot.h"
#include "utils/portal.h"

#include "cache/cache_internal.h"

/*
 * The query parse analysis gave last, and the client's string it came
 * from; cleared when the planner looks at it.
 */
static const Query *analyzed_query = NULL;
static const char *analyzed_string = NULL;

/*
 * The query id of a plan the plan cache keeps, planned again under Bind,
 * whose execution was counted as cold at planning: its next execution
 * runs cold without being counted again. (The plan cache keeps a copy of
 * the plan, so it is known by its query id.)
 */
static uint64 counted_cold_query = 0;

/*
 * Has this backend analysed a statement with a parameter hook, as every
 * extended-protocol Parse is? Only then can a plan be asked for under a
 * Bind: a backend that only ever used the simple protocol skips the look
 * at the portals (a hash lookup on every cold execution).
 */
static bool parsed_with_parameters = false;

/*
 * post_parse_analyze (core_hooks.c): the query a one-shot plan would plan,
 * unless it has parameters or is not the client's string (the plan cache
 * analysing a prepared statement again).
 */
void
CacheColdNoteAnalyzed(ParseState *pstate, Query *query)
{
	if (pstate->p_paramref_hook != NULL)
		parsed_with_parameters = true;
	if (cache_cold_after <= 0 || query->commandType != CMD_SELECT)
		return;
	if (pstate->p_paramref_hook != NULL || pstate->p_sourcetext != debug_query_string)
		query = NULL;
	analyzed_query = query;
	analyzed_string = debug_query_string;
}

/*
 * Is an extended-protocol Bind asking the plan cache for its plan? Bind
 * creates its portal first; the simple protocol plans first. Only the
 * unnamed portal, which drivers bind, is looked at.
 */
static bool
binding_unnamed_portal(void)
{
	Portal		portal = GetPortalByName("");

	return portal != NULL && portal->status == PORTAL_NEW;
}

/*
 * The planner hook (cache_plan.c), for a client's SELECT: is its plan one
 * that nothing keeps, of a cold statement? If so, its execution is counted
 * as cold now (a one-shot plan runs once), and it is to be planned as
 * PostgreSQL plans it.
 */
bool
CacheColdPlansAsUsual(Query *parse, bool generic, bool *decided)
{
	bool		one_shot = !generic ||
	(parse == analyzed_query && analyzed_string == debug_query_string);

	analyzed_query = NULL;
	analyzed_string = NULL;
	*decided = cache_cold_after > 0 && one_shot && !CacheExplaining();
	if (!*decided || !CacheStatsTakeCold(parse->queryId))
		return false;
	/* counted; but a plan the plan cache keeps is made as a cache plan */
	if (generic && parsed_with_parameters && binding_unnamed_portal())
	{
		*decided = false;
		counted_cold_query = parse->queryId;
		return false;
	}
	return true;
}

/*
 * The cache plan of a one-shot plan whose execution CacheColdPlansAsUsual
 * counted already: it runs as planned, and is not taken again when it
 * starts.
 */
static const PlannedStmt *decided_plan = NULL;

void
CacheColdNoteDecided(const PlannedStmt *stmt)
{
	decided_plan = stmt;
}

/*
 * ExecutorStart (core_hooks.c), before the plan starts: a cold statement's
 * cache plan is replaced by its child, and the execution counted as a
 * bypass ("cold statement").
 */
void
CacheColdExecutorStart(QueryDesc *queryDesc, int eflags)
{
	PlannedStmt *stmt = queryDesc->plannedstmt;
	PlannedStmt *child;

	(void) CacheStatsPlanMadeUs(stmt, false);
	if (stmt == decided_plan)
	{
		decided_plan = NULL;
		return;
	}
	if (cache_cold_after <= 0 || stmt->commandType != CMD_SELECT ||
		stmt->planTree == NULL || !IsA(stmt->planTree, CustomScan) ||
		(eflags & EXEC_FLAG_EXPLAIN_ONLY) || queryDesc->instrument_options != 0 ||
		CacheExplaining() || !SfcExtensionActive() ||
		((CustomScan *) stmt->planTree)->methods != &cache_scan_plan_methods)
		return;
	if (stmt->queryId != 0 && stmt->queryId == counted_cold_query)
		counted_cold_query = 0;
	else if (!CacheStatsTakeCold(stmt->queryId))
		return;
	/* a copy: the statement's place in the source text is the cache plan's */
	child = palloc(sizeof(PlannedStmt));
	memcpy(child, CacheScanChildOfPlan(stmt, queryDesc->params), sizeof(PlannedStmt));
	child->stmt_location = stmt->stmt_location;
	child->stmt_len = stmt->stmt_len;
	queryDesc->plannedstmt = child;
}
