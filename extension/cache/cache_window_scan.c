/*-------------------------------------------------------------------------
 *
 * cache_window_scan.c
 *		Validity windows found in the leader's own scan (doc/DESIGN.md,
 *		"Computing it"): before the saved query runs, the scan node that
 *		reads a windowed occurrence has its qual wrapped, so that every row
 *		it reads passes through the watch on its way to the real qual. A row
 *		whose column value is nearer the constant than the bounds so far,
 *		and that passes the conjunct's filters, becomes the bound on its
 *		side. Once the node has returned its end, it has read every row
 *		that passes the filters: the bounds are those of a full scan, at
 *		the cost of two comparisons per row read, and no second scan.
 *
 * A node is watched when it reads the occurrence (scanrelid is its range
 * table index), is not parallel-aware (a worker reads the rest), has a
 * qual to wrap (an executor may skip a null qual altogether), and reads
 * every row that passes the filters:
 *
 * - a sequential scan reads every row;
 * - an index or bitmap heap scan reads the rows its index conditions
 *   select, so each of its original index conditions must be one of the
 *   filters (equal()): a row that passes the filters passes them all; and
 *   its indexes must have no predicate (a partial index, which the planner
 *   may use when the windowed conjunct implies its predicate, misses rows).
 *
 * Anything else (an index scan on the windowed column itself, a LIMIT or
 * a join that stops the scan before its end, a parallel scan, a node
 * another plan shape chose) leaves the window to cache_window_bounds.c:
 * index probes, or a point.
 *
 * The wrapper is an ExprState whose evalfunc calls the real qual's, then
 * looks at the scan tuple (for the integer and timestamp btree orders it
 * compares the values itself: the fmgr calls were a third of the watch's
 * cost, on a scan of three million rows); the node's ExecProcNodeReal is wrapped to see
 * its end. Both live in the child's executor memory and die with it; the
 * bounds are copied into the watch's own context, which outlives it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/stratnum.h"
#include "catalog/pg_index.h"
#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "cache/cache_internal.h"

/* One windowed constant's watch: its bounds so far. */
typedef struct ValueWatch
{
	struct CacheWindowWatch *watch;
	const CacheWindowValue *v;
	bool		after;			/* "column <= c" or "column > c" */
	AttrNumber	attno;			/* the column's, read on every row */
	int16		collen;
	bool		colbyval;
	int			int_width;		/* 2, 4, 8: compared as such; 0: by fmgr */
	FmgrInfo	self_cmp;
	ExprState  *filters;		/* in the watched node's executor */
	bool		has_lo;
	Datum		lo;				/* nearest passing value below */
	bool		has_hi;
	Datum		hi;				/* nearest passing value above */
	bool		watched;		/* a node reads the occurrence for it */
	bool		complete;		/* such a node returned its end */
} ValueWatch;

struct CacheWindowWatch
{
	int			n;
	ValueWatch *values;
	MemoryContext cxt;			/* where the bounds are copied */
};

/* The wrapped qual of one watched node. */
typedef struct WatchedQual
{
	ExprState	state;			/* first: ExecQual calls state.evalfunc */
	ExprState  *real;
	ExecProcNodeMtd real_proc;
	List	   *watches;		/* ValueWatch pointers */
} WatchedQual;

/*
 * The width of the signed integer a btree order procedure compares, if both
 * of a watch's procedures are one of these (timestamp_cmp and timestamptz_cmp
 * compare int64s, date_cmp int32s); 0 otherwise.
 */
static int
integer_order_width(Oid cmp_proc, Oid self_cmp_proc)
{
	if (cmp_proc != self_cmp_proc)
		return 0;
	switch (cmp_proc)
	{
		case F_BTINT8CMP:
		case F_TIMESTAMP_CMP:
		case F_TIMESTAMPTZ_CMP:
			return 8;
		case F_BTINT4CMP:
		case F_DATE_CMP:
			return 4;
		case F_BTINT2CMP:
			return 2;
		default:
			return 0;
	}
}

static inline int64
as_integer(const ValueWatch *w, Datum d)
{
	switch (w->int_width)
	{
		case 8:
			return DatumGetInt64(d);
		case 4:
			return DatumGetInt32(d);
		default:
			return DatumGetInt16(d);
	}
}

/* Compare a and b with cmp, or as integers if the watch's order is theirs. */
static inline int
compare(ValueWatch *w, FmgrInfo *cmp, Datum a, Datum b)
{
	if (w->int_width != 0)
	{
		int64		x = as_integer(w, a);
		int64		y = as_integer(w, b);

		return (x > y) - (x < y);
	}
	return DatumGetInt32(FunctionCall2Coll(cmp, w->v->spec->collid, a, b));
}

static bool
near_side(ValueWatch *w, Datum value, bool below)
{
	int			r;

	if (below ? !w->has_lo : !w->has_hi)
		return true;
	r = compare(w, &w->self_cmp, value, below ? w->lo : w->hi);
	return below ? r > 0 : r < 0;
}

static void
keep_bound(ValueWatch *w, Datum value, bool below)
{
	MemoryContext old = MemoryContextSwitchTo(w->watch->cxt);
	Datum		copy;
	Datum	   *bound = below ? &w->lo : &w->hi;
	bool	   *has = below ? &w->has_lo : &w->has_hi;

	if (w->collen == -1)
		copy = PointerGetDatum(pg_detoast_datum_copy((struct varlena *) DatumGetPointer(value)));
	else
		copy = datumCopy(value, w->colbyval, w->collen);
	if (*has && !w->colbyval)
		pfree(DatumGetPointer(*bound));
	*bound = copy;
	*has = true;
	MemoryContextSwitchTo(old);
}

/* One row read by the scan: a bound if it is nearer and passes the filters. */
static void
note_row(ValueWatch *w, ExprContext *econtext)
{
	bool		isnull;
	Datum		value = slot_getattr(econtext->ecxt_scantuple, w->attno, &isnull);
	int			r;
	bool		below;

	if (isnull)
		return;
	r = compare(w, (FmgrInfo *) &w->v->cmp, value, w->v->value);
	below = w->after ? r <= 0 : r < 0;
	if (!near_side(w, value, below))
		return;
	if (w->filters != NULL && !ExecQual(w->filters, econtext))
		return;
	keep_bound(w, value, below);
}

static Datum
watched_qual_eval(ExprState *expression, ExprContext *econtext, bool *isnull)
{
	WatchedQual *wq = (WatchedQual *) expression;
	Datum		result = wq->real->evalfunc(wq->real, econtext, isnull);
	ListCell   *lc;

	foreach(lc, wq->watches)
		note_row(lfirst(lc), econtext);
	return result;
}

static TupleTableSlot *
watched_proc(PlanState *node)
{
	WatchedQual *wq = (WatchedQual *) node->qual;
	TupleTableSlot *slot = wq->real_proc(node);

	if (TupIsNull(slot))
	{
		ListCell   *lc;

		foreach(lc, wq->watches)
			((ValueWatch *) lfirst(lc))->complete = true;
	}
	return slot;
}

/* Is every one of these (original) index conditions a filter? */
static bool
conditions_are_filters(List *conditions, List *filters)
{
	ListCell   *lc;

	foreach(lc, conditions)
		if (!list_member(filters, lfirst(lc)))
		return false;
	return true;
}

/* Does the index hold every row (no predicate: a partial index misses some)? */
static bool
whole_index(Oid indexid)
{
	HeapTuple	tuple = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(indexid));
	bool		whole;

	if (!HeapTupleIsValid(tuple))
		return false;
	whole = heap_attisnull(tuple, Anum_pg_index_indpred, NULL);
	ReleaseSysCache(tuple);
	return whole;
}

/* Does every index under a bitmap heap scan hold every row? */
static bool
whole_bitmap(Plan *plan)
{
	List	   *plans;
	ListCell   *lc;

	if (IsA(plan, BitmapIndexScan))
		return whole_index(((BitmapIndexScan *) plan)->indexid);
	if (IsA(plan, BitmapAnd))
		plans = ((BitmapAnd *) plan)->bitmapplans;
	else if (IsA(plan, BitmapOr))
		plans = ((BitmapOr *) plan)->bitmapplans;
	else
		return false;
	foreach(lc, plans)
		if (!whole_bitmap(lfirst(lc)))
		return false;
	return true;
}

/* Does this node read every row of the occurrence that passes the filters? */
static bool
reads_every_passing_row(PlanState *node, const CacheWindowSpec *spec)
{
	Plan	   *plan = node->plan;

	if (plan->parallel_aware || node->qual == NULL)
		return false;
	switch (nodeTag(plan))
	{
		case T_SeqScan:
			return ((Scan *) plan)->scanrelid == spec->varno;
		case T_IndexScan:
			return ((Scan *) plan)->scanrelid == spec->varno &&
				whole_index(((IndexScan *) plan)->indexid) &&
				conditions_are_filters(((IndexScan *) plan)->indexqualorig, spec->filters);
		case T_BitmapHeapScan:
			return ((Scan *) plan)->scanrelid == spec->varno &&
				whole_bitmap(plan->lefttree) &&
				conditions_are_filters(((BitmapHeapScan *) plan)->bitmapqualorig,
									   spec->filters);
		default:
			return false;
	}
}

static void
watch_node(PlanState *node, ValueWatch *w)
{
	WatchedQual *wq;

	if (node->qual->evalfunc == watched_qual_eval)
		wq = (WatchedQual *) node->qual;
	else
	{
		wq = palloc0(sizeof(WatchedQual));
		memcpy(&wq->state, node->qual, sizeof(ExprState));
		wq->state.evalfunc = watched_qual_eval;
		wq->real = node->qual;
		wq->real_proc = node->ExecProcNodeReal;
		node->qual = &wq->state;
		node->ExecProcNodeReal = watched_proc;
	}
	wq->watches = lappend(wq->watches, w);
	if (w->v->spec->filters != NIL)
		w->filters = ExecInitQual(w->v->spec->filters, node);
	w->watched = true;
}

static bool
find_scans(PlanState *node, void *context)
{
	CacheWindowWatch *watch = context;

	if (node == NULL)
		return false;
	for (int i = 0; i < watch->n; i++)
	{
		ValueWatch *w = &watch->values[i];

		/* one node per constant: two would share a completion flag */
		if (!w->watched && !w->v->keyed && reads_every_passing_row(node, w->v->spec))
			watch_node(node, w);
	}
	return planstate_tree_walker(node, find_scans, context);
}

/*
 * After ExecutorStart of the saved query, before it runs: watch the scans
 * that read the probe's windowed occurrences. The watch is allocated in the
 * current memory context, and must outlive the child's executor.
 */
CacheWindowWatch *
CacheWindowWatchStart(const CacheWindowProbe *probe, QueryDesc *child)
{
	CacheWindowWatch *watch = palloc0(sizeof(CacheWindowWatch));
	MemoryContext old;

	watch->cxt = CurrentMemoryContext;
	watch->n = probe->n;
	watch->values = palloc0(sizeof(ValueWatch) * probe->n);
	for (int i = 0; i < probe->n; i++)
	{
		ValueWatch *w = &watch->values[i];

		w->watch = watch;
		w->v = &probe->values[i];
		w->after = w->v->spec->strategy == BTLessEqualStrategyNumber ||
			w->v->spec->strategy == BTGreaterStrategyNumber;
		w->attno = w->v->spec->attno;
		get_typlenbyval(w->v->spec->coltype, &w->collen, &w->colbyval);
		w->int_width = integer_order_width(w->v->spec->cmp_proc, w->v->spec->self_cmp_proc);
		if (!w->v->keyed)
			fmgr_info(w->v->spec->self_cmp_proc, &w->self_cmp);
	}
	/* the wrappers and filters live and die with the child's executor */
	old = MemoryContextSwitchTo(child->estate->es_query_cxt);
	(void) find_scans(child->planstate, watch);
	MemoryContextSwitchTo(old);
	return watch;
}

/*
 * Value i's bounds, if a watched node read every row passing its filters:
 * *lo (*has_lo) the nearest value on the constant's lower side, *hi the
 * nearest on its upper side.
 */
bool
CacheWindowWatchBounds(const CacheWindowWatch *watch, int i, bool *has_lo, Datum *lo,
					   bool *has_hi, Datum *hi)
{
	const ValueWatch *w;

	if (watch == NULL || i >= watch->n || !watch->values[i].complete)
		return false;
	w = &watch->values[i];
	*has_lo = w->has_lo;
	*lo = w->lo;
	*has_hi = w->has_hi;
	*hi = w->hi;
	return true;
}
