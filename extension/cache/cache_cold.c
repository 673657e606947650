/*-------------------------------------------------------------------------
 *
 * cache_cold.c
 *		Statements the cache does not pay for run as PostgreSQL plans them
 *		(sfcache.cold_after, 0 by default: never). A statement whose last
 *		sfcache.cold_after executions through the cache were served less
 *		than once in a hundred (its keys do not repeat: a lookup, a miss, a
 *		second executor and admission's bookkeeping each time, for nothing)
 *		is cold: its next executions, fifteen times as many, start the plan
 *		a miss would run (the child of its cache plan) in place of the cache
 *		plan, then it goes through the cache again for one window to see
 *		whether that changed. The windows are counted per statement in
 *		sfcache.statements' shared entry (cache_stats.c).
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

#include "cache/cache_internal.h"

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

	if (cache_cold_after <= 0 || stmt->commandType != CMD_SELECT ||
		stmt->planTree == NULL || !IsA(stmt->planTree, CustomScan) ||
		(eflags & EXEC_FLAG_EXPLAIN_ONLY) || queryDesc->instrument_options != 0 ||
		CacheExplaining() || !SfcExtensionActive())
		return;
	if (((CustomScan *) stmt->planTree)->methods != &cache_scan_plan_methods ||
		!CacheStatsTakeCold(stmt->queryId))
		return;
	/* a copy: the statement's place in the source text is the cache plan's */
	child = palloc(sizeof(PlannedStmt));
	memcpy(child, CacheScanChildOfPlan(stmt, queryDesc->params), sizeof(PlannedStmt));
	child->stmt_location = stmt->stmt_location;
	child->stmt_len = stmt->stmt_len;
	queryDesc->plannedstmt = child;
}
