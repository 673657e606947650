/*-------------------------------------------------------------------------
 *
 * advice_build.c
 *		Candidate indexes from the recorded statements: each statement kept
 *		in shared memory is parsed and planned again (now, with the current
 *		indexes and statistics, under the search_path it ran with), and
 *		every scan that still evaluates an indexable qual as a sequential
 *		scan qual or as a filter yields candidates: one GIN index per
 *		jsonb/array key, one btree index over its btree-indexable quals
 *		(with the index conditions of a partly served scan and the ORDER BY
 *		keys of a LIMIT over it; a bitmap scan ANDing two indexes yields
 *		the compound candidate of their conditions; each arm of an OR
 *		across columns a candidate of its own); for the configuration search, a
 *		sequential scan read whole for the ORDER BY of a LIMIT yields a
 *		btree candidate on those keys.  Re-planning, rather than rebuilding from
 *		the counters, is what tells which quals go together and makes an
 *		index created since recording silence its advice.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/syscache.h"

#include "advice/advice_internal.h"

/*
 * Run fn(arg) in a subtransaction; on error, roll it back, drop the error
 * and return false.  A recorded statement whose table has gone away must
 * not make the whole view fail.
 */
bool
AdviceTry(void (*fn) (void *arg), void *arg)
{
	MemoryContext context = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	volatile bool ok = true;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(context);
	PG_TRY();
	{
		fn(arg);
		ReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(context);
		edata = CopyErrorData();
		FlushErrorState();
		ereport(DEBUG1,
				(errmsg_internal("index advice skipped a statement: %s", edata->message)));
		RollbackAndReleaseCurrentSubTransaction();
		ok = false;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(context);
	CurrentResourceOwner = owner;
	return ok;
}

/*
 * Run fn(arg) as role userid, with search_path (unless NULL), in a
 * security-restricted operation, as PostgreSQL runs REFRESH MATERIALIZED
 * VIEW and index expressions as the table's owner.
 *
 * Planning a recorded statement runs code of the statement's author:
 * constant-folding calls its IMMUTABLE functions, estimation its STABLE
 * ones.  Run as the reader of sfcache.index_advice (perhaps a superuser),
 * a statement recorded by another role would run that role's functions
 * with the reader's privileges.  As the role that recorded it, they can do
 * nothing that role could not do itself, and SECURITY_RESTRICTED_OPERATION
 * forbids SET ROLE, temporary objects and the like meanwhile.  A role that
 * has been dropped since recording yields an error, which AdviceTry turns
 * into skipping the statement.
 */
void
AdviceAsRole(Oid userid, const char *search_path, void (*fn) (void *arg), void *arg)
{
	Oid			save_userid;
	int			save_sec_context;
	int			nestlevel;

	if (!SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(userid)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("role with OID %u does not exist", userid),
				 errdetail("The statement was recorded by a role dropped since.")));
	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	SetUserIdAndSecContext(userid, save_sec_context |
						   SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
	nestlevel = NewGUCNestLevel();
	PG_TRY();
	{
		int			path_nestlevel;

		/* a level above nestlevel: popped with it */
		if (search_path != NULL)
			WhatifUseSearchPath(search_path, &path_nestlevel);
		fn(arg);
	}
	PG_FINALLY();
	{
		AtEOXact_GUC(false, nestlevel);
		SetUserIdAndSecContext(save_userid, save_sec_context);
	}
	PG_END_TRY();
}

/* pg_class.reltuples of relid, at least 1. */
double
AdviceRelTuples(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	double		reltuples = 1;

	if (HeapTupleIsValid(tup))
	{
		reltuples = Max(1.0, ((Form_pg_class) GETSTRUCT(tup))->reltuples);
		ReleaseSysCache(tup);
	}
	return reltuples;
}

typedef struct BuildScan
{
	AdviceContext *ctx;
	AdvicePlanned *planned;
	PlannedStmt *plan;
} BuildScan;

/* The user table scanned by plan, or InvalidOid. */
static Oid
advice_plan_relid(PlannedStmt *stmt, Plan *plan)
{
	Index		varno = ((Scan *) plan)->scanrelid;
	RangeTblEntry *rte;

	if (varno == 0 || varno > list_length(stmt->rtable))
		return InvalidOid;
	rte = rt_fetch(varno, stmt->rtable);
	if (rte->rtekind != RTE_RELATION || rte->relid < FirstNormalObjectId ||
		(rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW))
		return InvalidOid;
	return rte->relid;
}

/* Add q to the GIN candidate of its key on relid, creating it if needed. */
static void
advice_add_gin(AdviceContext *ctx, AdviceCandidate *from, AdviceQual *q)
{
	Oid			relid = from->relid;
	char	   *text = AdviceKeyText(q->key, 1, relid);
	AdviceCandidate *c;
	ListCell   *lc;

	foreach(lc, ctx->candidates)
	{
		c = lfirst(lc);
		if (c->gin && c->relid == relid &&
			strcmp(AdviceKeyText(((AdviceQual *) linitial(c->ginquals))->key, 1, relid),
				   text) == 0)
		{
			c->ginquals = lappend(c->ginquals, q);
			c->share = Min(c->share, from->share);
			c->sources = list_append_unique_ptr(c->sources, linitial(from->sources));
			return;
		}
	}
	c = palloc0(sizeof(AdviceCandidate));
	c->relid = relid;
	c->gin = true;
	c->ginquals = list_make1(q);
	c->share = from->share;
	c->sources = list_copy(from->sources);
	ctx->candidates = lappend(ctx->candidates, c);
}

/* Put classified qual q into the btree candidate c or a GIN candidate. */
static void
advice_place_qual(AdviceContext *ctx, AdviceCandidate *c, AdviceQual *q,
				  Index varno, bool only_btree)
{
	if (varno != 1)
	{
		/*
		 * keep everything in the varno 1 form DDL and hypothetical indexes
		 * use
		 */
		q->key = copyObject(q->key);
		q->clause = copyObject(q->clause);
		ChangeVarNodes((Node *) q->key, varno, 1, 0);
		ChangeVarNodes((Node *) q->clause, varno, 1, 0);
	}
	if (q->kind == ADVICE_KIND_GIN)
	{
		if (!only_btree)
			advice_add_gin(ctx, c, q);
	}
	else if (q->kind == ADVICE_KIND_RANGE)
		c->range = lappend(c->range, q);
	else
		c->eq = lappend(c->eq, q);
}

/*
 * The arms of an OR across keys: each arm's quals make a candidate of
 * their own (with c's table and evidence), GIN arms GIN candidates; the
 * planner ORs the arms' indexes together.
 */
static void
advice_place_arms(AdviceContext *ctx, AdviceCandidate *c, List *arms,
				  Index varno, bool only_btree)
{
	ListCell   *lc;
	ListCell   *lc2;

	foreach(lc, arms)
	{
		AdviceCandidate *arm = palloc(sizeof(AdviceCandidate));

		memcpy(arm, c, sizeof(AdviceCandidate));
		arm->eq = arm->range = arm->sort = NIL;
		foreach(lc2, (List *) lfirst(lc))
			advice_place_qual(ctx, arm, lfirst(lc2), varno, only_btree);
		if (arm->eq != NIL || arm->range != NIL)
			ctx->candidates = lappend(ctx->candidates, arm);
	}
}

/* Classify quals into the btree candidate c or into GIN candidates. */
static void
advice_sort_quals(AdviceContext *ctx, AdviceCandidate *c, List *quals,
				  Index varno, bool only_btree)
{
	ListCell   *lc;

	foreach(lc, quals)
	{
		AdviceQual *q = palloc(sizeof(AdviceQual));

		if (AdviceClassifyQual((Expr *) lfirst(lc), varno, q))
			advice_place_qual(ctx, c, q, varno, only_btree);
		else
			advice_place_arms(ctx, c, AdviceClassifyOrArms((Expr *) lfirst(lc), varno),
							  varno, only_btree);
	}
}

/* ORDER BY keys when the scan sits under Sort under Limit. */
static void
advice_sort_keys(AdviceCandidate *c, Plan *scan, Plan **ancestors, int depth)
{
	Plan	   *above;
	Sort	   *sort;
	int			i;

	if (depth < 2 || !IsA(ancestors[depth - 1], Sort))
		return;
	above = ancestors[depth - 2];
	if (!IsA(above, Limit) &&
		!(IsA(above, GatherMerge) && depth >= 3 && IsA(ancestors[depth - 3], Limit)))
		return;
	sort = (Sort *) ancestors[depth - 1];
	for (i = 0; i < sort->numCols; i++)
	{
		TargetEntry *tle = get_tle_by_resno(scan->targetlist, sort->sortColIdx[i]);
		AdviceQual *q;

		if (tle == NULL || !IsA(tle->expr, Var) ||
			((Var *) tle->expr)->varno != ((Scan *) scan)->scanrelid)
			return;
		q = palloc0(sizeof(AdviceQual));
		q->kind = ADVICE_KIND_SORT;
		q->key = copyObject(tle->expr);
		((Var *) q->key)->varno = 1;
		q->attnum = ((Var *) tle->expr)->varattno;
		q->opno = sort->sortOperators[i];
		c->sort = lappend(c->sort, q);
	}
}

/*
 * The columns of the table the statement needs (its output, and what its
 * WHERE and JOIN clauses test), for INCLUDE columns; only when the scan's
 * range table entry is the statement's own (not one of a view or subquery
 * pulled up, whose columns the statement's tree does not show), else none
 * known: then no INCLUDE is suggested.  The scan's own target list will not
 * do: a sequential scan returns every column (a physical target list).
 */
static void
advice_needed_columns(AdviceCandidate *c, Query *query, Index varno)
{
	RangeTblEntry *rte;

	if (varno > list_length(query->rtable))
		return;
	rte = rt_fetch(varno, query->rtable);
	if (rte->rtekind != RTE_RELATION || rte->relid != c->relid ||
		query->setOperations != NULL)
		return;
	pull_varattnos((Node *) query->targetList, varno, &c->output);
	pull_varattnos(query->havingQual, varno, &c->output);
	pull_varattnos((Node *) query->jointree, varno, &c->filtered);
	c->columns_known = true;
}

/* Candidates from one scan node of a re-planned statement. */
static void
advice_visit_scan(Plan *plan, Plan **ancestors, int depth, void *arg)
{
	BuildScan  *b = arg;
	Oid			relid;
	AdviceCandidate *c;
	List	   *indexconds = NIL;
	Index		varno;

	if (!IsA(plan, SeqScan) && !IsA(plan, IndexScan) && !IsA(plan, BitmapHeapScan))
		return;
	relid = advice_plan_relid(b->plan, plan);
	if (!OidIsValid(relid))
		return;
	b->planned->relids = list_append_unique_oid(b->planned->relids, relid);
	if (plan->qual == NIL && !AdviceBitmapAnd(plan) &&
		(!IsA(plan, SeqScan) || !advice_search))
		return;
	varno = ((Scan *) plan)->scanrelid;
	c = palloc0(sizeof(AdviceCandidate));
	c->relid = relid;
	c->share = plan->plan_rows / AdviceRelTuples(relid);
	c->sources = list_make1(b->planned);
	advice_needed_columns(c, b->planned->query, varno);
	advice_sort_quals(b->ctx, c, plan->qual, varno, false);
	if (c->eq == NIL && c->range == NIL && !AdviceBitmapAnd(plan))
	{
		/*
		 * Nothing an index could find, but perhaps an order to read in: the
		 * ORDER BY of a LIMIT over a sequential scan (configuration search
		 * only).  The LIMIT bounds the rows read, not the share filtered.
		 */
		if (!IsA(plan, SeqScan) || !advice_search)
			return;
		advice_sort_keys(c, plan, ancestors, depth);
		if (c->sort == NIL)
			return;
		c->share = 0;
		b->ctx->candidates = lappend(b->ctx->candidates, c);
		return;
	}
	if (IsA(plan, IndexScan))
		indexconds = ((IndexScan *) plan)->indexqualorig;
	else if (IsA(plan, BitmapHeapScan))
		indexconds = ((BitmapHeapScan *) plan)->bitmapqualorig;
	advice_sort_quals(b->ctx, c, indexconds, varno, true);
	advice_sort_keys(c, plan, ancestors, depth);
	b->ctx->candidates = lappend(b->ctx->candidates, c);
}

typedef struct Replan
{
	AdvicePlanned *planned;
	PlannedStmt *plan;
} Replan;

static void
advice_replan_as_role(void *arg)
{
	Replan	   *r = arg;

	r->planned->query = WhatifAnalyzeSelect(r->planned->stmt->text);
	r->plan = WhatifPlan(r->planned->query, r->planned->stmt->text, NIL);
	r->planned->cost = r->plan->planTree->total_cost;
}

/*
 * Analyse and plan one recorded statement (inside AdviceTry), as the role
 * that recorded it and with its search_path.
 */
static void
advice_replan(void *arg)
{
	Replan	   *r = arg;

	AdviceAsRole(r->planned->stmt->userid, r->planned->stmt->search_path,
				 advice_replan_as_role, r);
}

/* Re-plan every visible recorded statement and collect candidates. */
void
AdviceBuildCandidates(AdviceContext *ctx)
{
	ListCell   *lc;

	foreach(lc, AdviceCopyStatements())
	{
		Replan		r;
		BuildScan	b;

		r.planned = palloc0(sizeof(AdvicePlanned));
		r.planned->stmt = lfirst(lc);
		if (!AdviceTry(advice_replan, &r))
			continue;
		ctx->planned = lappend(ctx->planned, r.planned);
		b.ctx = ctx;
		b.planned = r.planned;
		b.plan = r.plan;
		WhatifWalkPlan(r.plan, advice_visit_scan, &b);
	}
}
