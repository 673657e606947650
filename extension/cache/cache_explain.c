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

#include "cache/cache.h"

/* Set by the planner hook when it bypasses a top-level statement. */
static SfcBypass last_plan_bypass = SFC_BYPASS_NONE;

void
CacheExplainNoteBypass(SfcBypass why)
{
	last_plan_bypass = why;
}

/* ExplainOneQuery (core_hooks.c), before the statement is planned. */
void
CacheExplainBegin(void)
{
	last_plan_bypass = SFC_BYPASS_NONE;
}

/*
 * ExplainOneQuery, once the plan is shown: structured formats are closed by
 * now, so only text gets the line; nor is it said when the cache is simply
 * off.
 */
void
CacheExplainEnd(ExplainState *es)
{
	if (last_plan_bypass != SFC_BYPASS_NONE && last_plan_bypass != SFC_BYPASS_DISABLED &&
		es->format == EXPLAIN_FORMAT_TEXT)
		appendStringInfo(es->str, "sfcache: bypass (%s)\n",
						 CacheBypassReasonName(last_plan_bypass));
	last_plan_bypass = SFC_BYPASS_NONE;
}
