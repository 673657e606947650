/*-------------------------------------------------------------------------
 *
 * advice_merge.c
 *		Merged candidates: one btree index that could serve several
 *		recorded statements on the same table, where each statement's own
 *		candidate serves only it.  Two candidates merge on the equality
 *		columns they share (a column each compares to a value, or the same
 *		boolean test), with the range columns they share and the ORDER BY
 *		keys of one's LIMIT after them; a shared boolean or status test
 *		always compared to the same constant becomes the predicate, as for
 *		any candidate (advice_rules.c), so the partial index holds the
 *		rows both statements need.  Besides each pair, every candidate is
 *		folded with all others it shares an equality column with, for an
 *		index serving the most statements.  The configuration search
 *		(advice_search.c) decides which, if any, earns its bytes.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "advice/advice_internal.h"

/* The qual of quals on q's key with the same test, or NULL. */
static AdviceQual *
advice_same_test(List *quals, AdviceQual *q)
{
	ListCell   *lc;

	foreach(lc, quals)
	{
		AdviceQual *o = lfirst(lc);

		if (!AdviceSameKey(o, q) || o->kind != q->kind)
			continue;
		/* a boolean test must test the same way: NOT col is not col */
		if (q->kind == ADVICE_KIND_BOOL && o->const_hash != q->const_hash)
			continue;
		return o;
	}
	return NULL;
}

/* The quals of a whose test b makes too. */
static List *
advice_shared(List *a, List *b)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, a)
	{
		if (advice_same_test(b, lfirst(lc)) != NULL)
			result = lappend(result, lfirst(lc));
	}
	return result;
}

/* a and b merged with the ORDER BY keys sort, or NULL if nothing is shared. */
static AdviceCandidate *
advice_merge_pair(AdviceCandidate *a, AdviceCandidate *b, List *sort)
{
	AdviceCandidate *m;
	List	   *eq = advice_shared(a->eq, b->eq);

	if (eq == NIL)
		return NULL;
	m = palloc0(sizeof(AdviceCandidate));
	m->relid = a->relid;
	m->eq = eq;
	m->range = advice_shared(a->range, b->range);
	m->sort = sort;
	m->share = Max(a->share, b->share);
	m->sources = list_concat_unique_ptr(list_copy(a->sources), b->sources);
	m->columns_known = a->columns_known && b->columns_known;
	m->output = bms_union(a->output, b->output);
	m->filtered = bms_union(a->filtered, b->filtered);
	return m;
}

/* Append the merges of a and b: with a's ORDER BY, with b's, or neither. */
static List *
advice_merges(List *result, AdviceCandidate *a, AdviceCandidate *b)
{
	AdviceCandidate *m;

	if (a->sort != NIL && (m = advice_merge_pair(a, b, a->sort)) != NULL)
		result = lappend(result, m);
	if (b->sort != NIL && (m = advice_merge_pair(a, b, b->sort)) != NULL)
		result = lappend(result, m);
	if (a->sort == NIL && b->sort == NIL &&
		(m = advice_merge_pair(a, b, NIL)) != NULL)
		result = lappend(result, m);
	return result;
}

/* May a and b merge: btree candidates of one table from other statements? */
static bool
advice_mergeable(AdviceCandidate *a, AdviceCandidate *b)
{
	return a != b && !a->gin && !b->gin && a->relid == b->relid &&
		list_difference_ptr(b->sources, a->sources) != NIL;
}

/*
 * The merged candidates of ctx's candidates: every pair, then each
 * candidate folded with every other it shares an equality column with.
 */
List *
AdviceMergeCandidates(AdviceContext *ctx)
{
	List	   *result = NIL;
	ListCell   *la;
	ListCell   *lb;

	foreach(la, ctx->candidates)
	{
		AdviceCandidate *a = lfirst(la);
		AdviceCandidate *fold = a;
		int			folded = 0;

		foreach(lb, ctx->candidates)
		{
			AdviceCandidate *b = lfirst(lb);
			AdviceCandidate *m;

			if (!advice_mergeable(a, b))
				continue;
			if (foreach_current_index(lb) > foreach_current_index(la))
				result = advice_merges(result, a, b);
			if (advice_mergeable(fold, b) &&
				(m = advice_merge_pair(fold, b, fold->sort != NIL ? fold->sort : b->sort)) != NULL)
			{
				fold = m;
				folded++;
			}
		}
		if (folded > 1)
			result = lappend(result, fold);
	}
	return result;
}
