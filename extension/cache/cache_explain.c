/*-------------------------------------------------------------------------
 *
 * cache_explain.c
 *		EXPLAIN for statements the cache bypasses when they are planned:
 *		their plan is PostgreSQL's own, so the reason is added after it
 *		("sfcache: bypass (volatile or stable function)"). Statements the
 *		cache takes show their outcome in the custom scan node instead
 *		(cache_scan.c), and under it, as its child, the plan a miss runs.
 *
 * The child is planned apart from the cache plan (by a miss, or for
 * EXPLAIN with the execution's parameters), so its range table is not the
 * cache plan's: CacheExplainChild() gives explain.c the child's range
 * table, names and deparse context before explain.c walks the node's
 * children (custom_ps). That is correct because the cache node is always
 * the root of its plan: nothing explain.c shows after its children reads
 * them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/explain.h"
#include "executor/instrument.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/planner.h"
#include "tcop/tcopprot.h"
#include "utils/ruleutils.h"

#include "cache/cache_internal.h"

/* Set by the planner hook when it bypasses a top-level statement. */
static CacheBypass last_plan_bypass = CACHE_BYPASS_NONE;

void
CacheExplainNoteBypass(CacheBypass why)
{
	last_plan_bypass = why;
}

/* ExplainOneQuery (core_hooks.c), before the statement is planned. */
void
CacheExplainBegin(void)
{
	last_plan_bypass = CACHE_BYPASS_NONE;
}

/*
 * ExplainOneQuery, once the plan is shown: structured formats are closed by
 * now, so only text gets the line; nor is it said when the cache is simply
 * off.
 */
void
CacheExplainEnd(ExplainState *es)
{
	if (last_plan_bypass != CACHE_BYPASS_NONE && last_plan_bypass != CACHE_BYPASS_DISABLED &&
		es->format == EXPLAIN_FORMAT_TEXT)
		appendStringInfo(es->str, "sfcache: bypass (%s)\n",
						 CacheBypassReasonName(last_plan_bypass));
	last_plan_bypass = CACHE_BYPASS_NONE;
}

/* While an EXPLAIN statement runs (ProcessUtility, core_hooks.c): its location. */
static bool explaining = false;
static int	explain_location = -1;

/* ProcessUtility, before the command; returns what to restore after it. */
bool
CacheExplainUtilityBegin(PlannedStmt *pstmt)
{
	bool		saved = explaining;

	if (IsA(pstmt->utilityStmt, ExplainStmt))
	{
		explaining = true;
		explain_location = pstmt->stmt_location;
	}
	return saved;
}

void
CacheExplainUtilityEnd(bool saved)
{
	explaining = saved;
}

/* Where the EXPLAIN running now starts in the client's string (-1: unknown). */
int
CacheExplainLocation(void)
{
	return explaining ? explain_location : -1;
}

/* Is the statement being executed an EXPLAIN's (so the cache node's child is shown)? */
bool
CacheExplaining(void)
{
	return explaining;
}

/* The range table entries a plan tree shows, as explain.c's ExplainPreScanNode finds them. */
static bool
child_rels_used(PlanState *planstate, Bitmapset **rels_used)
{
	Plan	   *plan = planstate->plan;

	switch (nodeTag(plan))
	{
		case T_SeqScan:
		case T_SampleScan:
		case T_IndexScan:
		case T_IndexOnlyScan:
		case T_BitmapHeapScan:
		case T_TidScan:
		case T_TidRangeScan:
		case T_SubqueryScan:
		case T_FunctionScan:
		case T_TableFuncScan:
		case T_ValuesScan:
		case T_CteScan:
		case T_NamedTuplestoreScan:
		case T_WorkTableScan:
			*rels_used = bms_add_member(*rels_used, ((Scan *) plan)->scanrelid);
			break;
		case T_ForeignScan:
			*rels_used = bms_add_members(*rels_used, ((ForeignScan *) plan)->fs_relids);
			break;
		case T_CustomScan:
			*rels_used = bms_add_members(*rels_used, ((CustomScan *) plan)->custom_relids);
			break;
		case T_Append:
			*rels_used = bms_add_members(*rels_used, ((Append *) plan)->apprelids);
			break;
		case T_MergeAppend:
			*rels_used = bms_add_members(*rels_used, ((MergeAppend *) plan)->apprelids);
			break;
		default:
			break;
	}
	return planstate_tree_walker(planstate, child_rels_used, rels_used);
}

/*
 * From the node's ExplainCustomScan, after its properties: make the
 * child's plan the node's child for explain.c, which shows it next, in
 * every format, as it shows any plan (a top Gather marked invisible is
 * skipped, as ExplainPrintPlan does).
 */
void
CacheExplainChild(CustomScanState *node, QueryDesc *child, ExplainState *es)
{
	PlanState  *ps = child->planstate;
	Bitmapset  *rels_used = NULL;

	(void) child_rels_used(ps, &rels_used);
	es->pstmt = child->plannedstmt;
	es->rtable = child->plannedstmt->rtable;
	es->rtable_names = select_rtable_names_for_explain(es->rtable, rels_used);
	es->deparse_cxt = deparse_context_for_plan_tree(child->plannedstmt, es->rtable_names);
	es->printed_subplans = NULL;
	if (IsA(ps, GatherState) && ((Gather *) ps->plan)->invisible)
	{
		ps = outerPlanState(ps);
		es->hide_workers = true;
	}
	node->custom_ps = list_make1(ps);
}
