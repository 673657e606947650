/*-------------------------------------------------------------------------
 *
 * whatif.c
 *		Owns the hypothetical indexes of this backend and the two hooks
 *		that show them to the planner and to EXPLAIN:
 *		get_relation_info_hook and explain_get_index_name_hook, plus a
 *		ProcessUtility_hook that notices a plain EXPLAIN.
 *
 * Hypothetical indexes are offered to the planner in exactly two
 * situations, so that no executed plan can ever refer to one:
 *	- inside WhatifPlan(), with the list of indexes it is given (the
 *	  session's own indexes are not offered then);
 *	- during EXPLAIN without ANALYZE (and not EXPLAIN EXECUTE, whose plan
 *	  could be kept in a plan cache), with the session's indexes made by
 *	  sfcache.hypothetical_index().
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/amapi.h"
#include "commands/defrem.h"
#include "commands/explain.h"
#include "nodes/makefuncs.h"
#include "optimizer/plancat.h"
#include "rewrite/rewriteManip.h"
#include "tcop/tcopprot.h"
#include "tcop/utility.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "sfcache.h"
#include "whatif.h"

static List *whatif_session = NIL; /* HypoIndex *, in TopMemoryContext */
static List *whatif_active = NIL;	/* offered inside WhatifPlan() */
static bool whatif_planning = false;
static int	whatif_explain_depth = 0;

static get_relation_info_hook_type prev_get_relation_info_hook = NULL;
static explain_get_index_name_hook_type prev_explain_get_index_name_hook = NULL;
static ProcessUtility_hook_type prev_ProcessUtility = NULL;

static void whatif_get_relation_info(PlannerInfo *root, Oid relid,
									 bool inhparent, RelOptInfo *rel);
static const char *whatif_explain_index_name(Oid indexid);
static void whatif_ProcessUtility(PlannedStmt *pstmt, const char *queryString,
								  bool readOnlyTree, ProcessUtilityContext context,
								  ParamListInfo params, QueryEnvironment *queryEnv,
								  DestReceiver *dest, QueryCompletion *qc);

void
WhatifInit(void)
{
	prev_get_relation_info_hook = get_relation_info_hook;
	get_relation_info_hook = whatif_get_relation_info;
	prev_explain_get_index_name_hook = explain_get_index_name_hook;
	explain_get_index_name_hook = whatif_explain_index_name;
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = whatif_ProcessUtility;
}

/* The planner's target list of the index columns (plancat.c's build_index_tlist). */
static List *
whatif_index_tlist(IndexOptInfo *info, const HypoIndex *hypo)
{
	ListCell   *expr_cell = list_head(info->indexprs);
	List	   *tlist = NIL;
	int			i;

	for (i = 0; i < hypo->ncolumns; i++)
	{
		Expr	   *expr;

		if (hypo->indexkeys[i] != 0)
		{
			Oid			type;
			int32		typmod;
			Oid			coll;

			get_atttypetypmodcoll(hypo->relid, hypo->indexkeys[i], &type, &typmod, &coll);
			expr = (Expr *) makeVar(info->rel->relid, hypo->indexkeys[i],
									type, typmod, coll, 0);
		}
		else
		{
			expr = (Expr *) lfirst(expr_cell);
			expr_cell = lnext(info->indexprs, expr_cell);
		}
		tlist = lappend(tlist, makeTargetEntry(expr, i + 1, NULL, false));
	}
	return tlist;
}

/* Copy the per-column arrays of hypo into info. */
static void
whatif_index_columns(IndexOptInfo *info, const HypoIndex *hypo, bool canorder,
					 bool canreturn)
{
	int			n = hypo->ncolumns;
	int			i;

	info->ncolumns = info->nkeycolumns = n;
	info->indexkeys = palloc(sizeof(int) * n);
	info->indexcollations = palloc(sizeof(Oid) * n);
	info->opfamily = palloc(sizeof(Oid) * n);
	info->opcintype = palloc(sizeof(Oid) * n);
	info->canreturn = palloc(sizeof(bool) * n);
	/* no options; gincostestimate reads this array unconditionally */
	info->opclassoptions = palloc0(sizeof(bytea *) * n);
	info->reverse_sort = canorder ? palloc(sizeof(bool) * n) : NULL;
	info->nulls_first = canorder ? palloc(sizeof(bool) * n) : NULL;
	for (i = 0; i < n; i++)
	{
		info->indexkeys[i] = hypo->indexkeys[i];
		info->indexcollations[i] = hypo->collations[i];
		info->opfamily[i] = hypo->opfamily[i];
		info->opcintype[i] = hypo->opcintype[i];
		info->canreturn[i] = canreturn;
		if (canorder)
		{
			info->reverse_sort[i] = hypo->reverse_sort[i];
			info->nulls_first[i] = hypo->nulls_first[i];
		}
	}
	/* only btree can order; its opfamilies are the sort opfamilies */
	info->sortopfamily = canorder ? info->opfamily : NULL;
}

/* An IndexOptInfo for hypo on rel, as get_relation_info() would build it. */
static IndexOptInfo *
whatif_index_info(PlannerInfo *root, RelOptInfo *rel, HypoIndex *hypo)
{
	IndexOptInfo *info = makeNode(IndexOptInfo);
	IndexAmRoutine *am = GetIndexAmRoutineByAmId(hypo->amoid, false);

	info->indexoid = hypo->oid;
	info->reltablespace = rel->reltablespace;
	info->rel = rel;
	info->relam = hypo->amoid;
	whatif_index_columns(info, hypo, am->amcanorder, am->amcanreturn != NULL);
	info->indexprs = copyObject(hypo->indexprs);
	info->indpred = copyObject(hypo->indpred);
	if (rel->relid != 1)
	{
		ChangeVarNodes((Node *) info->indexprs, 1, rel->relid, 0);
		ChangeVarNodes((Node *) info->indpred, 1, rel->relid, 0);
	}
	info->indextlist = whatif_index_tlist(info, hypo);
	info->unique = hypo->unique;
	info->immediate = true;
	info->hypothetical = true;
	info->amcanorderbyop = am->amcanorderbyop;
	info->amoptionalkey = am->amoptionalkey;
	info->amsearcharray = am->amsearcharray;
	info->amsearchnulls = am->amsearchnulls;
	info->amhasgettuple = (am->amgettuple != NULL);
	info->amhasgetbitmap = (am->amgetbitmap != NULL);
	info->amcanparallel = am->amcanparallel;
	info->amcanmarkpos = (am->ammarkpos != NULL && am->amrestrpos != NULL);
	info->amcostestimate = am->amcostestimate;
	WhatifEstimateSize(hypo, root, rel);
	info->pages = hypo->pages;
	info->tuples = hypo->tuples;
	info->tree_height = hypo->tree_height;
	return info;
}

/* The hypothetical indexes the planner may see right now. */
static List *
whatif_offered(void)
{
	if (whatif_planning)
		return whatif_active;
	if (whatif_explain_depth > 0)
		return whatif_session;
	return NIL;
}

static void
whatif_get_relation_info(PlannerInfo *root, Oid relid, bool inhparent,
						 RelOptInfo *rel)
{
	ListCell   *lc;

	if (prev_get_relation_info_hook)
		prev_get_relation_info_hook(root, relid, inhparent, rel);
	if (inhparent)
		return;
	foreach(lc, whatif_offered())
	{
		HypoIndex  *hypo = lfirst(lc);

		if (hypo->relid == relid)
			rel->indexlist = lcons(whatif_index_info(root, rel, hypo), rel->indexlist);
	}
}

static HypoIndex *
whatif_find(List *indexes, Oid indexid)
{
	ListCell   *lc;

	foreach(lc, indexes)
	{
		HypoIndex  *hypo = lfirst(lc);

		if (hypo->oid == indexid)
			return hypo;
	}
	return NULL;
}

static const char *
whatif_explain_index_name(Oid indexid)
{
	HypoIndex  *hypo = whatif_find(whatif_offered(), indexid);

	if (hypo != NULL)
		return hypo->name;
	if (prev_explain_get_index_name_hook)
		return prev_explain_get_index_name_hook(indexid);
	return NULL;
}

/* Is this EXPLAIN without ANALYZE, of something else than EXECUTE? */
static bool
whatif_is_plain_explain(Node *stmt)
{
	ExplainStmt *explain;
	ListCell   *lc;

	if (stmt == NULL || !IsA(stmt, ExplainStmt))
		return false;
	explain = (ExplainStmt *) stmt;
	if (IsA(explain->query, ExecuteStmt))
		return false;
	foreach(lc, explain->options)
	{
		DefElem    *opt = lfirst_node(DefElem, lc);

		if (strcmp(opt->defname, "analyze") == 0 && defGetBoolean(opt))
			return false;
	}
	return true;
}

static void
whatif_ProcessUtility(PlannedStmt *pstmt, const char *queryString,
					  bool readOnlyTree, ProcessUtilityContext context,
					  ParamListInfo params, QueryEnvironment *queryEnv,
					  DestReceiver *dest, QueryCompletion *qc)
{
	bool		plain_explain = whatif_session != NIL &&
		whatif_is_plain_explain(pstmt->utilityStmt);

	if (plain_explain)
		whatif_explain_depth++;
	PG_TRY();
	{
		CallNextProcessUtility(prev_ProcessUtility, pstmt, queryString, readOnlyTree,
								   context, params, queryEnv, dest, qc);
	}
	PG_FINALLY();
	{
		if (plain_explain)
			whatif_explain_depth--;
	}
	PG_END_TRY();
}

/*
 * Plan a copy of query offering the planner exactly the hypothetical
 * indexes in the list (NIL: none).  The plan must never be executed.
 */
PlannedStmt *
WhatifPlan(Query *query, const char *sql, List *indexes)
{
	Query	   *copy = copyObject(query);
	List	   *saved_active = whatif_active;
	bool		saved_planning = whatif_planning;
	PlannedStmt *volatile plan = NULL;

	whatif_active = indexes;
	whatif_planning = true;
	PG_TRY();
	{
		plan = pg_plan_query(copy, sql, CURSOR_OPT_PARALLEL_OK, NULL);
	}
	PG_FINALLY();
	{
		whatif_active = saved_active;
		whatif_planning = saved_planning;
	}
	PG_END_TRY();
	return plan;
}

/* Keep hypo for the rest of the session (shown by plain EXPLAIN). */
void
WhatifAddSessionIndex(HypoIndex *hypo)
{
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
	HypoIndex  *copy = palloc(sizeof(HypoIndex));

	memcpy(copy, hypo, sizeof(HypoIndex));
	copy->indexprs = copyObject(hypo->indexprs);
	copy->indpred = copyObject(hypo->indpred);
	whatif_session = lappend(whatif_session, copy);
	MemoryContextSwitchTo(old);
}

List *
WhatifSessionIndexes(void)
{
	return whatif_session;
}

/* Forget the session's hypothetical indexes. */
void
WhatifResetSession(void)
{
	list_free_deep(whatif_session);
	whatif_session = NIL;
}
