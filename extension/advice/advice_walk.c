/*-------------------------------------------------------------------------
 *
 * advice_walk.c
 *		Turns one finished, sampled execution into observations: walks the
 *		PlanState tree, and for every scan of a user table that evaluated
 *		an indexable qual as a sequential-scan qual or as a filter after an
 *		index, records each such qual with the node's row counts, the index
 *		conditions of a partly served scan (also of a bitmap scan ANDing
 *		two indexes, which one compound index could serve), each arm of an
 *		OR across columns (each needs an index), and the ORDER BY keys of a
 *		LIMIT over a sort of the scan.  Keeps the statement's text for
 *		re-planning when it can be re-planned (a SELECT without parameters).
 *
 * A scan fully served by its index (no filter) records nothing: a primary
 * key lookup costs one walk and no lock.  A sequential scan with nothing to
 * filter records only the ORDER BY keys of a LIMIT over a sort of it (the
 * latest rows of a table, read whole and sorted).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "catalog/pg_class.h"
#include "executor/instrument.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

#include "advice/advice_internal.h"

#define ADVICE_MAX_OBS		64
#define ADVICE_ANCESTORS	3

typedef struct AdviceWalk
{
	PlannedStmt *stmt;
	PlanState  *ancestors[ADVICE_ANCESTORS];	/* [0] parent, [1] grandparent */
	AdviceObservation *obs;		/* ADVICE_MAX_OBS, from the first one */
	int			nobs;
} AdviceWalk;

/* Row counts of one scan node, for all its loops. */
typedef struct AdviceRows
{
	int64		scanned;
	int64		removed;
	int64		returned;
	double		time_ms;
} AdviceRows;

/* Add one observation of qual q on relid in role. */
static void
advice_observe(AdviceWalk *w, AdviceQual *q, Index varno, Oid relid,
			   AdviceRole role, const AdviceRows *rows)
{
	AdviceObservation *o;
	char	   *expr_text;

	if (w->nobs >= ADVICE_MAX_OBS)
		return;
	/* most sampled plans observe nothing: no room for 64 until one does */
	if (w->obs == NULL)
		w->obs = palloc(ADVICE_MAX_OBS * sizeof(AdviceObservation));
	o = &w->obs[w->nobs++];
	memset(o, 0, sizeof(AdviceObservation));
	expr_text = AdviceKeyText(q->key, varno, relid);
	o->key.dbid = MyDatabaseId;
	o->key.userid = GetUserId();
	o->key.relid = relid;
	o->key.opno = q->opno;
	o->key.exprhash = q->attnum == 0 ? AdviceHashText(expr_text) : 0;
	o->key.attnum = q->attnum;
	o->key.role = role;
	o->kind = q->kind;
	strlcpy(o->expr, expr_text, ADVICE_EXPR_LEN);
	o->is_const = q->is_const;
	o->const_hash = q->const_hash;
	o->rows_scanned = rows->scanned;
	o->rows_removed = rows->removed;
	o->rows_returned = rows->returned;
	o->time_ms = rows->time_ms;
}

/*
 * Observe the arm quals of an OR across keys, each (key, operator) once;
 * how many were?
 */
static int
advice_observe_arms(AdviceWalk *w, List *arms, Index varno, Oid relid,
					AdviceRole role, const AdviceRows *rows)
{
	List	   *seen = NIL;
	ListCell   *lc;
	ListCell   *lc2;
	ListCell   *lc3;

	foreach(lc, arms)
	{
		foreach(lc2, (List *) lfirst(lc))
		{
			AdviceQual *q = lfirst(lc2);
			bool		dup = false;

			foreach(lc3, seen)
				dup = dup || (AdviceSameKey(q, lfirst(lc3)) &&
							  q->opno == ((AdviceQual *) lfirst(lc3))->opno);
			if (dup)
				continue;
			seen = lappend(seen, q);
			advice_observe(w, q, varno, relid, role, rows);
		}
	}
	return list_length(seen);
}

/* Observe every indexable qual of a list; how many were? */
static int
advice_observe_list(AdviceWalk *w, List *quals, Index varno, Oid relid,
					AdviceRole role, const AdviceRows *rows)
{
	ListCell   *lc;
	int			n = 0;

	foreach(lc, quals)
	{
		AdviceQual	q;

		if (AdviceClassifyQual((Expr *) lfirst(lc), varno, &q))
		{
			advice_observe(w, &q, varno, relid, role, rows);
			n++;
		}
		else
			n += advice_observe_arms(w, AdviceClassifyOrArms((Expr *) lfirst(lc), varno),
									 varno, relid, role, rows);
	}
	return n;
}

/* ORDER BY keys of a LIMIT over a sort of this scan. */
static void
advice_observe_sort(AdviceWalk *w, PlanState *scan, Index varno, Oid relid,
					const AdviceRows *rows)
{
	PlanState  *sort = w->ancestors[0];
	PlanState  *above = w->ancestors[1];
	Sort	   *plan;
	int			i;

	if (sort == NULL || !IsA(sort, SortState) || above == NULL ||
		!(IsA(above, LimitState) ||
		  (IsA(above, GatherMergeState) && w->ancestors[2] != NULL &&
		   IsA(w->ancestors[2], LimitState))))
		return;
	plan = (Sort *) sort->plan;
	for (i = 0; i < plan->numCols; i++)
	{
		TargetEntry *tle = get_tle_by_resno(scan->plan->targetlist, plan->sortColIdx[i]);
		AdviceQual	q;

		if (tle == NULL || !IsA(tle->expr, Var) || ((Var *) tle->expr)->varno != varno)
			return;
		memset(&q, 0, sizeof(q));
		q.kind = ADVICE_KIND_SORT;
		q.key = tle->expr;
		q.attnum = ((Var *) tle->expr)->varattno;
		q.opno = plan->sortOperators[i];
		advice_observe(w, &q, varno, relid, ADVICE_ROLE_SORT, rows);
	}
}

/* The user table a scan reads, or InvalidOid. */
static Oid
advice_scan_relid(AdviceWalk *w, Index scanrelid)
{
	RangeTblEntry *rte;

	if (scanrelid == 0 || scanrelid > list_length(w->stmt->rtable))
		return InvalidOid;
	rte = rt_fetch(scanrelid, w->stmt->rtable);
	if (rte->rtekind != RTE_RELATION || rte->relid < FirstNormalObjectId ||
		(rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW))
		return InvalidOid;
	return rte->relid;
}

static void
advice_node_rows(PlanState *ps, AdviceRows *rows)
{
	NodeInstrumentation *instr = ps->instrument;

	InstrEndLoop(instr);
	rows->returned = (int64) instr->ntuples;
	rows->removed = (int64) instr->nfiltered1;
	rows->scanned = rows->returned + rows->removed;
	rows->time_ms = SfcInstrNeedTimer(instr) ? SfcInstrTotalMs(instr) : 0.0;
}

/* Record one scan node: its unserved quals, then what partly served it. */
static void
advice_scan(AdviceWalk *w, PlanState *ps)
{
	Plan	   *plan = ps->plan;
	Index		varno = ((Scan *) plan)->scanrelid;
	Oid			relid = advice_scan_relid(w, varno);
	List	   *indexconds = NIL;
	AdviceRole	role = ADVICE_ROLE_FILTER;
	AdviceRows	rows;

	if (!OidIsValid(relid) || ps->instrument == NULL ||
		(plan->qual == NIL && !IsA(plan, SeqScan) && !AdviceBitmapAnd(plan)))
		return;
	if (IsA(plan, SeqScan))
		role = ADVICE_ROLE_SEQSCAN;
	else if (IsA(plan, IndexScan))
		indexconds = ((IndexScan *) plan)->indexqualorig;
	else if (IsA(plan, BitmapHeapScan))
		indexconds = ((BitmapHeapScan *) plan)->bitmapqualorig;
	else
		return;
	advice_node_rows(ps, &rows);
	if (plan->qual == NIL && AdviceBitmapAnd(plan))
	{
		/* two indexes ANDed: what one compound index could serve */
		(void) advice_observe_list(w, indexconds, varno, relid,
								   ADVICE_ROLE_INDEXCOND, &rows);
		return;
	}
	if (advice_observe_list(w, plan->qual, varno, relid, role, &rows) == 0)
	{
		/* nothing to filter: the ORDER BY of a LIMIT over the whole table */
		if (IsA(plan, SeqScan))
			advice_observe_sort(w, ps, varno, relid, &rows);
		return;
	}
	(void) advice_observe_list(w, indexconds, varno, relid,
							   ADVICE_ROLE_INDEXCOND, &rows);
	advice_observe_sort(w, ps, varno, relid, &rows);
}

static bool
advice_walk_node(PlanState *ps, void *arg)
{
	AdviceWalk *w = arg;
	PlanState  *saved[ADVICE_ANCESTORS];
	int			i;

	if (ps == NULL)
		return false;
	if (IsA(ps, SeqScanState) || IsA(ps, IndexScanState) ||
		IsA(ps, BitmapHeapScanState))
		advice_scan(w, ps);
	memcpy(saved, w->ancestors, sizeof(saved));
	for (i = ADVICE_ANCESTORS - 1; i > 0; i--)
		w->ancestors[i] = w->ancestors[i - 1];
	w->ancestors[0] = ps;
	(void) planstate_tree_walker(ps, advice_walk_node, w);
	memcpy(w->ancestors, saved, sizeof(saved));
	return false;
}

/* Keep the statement's text if it can be re-planned later. */
static void
advice_keep_statement(QueryDesc *queryDesc)
{
	PlannedStmt *stmt = queryDesc->plannedstmt;
	const char *source = queryDesc->sourceText;
	int			len;

	if (stmt->commandType != CMD_SELECT || stmt->hasModifyingCTE ||
		stmt->queryId == 0 || source == NULL ||
		(queryDesc->params != NULL && queryDesc->params->numParams > 0))
		return;
	if (stmt->stmt_location > 0)
		source += stmt->stmt_location;
	len = stmt->stmt_len > 0 ? stmt->stmt_len : (int) strlen(source);
	AdviceStoreStatement(GetUserId(), stmt->queryId,
						 GetConfigOption("search_path", false, false), source, len);
}

/* Record what a sampled statement's finished plan shows. */
void
AdviceRecordExecution(QueryDesc *queryDesc)
{
	AdviceWalk *w;

	if (queryDesc->planstate == NULL || queryDesc->planstate->instrument == NULL)
		return;
	w = palloc0(sizeof(AdviceWalk));
	w->stmt = queryDesc->plannedstmt;
	(void) advice_walk_node(queryDesc->planstate, w);
	if (w->nobs > 0)
	{
		AdviceStoreObservations(w->obs, w->nobs, queryDesc->plannedstmt->queryId);
		advice_keep_statement(queryDesc);
		pfree(w->obs);
	}
	pfree(w);
}
