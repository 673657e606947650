/*-------------------------------------------------------------------------
 *
 * cache_explain.c
 *		EXPLAIN for statements the cache bypasses when they are planned:
 *		their plan is PostgreSQL's own, so the reason is added after it
 *		("sfcache: bypass (volatile or stable function)"). Statements the
 *		cache takes show their outcome in the custom scan node instead
 *		(cache_scan.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/explain.h"
#include "executor/instrument.h"
#include "optimizer/planner.h"
#include "tcop/tcopprot.h"

#include "sfcache.h"

static ExplainOneQuery_hook_type prev_ExplainOneQuery = NULL;

/* Set by the planner hook when it bypasses a top-level statement. */
static SfcBypass last_plan_bypass = SFC_BYPASS_NONE;

void
CacheExplainNoteBypass(SfcBypass why)
{
	last_plan_bypass = why;
}

/* What explain.c's ExplainOneQuery does when no hook is set. */
static void
explain_one_query(Query *query, int cursorOptions, IntoClause *into,
				  ExplainState *es, const char *queryString,
				  ParamListInfo params, QueryEnvironment *queryEnv)
{
	PlannedStmt *plan;
	instr_time	planstart,
				planduration;
	BufferUsage bufusage_start,
				bufusage;

	if (es->buffers)
		bufusage_start = pgBufferUsage;
	INSTR_TIME_SET_CURRENT(planstart);
	plan = pg_plan_query(query, queryString, cursorOptions, params);
	INSTR_TIME_SET_CURRENT(planduration);
	INSTR_TIME_SUBTRACT(planduration, planstart);
	if (es->buffers)
	{
		memset(&bufusage, 0, sizeof(BufferUsage));
		BufferUsageAccumDiff(&bufusage, &pgBufferUsage, &bufusage_start);
	}
	ExplainOnePlan(plan, into, es, queryString, params, queryEnv,
				   &planduration, (es->buffers ? &bufusage : NULL));
}

static void
sfc_ExplainOneQuery(Query *query, int cursorOptions, IntoClause *into,
					ExplainState *es, const char *queryString,
					ParamListInfo params, QueryEnvironment *queryEnv)
{
	last_plan_bypass = SFC_BYPASS_NONE;
	if (prev_ExplainOneQuery)
		prev_ExplainOneQuery(query, cursorOptions, into, es, queryString,
							 params, queryEnv);
	else
		explain_one_query(query, cursorOptions, into, es, queryString,
						  params, queryEnv);

	/* structured formats are closed by now: only text gets the line; nor is
	 * it said when the cache is simply off */
	if (last_plan_bypass != SFC_BYPASS_NONE && last_plan_bypass != SFC_BYPASS_DISABLED &&
		es->format == EXPLAIN_FORMAT_TEXT)
		appendStringInfo(es->str, "sfcache: bypass (%s)\n",
						 BypassReasonName(last_plan_bypass));
	last_plan_bypass = SFC_BYPASS_NONE;
}

void
CacheExplainInit(void)
{
	prev_ExplainOneQuery = ExplainOneQuery_hook;
	ExplainOneQuery_hook = sfc_ExplainOneQuery;
}
