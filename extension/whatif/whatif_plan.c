/*-------------------------------------------------------------------------
 *
 * whatif_plan.c
 *		Helpers around planning for hypothetical indexes: checking that a
 *		statement is one plain SELECT, walking a finished plan tree, finding
 *		which hypothetical indexes a plan uses, checking that the caller may
 *		read what a statement or an index reads, and applying the caller's
 *		search_path while names are resolved.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/objectaddress.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "tcop/tcopprot.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

#include "whatif/whatif_internal.h"

#define WHATIF_MAX_DEPTH 64

/*
 * An error at a position of an argument's text (a syntax error, an unknown
 * table) points into that text, not into the calling statement, as errors
 * in SQL function bodies do.
 */
static void
whatif_error_position(void *arg)
{
	int			pos = geterrposition();

	if (pos > 0)
	{
		errposition(0);
		internalerrposition(pos);
		internalerrquery((const char *) arg);
	}
}

void
WhatifErrorPositionPush(ErrorContextCallback *cb, const char *statement)
{
	cb->callback = whatif_error_position;
	cb->arg = (void *) statement;
	cb->previous = error_context_stack;
	error_context_stack = cb;
}

void
WhatifErrorPositionPop(ErrorContextCallback *cb)
{
	error_context_stack = cb->previous;
}

/* Parse and analyse sql, which must be exactly one SELECT that writes nothing. */
Query *
WhatifAnalyzeSelect(const char *sql)
{
	ErrorContextCallback cb;
	List	   *raw;
	RawStmt    *rawstmt;
	List	   *queries;
	Query	   *query;

	WhatifErrorPositionPush(&cb, sql);
	raw = pg_parse_query(sql);
	if (list_length(raw) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("statement must be exactly one SELECT"),
				 errdetail("Found %d statements.", list_length(raw))));
	rawstmt = linitial_node(RawStmt, raw);
	if (!IsA(rawstmt->stmt, SelectStmt) ||
		((SelectStmt *) rawstmt->stmt)->intoClause != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("statement must be a SELECT, not %s",
						CreateCommandName(rawstmt->stmt)),
				 errhint("Only read-only SELECT statements can be costed with hypothetical indexes.")));
	queries = pg_analyze_and_rewrite_fixedparams(rawstmt, sql, NULL, 0, NULL);
	query = list_length(queries) == 1 ? linitial_node(Query, queries) : NULL;
	if (query == NULL || query->commandType != CMD_SELECT ||
		query->hasModifyingCTE || query->utilityStmt != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("statement must be a SELECT that modifies nothing"),
				 errhint("Remove data-modifying WITH clauses and rules from the statement.")));
	WhatifErrorPositionPop(&cb);
	return query;
}

typedef struct PlanWalk
{
	WhatifPlanVisitor visit;
	void	   *arg;
	Plan	   *ancestors[WHATIF_MAX_DEPTH];
} PlanWalk;

static void whatif_walk(PlanWalk *walk, Plan *plan, int depth);

static void
whatif_walk_list(PlanWalk *walk, List *plans, int depth)
{
	ListCell   *lc;

	foreach(lc, plans)
		whatif_walk(walk, (Plan *) lfirst(lc), depth);
}

/* Visit plan, then its children; ancestors[0..depth-1] are its parents. */
static void
whatif_walk(PlanWalk *walk, Plan *plan, int depth)
{
	if (plan == NULL || depth >= WHATIF_MAX_DEPTH)
		return;
	walk->visit(plan, walk->ancestors, depth, walk->arg);
	walk->ancestors[depth] = plan;
	whatif_walk(walk, plan->lefttree, depth + 1);
	whatif_walk(walk, plan->righttree, depth + 1);
	switch (nodeTag(plan))
	{
		case T_Append:
			whatif_walk_list(walk, ((Append *) plan)->appendplans, depth + 1);
			break;
		case T_MergeAppend:
			whatif_walk_list(walk, ((MergeAppend *) plan)->mergeplans, depth + 1);
			break;
		case T_BitmapAnd:
			whatif_walk_list(walk, ((BitmapAnd *) plan)->bitmapplans, depth + 1);
			break;
		case T_BitmapOr:
			whatif_walk_list(walk, ((BitmapOr *) plan)->bitmapplans, depth + 1);
			break;
		case T_SubqueryScan:
			whatif_walk(walk, ((SubqueryScan *) plan)->subplan, depth + 1);
			break;
		case T_CustomScan:
			whatif_walk_list(walk, ((CustomScan *) plan)->custom_plans, depth + 1);
			break;
		default:
			break;
	}
}

/* Call visit on every node of stmt's plan tree and of its subplans. */
void
WhatifWalkPlan(PlannedStmt *stmt, WhatifPlanVisitor visit, void *arg)
{
	PlanWalk	walk;

	walk.visit = visit;
	walk.arg = arg;
	whatif_walk(&walk, stmt->planTree, 0);
	whatif_walk_list(&walk, stmt->subplans, 0);
}

typedef struct UsedIndexes
{
	List	   *candidates;
	List	   *used;
} UsedIndexes;

static void
whatif_note_index(Plan *plan, Plan **ancestors, int depth, void *arg)
{
	UsedIndexes *u = arg;
	Oid			indexid = InvalidOid;
	ListCell   *lc;

	if (IsA(plan, IndexScan))
		indexid = ((IndexScan *) plan)->indexid;
	else if (IsA(plan, IndexOnlyScan))
		indexid = ((IndexOnlyScan *) plan)->indexid;
	else if (IsA(plan, BitmapIndexScan))
		indexid = ((BitmapIndexScan *) plan)->indexid;
	if (!OidIsValid(indexid))
		return;
	foreach(lc, u->candidates)
	{
		WhatifIndex *windex = lfirst(lc);

		if (windex->oid == indexid)
			u->used = list_append_unique_ptr(u->used, windex);
	}
}

/* Which of the hypothetical indexes in the list stmt's plan uses. */
List *
WhatifUsedIndexes(PlannedStmt *stmt, List *indexes)
{
	UsedIndexes u;

	u.candidates = indexes;
	u.used = NIL;
	WhatifWalkPlan(stmt, whatif_note_index, &u);
	return u.used;
}

/*
 * Error unless the current user may read every relation query reads, as
 * the executor would check it: the statement's own tables, and those under
 * its views with the view owner's privileges (the rewriter marks them with
 * checkAsUser), in subqueries, CTEs and sublinks too.  A plan's estimates
 * tell about the data (row counts, value distributions), so a statement
 * that could not run gets no estimate either.
 */
void
WhatifCheckSelectPrivileges(Query *query)
{
	SfcCheckQueryPermissions(query);
}

/* Error unless the current user may read the table of hypothetical index windex. */
void
WhatifCheckIndexPrivileges(const WhatifIndex *windex)
{
	AclResult	aclresult = pg_class_aclcheck(windex->relid, GetUserId(), ACL_SELECT);

	if (aclresult != ACLCHECK_OK)
		aclcheck_error(aclresult, get_relkind_objtype(get_rel_relkind(windex->relid)),
					   get_rel_name(windex->relid));
}

/*
 * Resolve names with search_path until AtEOXact_GUC(true, *nestlevel) or
 * the end of the (sub)transaction.  sfcache's own functions pin
 * search_path, so the caller's is passed in as an argument.
 */
void
WhatifUseSearchPath(const char *search_path, int *nestlevel)
{
	*nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", search_path, PGC_USERSET,
							 PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
}
