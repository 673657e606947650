/*-------------------------------------------------------------------------
 *
 * advice_verify.c
 *		Verifies candidates before they are suggested: each variant is
 *		given to the planner as a hypothetical index, and every recorded
 *		statement that scans its table is planned again with it.  The
 *		cheapest variant is kept if it lowers the estimated cost of those
 *		statements (weighted by their sampled calls) by at least
 *		sfcache.advice_min_benefit.  Then exact duplicates and indexes that
 *		are a prefix of another suggestion are dropped.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/guc.h"

#include "advice/advice_internal.h"

/* A scan returning more than this share of its table gets no index. */
#define ADVICE_LARGE_SHARE	0.25

typedef struct CostRun
{
	AdvicePlanned *planned;
	WhatifIndex *windex;
	double		cost;
} CostRun;

static void
advice_cost_as_role(void *arg)
{
	CostRun    *run = arg;
	PlannedStmt *plan;

	plan = WhatifPlan(run->planned->query, run->planned->stmt->text,
					  list_make1(run->windex));
	run->cost = plan->planTree->total_cost;
}

/*
 * Plan one statement with one hypothetical index (inside AdviceTry), as the
 * role that recorded it and with its search_path (see AdviceAsRole).
 */
static void
advice_cost_with(void *arg)
{
	CostRun    *run = arg;

	AdviceAsRole(run->planned->stmt->userid, run->planned->stmt->search_path,
				 advice_cost_as_role, run);
}

/* Set v's cost before and after over the statements it was found in. */
static void
advice_cost_variant(AdviceCandidate *v)
{
	ListCell   *lc;

	v->cost_before = v->cost_after = 0;
	foreach(lc, v->sources)
	{
		AdvicePlanned *p = lfirst(lc);
		CostRun		run = {p, v->windex, p->cost};

		if (!AdviceTry(advice_cost_with, &run))
			run.cost = p->cost;
		v->cost_before += p->cost * p->stmt->calls;
		v->cost_after += run.cost * p->stmt->calls;
	}
}

typedef struct VariantRun
{
	AdviceContext *ctx;
	AdviceCandidate *c;
	List	   *variants;
} VariantRun;

static void
advice_variants_as_role(void *arg)
{
	VariantRun *run = arg;

	run->variants = AdviceCandidateVariants(run->ctx, run->c);
}

/*
 * The variants of a candidate (inside AdviceTry).  Their definitions are
 * parsed from expressions of recorded statements, so as the role that
 * recorded the first of them (see AdviceAsRole), under the current
 * search_path as before.
 */
static void
advice_variants(void *arg)
{
	VariantRun *run = arg;
	AdvicePlanned *first = linitial(run->c->sources);

	AdviceAsRole(first->stmt->userid, NULL, advice_variants_as_role, run);
}

/*
 * The variants of c worth costing, each with its DDL and hypothetical
 * index: none when its scan returns a large share of the table, when an
 * existing index serves it, or when they cannot be built.
 */
List *
AdviceAllVariants(AdviceContext *ctx, AdviceCandidate *c)
{
	VariantRun	run = {ctx, c, NIL};

	if (c->share > ADVICE_LARGE_SHARE || !AdviceTry(advice_variants, &run))
		return NIL;
	return run.variants;
}

/* The verified best variant of c, or NULL. */
static AdviceCandidate *
advice_best_variant(AdviceContext *ctx, AdviceCandidate *c)
{
	AdviceCandidate *best = NULL;
	ListCell   *lc;

	foreach(lc, AdviceAllVariants(ctx, c))
	{
		AdviceCandidate *v = lfirst(lc);

		advice_cost_variant(v);
		if (best == NULL || v->cost_after < best->cost_after)
			best = v;
	}
	if (best == NULL || best->cost_before <= 0 ||
		1.0 - best->cost_after / best->cost_before < advice_min_benefit)
		return NULL;
	return best;
}

/* Does b make a redundant: same table and kind, and a's keys lead b's? */
static bool
advice_redundant(AdviceCandidate *a, int apos, AdviceCandidate *b, int bpos)
{
	ListCell   *la;
	ListCell   *lb;

	if (apos == bpos || a->relid != b->relid || a->gin != b->gin ||
		list_length(a->keys) > list_length(b->keys) ||
		(a->pred == NIL) != (b->pred == NIL))
		return false;
	if (a->gin && (a->opclass == NULL) != (b->opclass == NULL))
		return false;
	forboth(la, a->keys, lb, b->keys)
	{
		/* cppcheck-suppress nullPointerRedundantCheck ; forboth stops at NULL */
		if (!AdviceSameKey(lfirst(la), lfirst(lb)))
			return false;
	}
	if (list_length(a->keys) < list_length(b->keys))
		return true;
	/* of two identical ones, keep the first */
	return strcmp(a->ddl, b->ddl) == 0 && apos > bpos;
}

/* The candidates of ctx that survive verification, without redundancy. */
List *
AdviceVerify(AdviceContext *ctx)
{
	List	   *kept = NIL;
	List	   *result = NIL;
	ListCell   *lc;
	ListCell   *lc2;

	foreach(lc, ctx->candidates)
	{
		AdviceCandidate *best = advice_best_variant(ctx, lfirst(lc));

		if (best != NULL)
			kept = lappend(kept, best);
	}
	foreach(lc, kept)
	{
		bool		redundant = false;

		foreach(lc2, kept)
		{
			redundant = redundant ||
				advice_redundant(lfirst(lc), foreach_current_index(lc),
								 lfirst(lc2), foreach_current_index(lc2));
		}
		if (!redundant)
			result = lappend(result, lfirst(lc));
	}
	return result;
}
