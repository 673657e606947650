/*-------------------------------------------------------------------------
 *
 * advice_window.c
 *		Owns the window advice: the result cache tells (its starved
 *		callback, cache_window_bounds.c) of each leader's validity window
 *		that came out as a point for want of a btree index leading with its
 *		range column; such a window serves no later execution with another
 *		constant. Each is recorded as a qual of role ADVICE_ROLE_WINDOW on
 *		(relation, column, operator) in the record of advice_store.c, its
 *		calls counting the starved windows, with the statement's query id;
 *		so it is kept, persisted, evicted and forgotten with the other
 *		quals. Read back, one suggestion per column: a btree index on the
 *		column alone (it serves the statement's range test too), with the
 *		rows and time the sampled executions of those statements spent
 *		scanning the column (their seq scan and filter quals).
 *
 * Not recorded, nor shown: where a valid btree index without predicate
 * already starts with the column under a non-pattern operator class
 * (AdviceBtreeServed, as the index advice checks); such an index may not
 * serve the windows (another collation or operator family), and creating
 * the same index again would not either.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "advice/advice_internal.h"

/* The btree key of column attnum of relid, as the rules take it. */
static AdviceQual *
advice_window_key(Oid relid, AttrNumber attnum)
{
	AdviceQual *q = palloc0(sizeof(AdviceQual));
	Oid			type;
	int32		typmod;
	Oid			collid;

	get_atttypetypmodcoll(relid, attnum, &type, &typmod, &collid);
	q->kind = ADVICE_KIND_WINDOW;
	q->attnum = attnum;
	q->key = (Expr *) makeVar(1, attnum, type, typmod, collid, 0);
	return q;
}

static bool
advice_window_served(Oid relid, AdviceQual *q)
{
	return AdviceBtreeServed(relid, list_make1(q), false);
}

/* The result cache's starved callback: one window, on a leader's miss. */
static void
advice_window_starved(Oid relid, AttrNumber attno, Oid opno, uint64 queryid)
{
	AdviceObservation o;
	AdviceQual *q;

	if (!advice_enabled || !SfcExtensionActive() || attno <= 0)
		return;
	q = advice_window_key(relid, attno);
	if (advice_window_served(relid, q))
		return;
	memset(&o, 0, sizeof(o));
	o.key.dbid = MyDatabaseId;
	o.key.userid = GetUserId();
	o.key.relid = relid;
	o.key.opno = opno;
	o.key.attnum = attno;
	o.key.role = ADVICE_ROLE_WINDOW;
	o.kind = ADVICE_KIND_WINDOW;
	strlcpy(o.expr, AdviceKeyText(q->key, 1, relid), ADVICE_EXPR_LEN);
	AdviceStoreObservations(&o, 1, queryid);
}

void
AdviceWindowInit(void)
{
	CacheRegisterWindowStarvedCallback(advice_window_starved);
}

static bool
advice_window_has_queryid(AdviceWindow *w, uint64 queryid)
{
	for (int i = 0; i < w->nqueryids; i++)
		if (w->queryids[i] == queryid)
			return true;
	return false;
}

/* The suggestion for s's column, found in or added to *windows. */
static AdviceWindow *
advice_window_entry(List **windows, AdviceQualStats *s)
{
	ListCell   *lc;
	AdviceWindow *w;

	foreach(lc, *windows)
	{
		w = lfirst(lc);
		if (w->relid == s->key.relid && w->attnum == s->key.attnum)
			return w;
	}
	w = palloc0(sizeof(AdviceWindow));
	w->relid = s->key.relid;
	w->attnum = s->key.attnum;
	strlcpy(w->column, s->expr, ADVICE_EXPR_LEN);
	*windows = lappend(*windows, w);
	return w;
}

/* Add the starved windows of s to their column's suggestion. */
static void
advice_window_add(List **windows, AdviceQualStats *s)
{
	AdviceWindow *w = advice_window_entry(windows, s);

	w->starved += s->calls;
	for (int i = 0; i < s->nqueryids; i++)
		if (!advice_window_has_queryid(w, s->queryids[i]) &&
			w->nqueryids < lengthof(w->queryids))
			w->queryids[w->nqueryids++] = s->queryids[i];
}

/*
 * What the sampled scans of w's statements on its column saw: the scan
 * qual that scanned the most rows (as the index advice's evidence), since
 * two quals of one statement on the column count the same executions.
 */
static void
advice_window_scanned(AdviceWindow *w, AdviceQualStats *s)
{
	if (s->key.relid != w->relid || s->key.attnum != w->attnum ||
		(s->key.role != ADVICE_ROLE_SEQSCAN && s->key.role != ADVICE_ROLE_FILTER) ||
		s->rows_scanned < w->rows_scanned)
		return;
	for (int i = 0; i < s->nqueryids; i++)
	{
		if (advice_window_has_queryid(w, s->queryids[i]))
		{
			w->calls = s->calls;
			w->rows_scanned = s->rows_scanned;
			w->time_ms = s->time_ms;
			return;
		}
	}
}

/* Is the column still there, and still without an index serving it? */
static bool
advice_window_open(AdviceWindow *w)
{
	HeapTuple	tup;
	bool		dropped;

	if (get_rel_relkind(w->relid) != RELKIND_RELATION &&
		get_rel_relkind(w->relid) != RELKIND_MATVIEW)
		return false;
	tup = SearchSysCacheAttNum(w->relid, w->attnum);
	if (!HeapTupleIsValid(tup))
		return false;
	dropped = ((Form_pg_attribute) GETSTRUCT(tup))->attisdropped;
	ReleaseSysCache(tup);
	if (dropped)
		return false;
	w->index = palloc0(sizeof(AdviceCandidate));
	w->index->relid = w->relid;
	w->index->keys = list_make1(advice_window_key(w->relid, w->attnum));
	if (advice_window_served(w->relid, linitial(w->index->keys)))
		return false;
	AdviceCandidateDdl(w->index);
	w->index->windex = WhatifParseIndexDdl(w->index->ddl);
	return true;
}

static int
advice_window_cmp(const ListCell *a, const ListCell *b)
{
	AdviceWindow *wa = lfirst(a);
	AdviceWindow *wb = lfirst(b);

	if (wa->starved != wb->starved)
		return wa->starved > wb->starved ? -1 : 1;
	if (wa->relid != wb->relid)
		return wa->relid < wb->relid ? -1 : 1;
	return wa->attnum - wb->attnum;
}

/*
 * The window suggestions of this database the current user may see, one
 * per column, most starved first; each with its index named (not yet
 * unique: advice_sql.c makes it so).
 */
List *
AdviceWindows(void)
{
	List	   *quals = AdviceCopyQuals();
	List	   *windows = NIL;
	List	   *result = NIL;
	ListCell   *lc;
	ListCell   *lc2;

	foreach(lc, quals)
	{
		AdviceQualStats *s = lfirst(lc);

		if (s->key.role == ADVICE_ROLE_WINDOW)
			advice_window_add(&windows, s);
	}
	foreach(lc, windows)
	{
		AdviceWindow *w = lfirst(lc);

		if (!advice_window_open(w))
			continue;
		foreach(lc2, quals)
			advice_window_scanned(w, lfirst(lc2));
		result = lappend(result, w);
	}
	list_sort(result, advice_window_cmp);
	return result;
}
