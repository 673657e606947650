/*-------------------------------------------------------------------------
 *
 * advice_search.c
 *		The configuration search: which set of candidate indexes serves the
 *		whole recorded workload best, rather than which index serves each
 *		statement.  Every recorded statement is costed (its estimated cost
 *		times its sampled calls) under a candidate configuration with the
 *		hypothetical indexes of whatif/.
 *
 *	candidates	every variant of every per-statement candidate, and of the
 *				merged candidates (advice_merge.c); one per definition.
 *	greedy		from no index, repeatedly add the candidate with the
 *				largest saving per byte given the indexes chosen so far:
 *				its saving is re-costed (every statement on its table,
 *				planned with the configuration plus it) whenever an index
 *				was added that a statement of its table could also use.
 *				A candidate qualifies when its saving, less its upkeep, is
 *				positive, at least sfcache.advice_min_benefit of the
 *				cost of the statements it makes cheaper and at least 2% of
 *				the workload's cost under the configuration so far, each
 *				statement costing its plan plus ADVICE_STATEMENT_COST
 *				(halving a plan that costs next to nothing earns no
 *				index); the size and count budgets are respected.
 *	removal		each chosen index, last chosen first, is dropped if the
 *				configuration without it loses less than that bar (an
 *				index a later, broader one made worthless).
 *	narrowing	each chosen btree index is replaced by a narrower form
 *				of it in the pool (its keys lead the index's, its
 *				INCLUDE columns are among the index's, same predicate
 *				and fewer columns, or that predicate and IS NOT NULL
 *				tests of keys and no more columns; smaller) when, in
 *				the configuration without it, the narrower one saves
 *				at least as much per byte and still clears the bar:
 *				the width must earn its bytes at the rate of the
 *				index it widens.  The greedy pass compares
 *				forms at the step it chooses, when other indexes chosen
 *				since may not yet be there: a covering variant chosen
 *				while a GIN index the removal later drops still served
 *				one statement is kept otherwise.  Of several such forms
 *				the one that saves the most.
 *	pruning		the removal pass again, after the narrowing, where an
 *				index must also save at the rate of its bytes: at least
 *				ADVICE_MIN_BYTE_SHARE of what the workload costs without
 *				indexes per byte of the tables its statements read, for
 *				each byte of the index (an index a tenth the size of the
 *				data must save 1% of the workload's cost).  The greedy
 *				pass's 2% is of the cost left under the configuration so
 *				far, which shrinks as indexes are chosen: without this an
 *				index of 12 MB saving 0.4% of a workload on 44 MB of data
 *				stayed; a GIN index of 250 kB saving 0.5% (the LMS's
 *				scope_ids) pays its bytes many times over.  Not in the
 *				greedy pass: a wide covering form chosen there can make a
 *				smaller index worthless before the narrowing takes it back
 *				to its plain form.
 *	attribution	every statement is planned once more under the final
 *				configuration; its saving is split evenly among the chosen
 *				indexes its plan uses.  That is each index's marginal
 *				benefit, and the statements it serves: the marginal
 *				benefits add up to the configuration's saving.
 *
 * Upkeep: each write recorded for the table (sfcache.table_activity) costs
 * an index about one random page and a descent of its tree
 * (random_page_cost + cpu_index_tuple_cost per level), three times that for
 * GIN, which inserts a key per element; writes are counted in full and
 * reads sampled, so the writes are weighted by sfcache.advice_sample_rate.
 *
 * Work: the greedy, removal, narrowing and pruning passes stop at sfcache.advice_max_plannings
 * plannings (the search is then marked truncated and keeps what it chose);
 * the attribution plans each statement once more.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "advice/advice_internal.h"

#define ADVICE_GIN_UPKEEP	3.0
#define ADVICE_MIN_WORKLOAD_SHARE 0.02
/*
 * What each byte of an index must save, at least, as a share of what the
 * workload costs (without indexes) per byte of the tables it reads: an index
 * a tenth of the data's size must save 1% of the workload's cost.
 */
#define ADVICE_MIN_BYTE_SHARE	0.1
/*
 * What a statement costs besides its plan (parse, planning, the round trip),
 * in the planner's units: with the default settings a sequential scan in
 * memory runs at a few microseconds per unit, and a simple statement's fixed
 * part takes a few hundred microseconds.  Counted in the cost of the
 * statements an index improves and in the workload's, so that halving a plan
 * that costs next to nothing (a dozen random heap fetches the planner prices
 * at four units each) is not mistaken for halving the statement.
 */
#define ADVICE_STATEMENT_COST	50.0

typedef struct Search
{
	AdviceContext *ctx;
	const AdviceSearchLimits *limits;
	AdviceSearchWork *work;
	int			n;				/* list_length(ctx->planned) */
	List	   *pool;			/* AdviceCandidate * */
	List	   *config;			/* AdviceCandidate *, in the order chosen */
	double	   *cur;			/* per statement: cost under config */
	List	   *tables;			/* AdviceTableStats * */
	MemoryContext plancxt;		/* reset after every planning */
	double		density;		/* workload cost without indexes per byte of
								 * the tables it reads */
} Search;

typedef struct CostRun
{
	AdvicePlanned *planned;
	List	   *windexes;
	double		cost;
	List	   *used;
} CostRun;

static void
search_plan_as_role(void *arg)
{
	CostRun    *run = arg;
	PlannedStmt *plan;

	plan = WhatifPlan(run->planned->query, run->planned->stmt->text, run->windexes);
	run->cost = plan->planTree->total_cost;
	run->used = WhatifUsedIndexes(plan, run->windexes);
}

/* Plan one statement with some hypothetical indexes (inside AdviceTry). */
static void
search_plan(void *arg)
{
	CostRun    *run = arg;

	AdviceAsRole(run->planned->stmt->userid, run->planned->stmt->search_path,
				 search_plan_as_role, run);
}

static bool
search_scans(AdvicePlanned *p, AdviceCandidate *c)
{
	return list_member_oid(p->relids, c->relid);
}

/*
 * The estimated cost of p with the candidates of cands on its tables; if
 * used is not NULL, used[i] tells whether the plan uses the i-th of cands.
 * A statement that can no longer be planned keeps its cost without.
 */
static double
search_cost(Search *s, AdvicePlanned *p, List *cands, bool *used)
{
	MemoryContext old;
	CostRun		run = {p, NIL, p->cost, NIL};
	ListCell   *lc;

	if (used != NULL)
		memset(used, 0, sizeof(bool) * Max(list_length(cands), 1));
	old = MemoryContextSwitchTo(s->plancxt);
	foreach(lc, cands)
	{
		if (search_scans(p, lfirst(lc)))
			run.windexes = lappend(run.windexes, ((AdviceCandidate *) lfirst(lc))->windex);
	}
	if (run.windexes != NIL)
	{
		s->work->plannings++;
		if (!AdviceTry(search_plan, &run))
			run.cost = p->cost;
	}
	foreach(lc, cands)
	{
		if (used != NULL &&
			list_member_ptr(run.used, ((AdviceCandidate *) lfirst(lc))->windex))
			used[foreach_current_index(lc)] = true;
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(s->plancxt);
	return run.cost;
}

/* Upkeep of c under its table's recorded writes, in the reads' units. */
static double
search_upkeep(Search *s, AdviceCandidate *c)
{
	ListCell   *lc;
	double		per_write;

	per_write = random_page_cost + cpu_index_tuple_cost * (c->windex->tree_height + 1);
	if (c->gin)
		per_write *= ADVICE_GIN_UPKEEP;
	foreach(lc, s->tables)
	{
		AdviceTableStats *t = lfirst(lc);

		if (t->relid == c->relid)
			return t->writes * advice_sample_rate * per_write;
	}
	return 0;
}

/* Plannings an evaluation of c needs: one per statement on its table. */
static int
search_need(Search *s, AdviceCandidate *c)
{
	ListCell   *lc;
	int			need = 0;

	foreach(lc, s->ctx->planned)
		need += search_scans(lfirst(lc), c);
	return need;
}

/* Cost every statement on c's table with the configuration plus c. */
static void
search_evaluate(Search *s, AdviceCandidate *c)
{
	List	   *with = lappend(list_copy(s->config), c);
	ListCell   *lc;

	c->gain = c->improved = 0;
	foreach(lc, s->ctx->planned)
	{
		AdvicePlanned *p = lfirst(lc);
		int			i = foreach_current_index(lc);

		c->costs[i] = s->cur[i];
		if (!search_scans(p, c))
			continue;
		c->costs[i] = search_cost(s, p, with, NULL);
		if (c->costs[i] < s->cur[i])
		{
			c->gain += p->stmt->calls * (s->cur[i] - c->costs[i]);
			c->improved += p->stmt->calls * (s->cur[i] + ADVICE_STATEMENT_COST);
		}
	}
	c->upkeep = search_upkeep(s, c);
	c->gain -= c->upkeep;
	c->stale = false;
	list_free(with);
}

/* The workload's cost (calls x cost) under the configuration. */
static double
search_total(Search *s)
{
	ListCell   *lc;
	double		total = 0;

	foreach(lc, s->ctx->planned)
	{
		AdvicePlanned *p = lfirst(lc);

		total += p->stmt->calls * (s->cur[foreach_current_index(lc)] + ADVICE_STATEMENT_COST);
	}
	return total;
}

/*
 * Does a saving of gain on statements costing improved earn an index of
 * bytes bytes?
 */
static bool
search_worth(Search *s, double gain, double improved, int64 bytes)
{
	return improved > 0 && gain > 0 && gain >= advice_min_benefit * improved &&
		gain >= ADVICE_MIN_WORKLOAD_SHARE * search_total(s) &&
		gain >= ADVICE_MIN_BYTE_SHARE * s->density * (double) bytes;
}

/* pg_class.relpages of relid, in bytes. */
static double
search_table_bytes(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	double		bytes = 0;

	if (HeapTupleIsValid(tup))
	{
		bytes = (double) ((Form_pg_class) GETSTRUCT(tup))->relpages * BLCKSZ;
		ReleaseSysCache(tup);
	}
	return bytes;
}

/*
 * The workload's cost without indexes per byte of the tables its statements
 * read: the rate at which an index's bytes must save.
 */
static double
search_density(Search *s)
{
	List	   *relids = NIL;
	double		bytes = 0;
	ListCell   *lc;
	ListCell   *lc2;

	foreach(lc, s->ctx->planned)
	{
		foreach(lc2, ((AdvicePlanned *) lfirst(lc))->relids)
			relids = list_append_unique_oid(relids, lfirst_oid(lc2));
	}
	foreach(lc, relids)
		bytes += search_table_bytes(lfirst_oid(lc));
	return search_total(s) / Max(bytes, BLCKSZ);
}

static int64
search_config_size(Search *s)
{
	ListCell   *lc;
	int64		size = 0;

	foreach(lc, s->config)
		size += WhatifSizeBytes(((AdviceCandidate *) lfirst(lc))->windex);
	return size;
}

/* Does c fit in the budgets beside the configuration? */
static bool
search_fits(Search *s, AdviceCandidate *c)
{
	const AdviceSearchLimits *l = s->limits;

	return (l->max_indexes < 0 || list_length(s->config) < l->max_indexes) &&
		(l->max_size < 0 ||
		 search_config_size(s) + WhatifSizeBytes(c->windex) <= l->max_size);
}

/* Does a statement scan both c's table and that of the index just chosen? */
static bool
search_affected(Search *s, AdviceCandidate *c, AdviceCandidate *chosen)
{
	ListCell   *lc;

	foreach(lc, s->ctx->planned)
	{
		if (search_scans(lfirst(lc), c) && search_scans(lfirst(lc), chosen))
			return true;
	}
	return false;
}

/* Add c to the configuration; the candidates it affects need re-costing. */
static void
search_choose(Search *s, AdviceCandidate *c)
{
	ListCell   *lc;

	c->chosen = true;
	s->config = lappend(s->config, c);
	foreach(lc, s->ctx->planned)
	{
		if (search_scans(lfirst(lc), c))
			s->cur[foreach_current_index(lc)] = c->costs[foreach_current_index(lc)];
	}
	foreach(lc, s->pool)
	{
		AdviceCandidate *o = lfirst(lc);

		if (!o->chosen && search_affected(s, o, c))
			o->stale = true;
	}
}

/* The greedy pass: the best saving per byte, until none qualifies. */
static void
search_greedy(Search *s)
{
	for (;;)
	{
		AdviceCandidate *best = NULL;
		double		best_ratio = 0;
		ListCell   *lc;

		foreach(lc, s->pool)
		{
			AdviceCandidate *c = lfirst(lc);
			double		ratio;

			if (c->chosen)
				continue;
			if (c->stale)
			{
				if (s->work->plannings + search_need(s, c) > s->work->max_plannings)
				{
					s->work->truncated = true;
					return;
				}
				search_evaluate(s, c);
			}
			if (!search_worth(s, c->gain, c->improved, 0) || !search_fits(s, c))
				continue;
			ratio = c->gain / (double) Max(WhatifSizeBytes(c->windex), 1);
			if (best == NULL || ratio > best_ratio)
			{
				best = c;
				best_ratio = ratio;
			}
		}
		if (best == NULL)
			return;
		search_choose(s, best);
	}
}

/*
 * The removal pass: drop what the others made worthless, last chosen first.
 * With pay_bytes (the pruning pass), also what does not save at the rate
 * its bytes must (ADVICE_MIN_BYTE_SHARE).
 */
static void
search_remove(Search *s, bool pay_bytes)
{
	List	   *order = list_copy(s->config);
	double	   *without = palloc(sizeof(double) * s->n);
	int			k;

	for (k = list_length(order) - 1; k >= 0; k--)
	{
		AdviceCandidate *c = list_nth(order, k);
		List	   *rest = list_delete_ptr(list_copy(s->config), c);
		double		gain = 0;
		double		improved = 0;
		ListCell   *lc;

		if (s->work->plannings + search_need(s, c) > s->work->max_plannings)
		{
			s->work->truncated = true;
			break;
		}
		foreach(lc, s->ctx->planned)
		{
			AdvicePlanned *p = lfirst(lc);
			int			i = foreach_current_index(lc);

			without[i] = search_scans(p, c) ? search_cost(s, p, rest, NULL) : s->cur[i];
			if (without[i] > s->cur[i])
			{
				gain += p->stmt->calls * (without[i] - s->cur[i]);
				improved += p->stmt->calls * (without[i] + ADVICE_STATEMENT_COST);
			}
		}
		if (search_worth(s, gain - c->upkeep, improved,
						 pay_bytes ? WhatifSizeBytes(c->windex) : 0))
			continue;
		c->chosen = false;
		s->config = rest;
		memcpy(s->cur, without, sizeof(double) * s->n);
	}
}

/* Same operator class (or none) on two keys. */
static bool
search_same_opclass(AdviceQual *a, AdviceQual *b)
{
	if (a->opclass == NULL || b->opclass == NULL)
		return a->opclass == b->opclass;
	return strcmp(a->opclass, b->opclass) == 0;
}

/* Is the clause of q the clause of one of quals? */
static bool
search_has_clause(List *quals, AdviceQual *q)
{
	ListCell   *lc;

	foreach(lc, quals)
	{
		if (equal(((AdviceQual *) lfirst(lc))->clause, q->clause))
			return true;
	}
	return false;
}

/*
 * How n's predicate compares with c's: 0 the same conjuncts; 1 c's and
 * IS NOT NULL tests of keys besides (fewer rows, for statements that each
 * imply them: advice_rules.c adds them only so); -1 otherwise.
 */
static int
search_pred_cmp(AdviceCandidate *n, AdviceCandidate *c)
{
	bool		extra = false;
	ListCell   *lc;

	foreach(lc, c->pred)
	{
		if (!search_has_clause(n->pred, lfirst(lc)))
			return -1;
	}
	foreach(lc, n->pred)
	{
		AdviceQual *q = lfirst(lc);

		if (search_has_clause(c->pred, q))
			continue;
		if (!IsA(q->clause, NullTest) ||
			((NullTest *) q->clause)->nulltesttype != IS_NOT_NULL)
			return -1;
		extra = true;
	}
	return extra ? 1 : 0;
}

/*
 * Is n a narrower form of btree index c: same table, its keys lead c's,
 * its INCLUDE columns are among c's, the same predicate with fewer
 * columns, or with IS NOT NULL tests besides (fewer rows) and no more
 * columns; fewer bytes?
 */
static bool
search_narrower(AdviceCandidate *n, AdviceCandidate *c)
{
	int			pred = search_pred_cmp(n, c);
	int			ncols = list_length(n->keys) + list_length(n->include);
	int			ccols = list_length(c->keys) + list_length(c->include);
	ListCell   *ln;
	ListCell   *lc;

	if (n == c || n->chosen || n->gin || c->gin || n->relid != c->relid ||
		list_length(n->keys) > list_length(c->keys) || pred < 0 ||
		ncols > ccols || (ncols == ccols && pred == 0) ||
		WhatifSizeBytes(n->windex) >= WhatifSizeBytes(c->windex))
		return false;
	forboth(ln, n->keys, lc, c->keys)
	{
		/* cppcheck-suppress nullPointerRedundantCheck ; forboth stops at NULL */
		if (!AdviceSameKey(lfirst(ln), lfirst(lc)) ||
			!search_same_opclass(lfirst(ln), lfirst(lc)))
			return false;
	}
	foreach(ln, n->include)
	{
		if (!list_member_int(c->include, lfirst_int(ln)))
			return false;
	}
	return true;
}

/*
 * The saving of c added to the configuration rest, whose costs per
 * statement are without[]; c's costs go into c->costs, the cost before of
 * the statements it improves into *improved.
 */
static double
search_gain_over(Search *s, AdviceCandidate *c, List *rest, const double *without,
				 double *improved)
{
	List	   *with = lappend(list_copy(rest), c);
	double		gain = 0;
	ListCell   *lc;

	*improved = 0;
	foreach(lc, s->ctx->planned)
	{
		AdvicePlanned *p = lfirst(lc);
		int			i = foreach_current_index(lc);

		c->costs[i] = search_scans(p, c) ? search_cost(s, p, with, NULL) : without[i];
		if (c->costs[i] < without[i])
		{
			gain += p->stmt->calls * (without[i] - c->costs[i]);
			*improved += p->stmt->calls * (without[i] + ADVICE_STATEMENT_COST);
		}
	}
	list_free(with);
	return gain - search_upkeep(s, c);
}

/*
 * The narrowest worthwhile replacement for chosen index c: the narrower
 * form that saves the most among those saving at least as much per byte
 * as c in the configuration without c, or NULL (also when the planning
 * bound is reached: the search is then truncated).
 */
static AdviceCandidate *
search_narrow_one(Search *s, AdviceCandidate *c)
{
	List	   *rest = list_delete_ptr(list_copy(s->config), c);
	double	   *without = palloc(sizeof(double) * s->n);
	AdviceCandidate *best = NULL;
	double		best_gain = 0;
	double		gain_c;
	double		improved;
	ListCell   *lc;

	foreach(lc, s->ctx->planned)
	{
		AdvicePlanned *p = lfirst(lc);
		int			i = foreach_current_index(lc);

		without[i] = search_scans(p, c) ? search_cost(s, p, rest, NULL) : s->cur[i];
	}
	gain_c = search_gain_over(s, c, rest, without, &improved);
	foreach(lc, s->pool)
	{
		AdviceCandidate *n = lfirst(lc);
		double		gain_n;

		if (!search_narrower(n, c))
			continue;
		if (s->work->plannings + search_need(s, n) > s->work->max_plannings)
		{
			s->work->truncated = true;
			return NULL;
		}
		gain_n = search_gain_over(s, n, rest, without, &improved);
		if (search_worth(s, gain_n, improved, 0) &&
			gain_n / (double) Max(WhatifSizeBytes(n->windex), 1) >=
			gain_c / (double) Max(WhatifSizeBytes(c->windex), 1) &&
			(best == NULL || gain_n > best_gain))
		{
			best = n;
			best_gain = gain_n;
		}
	}
	if (best != NULL)
	{
		/* best->costs were overwritten by the later evaluations */
		search_gain_over(s, best, rest, without, &improved);
		memcpy(s->cur, best->costs, sizeof(double) * s->n);
	}
	list_free(rest);
	pfree(without);
	return best;
}

/* The narrowing pass: each chosen btree index, in turn, as narrow as it pays. */
static void
search_narrow(Search *s)
{
	ListCell   *lc;

	foreach(lc, s->config)
	{
		AdviceCandidate *c = lfirst(lc);
		AdviceCandidate *n;

		if (c->gin || s->work->plannings + search_need(s, c) > s->work->max_plannings)
			continue;
		while ((n = search_narrow_one(s, c)) != NULL)
		{
			c->chosen = false;
			n->chosen = true;
			n->upkeep = search_upkeep(s, n);
			lfirst(lc) = n;
			c = n;
		}
	}
}

/*
 * Plan every statement under the final configuration and split each one's
 * saving among the indexes its plan uses; set the work's totals.
 */
static void
search_attribute(Search *s)
{
	int			nconfig = list_length(s->config);
	bool	   *used = palloc(sizeof(bool) * Max(nconfig, 1));
	ListCell   *lc;
	ListCell   *lc2;

	foreach(lc, s->ctx->planned)
	{
		AdvicePlanned *p = lfirst(lc);
		double		cost = search_cost(s, p, s->config, used);
		double		saving = p->stmt->calls * (p->cost - cost);
		int			nused = 0;
		int			i;

		s->work->cost_before += p->stmt->calls * p->cost;
		s->work->cost_after += p->stmt->calls * cost;
		for (i = 0; i < nconfig; i++)
			nused += used[i];
		foreach(lc2, s->config)
		{
			AdviceCandidate *c = lfirst(lc2);

			if (!used[foreach_current_index(lc2)])
				continue;
			c->marginal += saving / nused;
			c->cost_before += p->stmt->calls * p->cost;
			c->served = lappend(c->served, p);
		}
	}
	foreach(lc, s->config)
	{
		AdviceCandidate *c = lfirst(lc);

		c->cost_after = c->cost_before - c->marginal;
	}
}

/* Add v to the pool unless an identical definition is there: then merge. */
static List *
search_pool_add(List *pool, AdviceCandidate *v, int n)
{
	ListCell   *lc;

	foreach(lc, pool)
	{
		AdviceCandidate *o = lfirst(lc);

		if (strcmp(o->ddl, v->ddl) == 0)
		{
			o->sources = list_concat_unique_ptr(o->sources, v->sources);
			return pool;
		}
	}
	v->costs = palloc0(sizeof(double) * Max(n, 1));
	v->stale = true;
	v->chosen = false;
	v->served = NIL;
	v->marginal = v->cost_before = v->cost_after = 0;
	return lappend(pool, v);
}

/*
 * The configuration chosen for ctx's recorded statements (AdviceCandidate *
 * with their marginal benefit and the statements they serve), within the
 * limits; the work done in *work.
 */
List *
AdviceSearch(AdviceContext *ctx, const AdviceSearchLimits *limits,
			 AdviceSearchWork *work)
{
	Search		s;
	ListCell   *lc;
	ListCell   *lc2;
	List	   *result = NIL;

	memset(&s, 0, sizeof(s));
	memset(work, 0, sizeof(AdviceSearchWork));
	s.ctx = ctx;
	s.limits = limits;
	s.work = work;
	s.n = list_length(ctx->planned);
	s.tables = AdviceCopyTables();
	s.cur = palloc(sizeof(double) * Max(s.n, 1));
	foreach(lc, ctx->planned)
		s.cur[foreach_current_index(lc)] = ((AdvicePlanned *) lfirst(lc))->cost;
	work->statements = s.n;
	s.density = search_density(&s);
	work->max_plannings = advice_max_plannings;
	s.plancxt = AllocSetContextCreate(CurrentMemoryContext, "sfcache advice search",
									  ALLOCSET_DEFAULT_SIZES);
	foreach(lc, list_concat(list_copy(ctx->candidates), AdviceMergeCandidates(ctx)))
	{
		foreach(lc2, AdviceAllVariants(ctx, lfirst(lc)))
			s.pool = search_pool_add(s.pool, lfirst(lc2), s.n);
	}
	work->candidates = list_length(s.pool);
	search_greedy(&s);
	search_remove(&s, false);
	search_narrow(&s);
	search_remove(&s, true);
	search_attribute(&s);
	foreach(lc, s.config)
	{
		AdviceCandidate *c = lfirst(lc);

		/* chosen, yet no plan uses it in the end: nothing to show for it */
		if (c->served != NIL)
			result = lappend(result, c);
	}
	work->chosen = list_length(result);
	MemoryContextDelete(s.plancxt);
	return result;
}
