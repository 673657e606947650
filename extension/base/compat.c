/*-------------------------------------------------------------------------
 *
 * compat.c
 *		The functions compat.h gives the older PostgreSQL majors: what a
 *		newer major has as a function and an older one lacks, each under
 *		the version test that says so.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/explain.h"
#include "executor/instrument.h"
#include "nodes/execnodes.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/plancat.h"
#include "parser/parsetree.h"
#include "pgstat.h"
#include "tcop/tcopprot.h"
#include "utils/wait_event.h"

#include "base/base.h"

#if PG_VERSION_NUM < 170000
/* What explain.c's ExplainOneQuery does when no hook is set (17 exports it). */
void
standard_ExplainOneQuery(Query *query, int cursorOptions, IntoClause *into,
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
	plan = pg_plan_query(query, queryString, cursorOptions, params, es);
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
#endif

#if PG_VERSION_NUM >= 170000

#define SFC_MAX_WAIT_EVENTS 4

/*
 * The custom wait event named name, registered on first use in this
 * backend (the registry is PostgreSQL's, in shared memory: every backend
 * gets the same id). compat.h gives 15 and 16 PG_WAIT_EXTENSION instead.
 */
uint32
SfcWaitEvent(const char *name)
{
	static const char *names[SFC_MAX_WAIT_EVENTS];
	static uint32 ids[SFC_MAX_WAIT_EVENTS];
	int			i;

	for (i = 0; i < SFC_MAX_WAIT_EVENTS && names[i] != NULL; i++)
		if (strcmp(names[i], name) == 0)
			return ids[i];
	if (i == SFC_MAX_WAIT_EVENTS)
		elog(ERROR, "sfcache: more than %d wait events", SFC_MAX_WAIT_EVENTS);
	ids[i] = WaitEventExtensionNew(name);
	names[i] = name;
	return ids[i];
}
#endif

#if PG_VERSION_NUM < 190000

/* compat.h: what 19 calls at the end of build_simple_rel() */
build_simple_rel_hook_type build_simple_rel_hook = NULL;

static get_relation_info_hook_type prev_get_relation_info = NULL;

static void
compat_get_relation_info(PlannerInfo *root, Oid relid, bool inhparent,
						 RelOptInfo *rel)
{
	if (prev_get_relation_info)
		prev_get_relation_info(root, relid, inhparent, rel);
	if (build_simple_rel_hook)
		build_simple_rel_hook(root, rel, planner_rt_fetch(rel->relid, root));
}

/* From core_hooks.c, before it sets build_simple_rel_hook. */
void
SfcCompatHooksInit(void)
{
	prev_get_relation_info = get_relation_info_hook;
	get_relation_info_hook = compat_get_relation_info;
}
#endif

#if PG_VERSION_NUM >= 190000
static bool
explain_only_instrument(PlanState *planstate, void *context)
{
	if (IsA(planstate, IndexScanState) &&
		((IndexScanState *) planstate)->iss_Instrument == NULL)
		((IndexScanState *) planstate)->iss_Instrument =
			palloc0_object(IndexScanInstrumentation);
	else if (IsA(planstate, IndexOnlyScanState) &&
			 ((IndexOnlyScanState *) planstate)->ioss_Instrument == NULL)
		((IndexOnlyScanState *) planstate)->ioss_Instrument =
			palloc0_object(IndexScanInstrumentation);
	else if (IsA(planstate, BitmapIndexScanState) &&
			 ((BitmapIndexScanState *) planstate)->biss_Instrument == NULL)
		((BitmapIndexScanState *) planstate)->biss_Instrument =
			palloc0_object(IndexScanInstrumentation);
	return planstate_tree_walker(planstate, explain_only_instrument, context);
}

/* compat.h: zeroed index scan instrumentation where 19 allocated none. */
void
SfcExplainOnlyInstrument(PlanState *planstate)
{
	explain_only_instrument(planstate, NULL);
}
#endif
