/*-------------------------------------------------------------------------
 *
 * whatif.c
 *		Owns the hypothetical indexes of this backend and its parts of the
 *		hooks core_hooks.c dispatches: get_relation_info and
 *		explain_get_index_name show them to the planner and to EXPLAIN,
 *		ProcessUtility notices a plain EXPLAIN.
 *
 * Hypothetical indexes are offered to the planner in exactly two
 * situations, so that no executed plan can ever refer to one:
 *	- inside WhatifPlan(), with the list of indexes it is given (the
 *	  session's own indexes are not offered then);
 *	- during EXPLAIN without ANALYZE (and not EXPLAIN EXECUTE, whose plan
 *	  could be kept in a plan cache), with the session's indexes made by
 *	  sfcache.hypothetical_index().
 * And in both only to the one planner call that plans the statement itself
 * (core_hooks.c counts planner calls in progress, WhatifPlannerBegin/End):
 * planning runs code (constant folding of an IMMUTABLE function, the
 * estimation of a STABLE one, an SQL function evaluated) whose own queries
 * are planned by nested planner calls, executed at once and kept in
 * PL/pgSQL's or SPI's plan cache; those never see a hypothetical index.
 * When indexes are forgotten (sfcache.hypothetical_reset()), their tables'
 * relcache entries are invalidated, so any plan that could have seen one
 * is planned again.
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
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "whatif/whatif_internal.h"

static List *whatif_session = NIL;	/* WhatifIndex *, in TopMemoryContext */
static List *whatif_active = NIL;	/* offered inside WhatifPlan() */
static bool whatif_planning = false;
static int	whatif_explain_depth = 0;

/* Planner calls in progress, and the one the indexes are offered to. */
static int	whatif_planner_depth = 0;
static int	whatif_planning_level = -1; /* WhatifPlan()'s planner call */
static int	whatif_explain_level = -1;	/* the plain EXPLAIN's */

/* The planner's target list of the index columns (plancat.c's build_index_tlist). */
static List *
whatif_index_tlist(IndexOptInfo *info, const WhatifIndex *windex)
{
	ListCell   *expr_cell = list_head(info->indexprs);
	List	   *tlist = NIL;
	int			i;

	for (i = 0; i < windex->ncolumns; i++)
	{
		Expr	   *expr;

		if (windex->indexkeys[i] != 0)
		{
			Oid			type;
			int32		typmod;
			Oid			coll;

			get_atttypetypmodcoll(windex->relid, windex->indexkeys[i], &type, &typmod, &coll);
			expr = (Expr *) makeVar(info->rel->relid, windex->indexkeys[i],
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

/* Copy the per-column arrays of windex into info. */
static void
whatif_index_columns(IndexOptInfo *info, const WhatifIndex *windex, bool canorder,
					 bool canreturn)
{
	int			n = windex->ncolumns;
	int			nkey = windex->nkeycolumns;
	int			i;

	/* as plancat.c: the per-key arrays have nkeycolumns entries */
	info->ncolumns = n;
	info->nkeycolumns = nkey;
	info->indexkeys = palloc(sizeof(int) * n);
	info->indexcollations = palloc(sizeof(Oid) * nkey);
	info->opfamily = palloc(sizeof(Oid) * nkey);
	info->opcintype = palloc(sizeof(Oid) * nkey);
	info->canreturn = palloc(sizeof(bool) * n);
	/* no options; gincostestimate reads this array unconditionally */
	info->opclassoptions = palloc0(sizeof(bytea *) * n);
	info->reverse_sort = canorder ? palloc(sizeof(bool) * nkey) : NULL;
	info->nulls_first = canorder ? palloc(sizeof(bool) * nkey) : NULL;
	for (i = 0; i < n; i++)
	{
		info->indexkeys[i] = windex->indexkeys[i];
		info->canreturn[i] = canreturn;
	}
	for (i = 0; i < nkey; i++)
	{
		info->indexcollations[i] = windex->collations[i];
		info->opfamily[i] = windex->opfamily[i];
		info->opcintype[i] = windex->opcintype[i];
		if (canorder)
		{
			info->reverse_sort[i] = windex->reverse_sort[i];
			info->nulls_first[i] = windex->nulls_first[i];
		}
	}
	/* only btree can order; its opfamilies are the sort opfamilies */
	info->sortopfamily = canorder ? info->opfamily : NULL;
}

/* An IndexOptInfo for windex on rel, as get_relation_info() would build it. */
static IndexOptInfo *
whatif_index_info(PlannerInfo *root, RelOptInfo *rel, WhatifIndex *windex)
{
	IndexOptInfo *info = makeNode(IndexOptInfo);
	const IndexAmRoutine *am = GetIndexAmRoutineByAmId(windex->amoid, false);

	info->indexoid = windex->oid;
	info->reltablespace = rel->reltablespace;
	info->rel = rel;
	info->relam = windex->amoid;
	whatif_index_columns(info, windex, am->amcanorder, am->amcanreturn != NULL);
	info->indexprs = copyObject(windex->indexprs);
	info->indpred = copyObject(windex->indpred);
	if (rel->relid != 1)
	{
		ChangeVarNodes((Node *) info->indexprs, 1, rel->relid, 0);
		ChangeVarNodes((Node *) info->indpred, 1, rel->relid, 0);
	}
	info->indextlist = whatif_index_tlist(info, windex);
	info->unique = windex->unique;
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
	WhatifEstimateSize(windex, root, rel);
	info->pages = windex->pages;
	info->tuples = windex->tuples;
	info->tree_height = windex->tree_height;
	return info;
}

/* The hypothetical indexes of the statement being planned or explained. */
static List *
whatif_current(void)
{
	if (whatif_planning)
		return whatif_active;
	if (whatif_explain_depth > 0)
		return whatif_session;
	return NIL;
}

/*
 * The hypothetical indexes the planner may see right now: only in the
 * planner call of that statement itself, never in one nested in it.
 */
static List *
whatif_offered(void)
{
	if (whatif_planning)
		return whatif_planner_depth == whatif_planning_level ? whatif_active : NIL;
	if (whatif_explain_depth > 0)
		return whatif_planner_depth == whatif_explain_level ? whatif_session : NIL;
	return NIL;
}

/* planner (core_hooks.c): a planner call starts... */
void
WhatifPlannerBegin(void)
{
	whatif_planner_depth++;
}

/* ... and ends, whether it succeeded or failed. */
void
WhatifPlannerEnd(void)
{
	whatif_planner_depth--;
}

/* get_relation_info (core_hooks.c), after the previous hook. */
void
WhatifGetRelationInfo(PlannerInfo *root, Oid relid, bool inhparent,
					  RelOptInfo *rel)
{
	ListCell   *lc;

	if (inhparent)
		return;
	foreach(lc, whatif_offered())
	{
		WhatifIndex *windex = lfirst(lc);

		if (windex->relid == relid)
			rel->indexlist = lcons(whatif_index_info(root, rel, windex), rel->indexlist);
	}
}

static WhatifIndex *
whatif_find(List *indexes, Oid indexid)
{
	ListCell   *lc;

	foreach(lc, indexes)
	{
		WhatifIndex *windex = lfirst(lc);

		if (windex->oid == indexid)
			return windex;
	}
	return NULL;
}

/* explain_get_index_name (core_hooks.c): NULL when not one of ours. */
const char *
WhatifExplainIndexName(Oid indexid)
{
	WhatifIndex *windex = whatif_find(whatif_current(), indexid);

	return windex != NULL ? windex->name : NULL;
}

/*
 * Is this EXPLAIN without ANALYZE, of something else than EXECUTE? (The
 * explained statement is analysed by now: an EXECUTE is a utility Query.
 * EXPLAIN EXECUTE plans the prepared statement through its plan cache,
 * which would keep a generic plan that saw a hypothetical index.)
 */
static bool
whatif_is_plain_explain(Node *stmt)
{
	ExplainStmt *explain;
	Node	   *query;
	ListCell   *lc;

	if (stmt == NULL || !IsA(stmt, ExplainStmt))
		return false;
	explain = (ExplainStmt *) stmt;
	query = explain->query;
	if (query != NULL && IsA(query, Query) && ((Query *) query)->commandType == CMD_UTILITY)
		query = ((Query *) query)->utilityStmt;
	if (query == NULL || IsA(query, ExecuteStmt))
		return false;
	foreach(lc, explain->options)
	{
		DefElem    *opt = lfirst_node(DefElem, lc);

		if (strcmp(opt->defname, "analyze") == 0 && defGetBoolean(opt))
			return false;
	}
	return true;
}

/*
 * ProcessUtility (core_hooks.c), before the command: while a plain EXPLAIN
 * runs, the session's hypothetical indexes are offered to the planner call
 * that plans the explained statement (one level below this one). Returns
 * what WhatifUtilityEnd() restores: WHATIF_NOT_EXPLAIN if this is not one.
 */
int
WhatifUtilityBegin(Node *stmt)
{
	int			saved = whatif_explain_level;

	if (whatif_session == NIL || !whatif_is_plain_explain(stmt))
		return WHATIF_NOT_EXPLAIN;
	whatif_explain_depth++;
	whatif_explain_level = whatif_planner_depth + 1;
	return saved;
}

/* ProcessUtility, after the command, whether it succeeded or failed. */
void
WhatifUtilityEnd(int saved)
{
	if (saved == WHATIF_NOT_EXPLAIN)
		return;
	whatif_explain_depth--;
	whatif_explain_level = saved;
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
	int			saved_level = whatif_planning_level;
	PlannedStmt *volatile plan = NULL;

	whatif_active = indexes;
	whatif_planning = true;
	/* pg_plan_query's planner call, not the ones nested in it */
	whatif_planning_level = whatif_planner_depth + 1;
	PG_TRY();
	{
		plan = pg_plan_query(copy, sql, CURSOR_OPT_PARALLEL_OK, NULL, NULL);
	}
	PG_FINALLY();
	{
		whatif_active = saved_active;
		whatif_planning = saved_planning;
		whatif_planning_level = saved_level;
	}
	PG_END_TRY();
	return plan;
}

/* Keep windex for the rest of the session (shown by plain EXPLAIN). */
void
WhatifAddSessionIndex(WhatifIndex *windex)
{
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
	WhatifIndex *copy = palloc(sizeof(WhatifIndex));

	memcpy(copy, windex, sizeof(WhatifIndex));
	copy->indexprs = copyObject(windex->indexprs);
	copy->indpred = copyObject(windex->indpred);
	whatif_session = lappend(whatif_session, copy);
	MemoryContextSwitchTo(old);
}

List *
WhatifSessionIndexes(void)
{
	return whatif_session;
}

/*
 * Forget the session's hypothetical indexes. A plan that saw one can only
 * be a plain EXPLAIN's, which is not kept; still, every plan of their
 * tables is made again (the relcache invalidation reaches the plan cache,
 * PL/pgSQL's and SPI's plans included), so none can outlive them.
 */
void
WhatifResetSession(void)
{
	ListCell   *lc;

	foreach(lc, whatif_session)
		CacheInvalidateRelcacheByRelid(((WhatifIndex *) lfirst(lc))->relid);
	list_free_deep(whatif_session);
	whatif_session = NIL;
}
