/*-------------------------------------------------------------------------
 *
 * cache_child_plan.c
 *		The plan a miss runs (the child), kept with a reusable cache plan,
 *		so that a prepared statement's miss plans nothing.
 *
 * A cache plan (cache_plan.c) plans nothing: the child is planned when an
 * execution misses. For a one-shot plan (the simple protocol) that is the
 * only planning, as without sfcache. A prepared statement's generic plan
 * is made once and run many times, and PostgreSQL plans nothing then; a
 * miss would plan the child at each execution. So the child of a generic
 * cache plan kept by the plan cache (its memory context a "CachedPlan")
 * is planned once, without parameter values, and kept in that context
 * until the plan cache drops the plan (a reset callback forgets it here).
 *
 * Whether the generic child serves, as PostgreSQL's plan cache decides
 * for a statement (plancache.c, choose_custom_plan): always under
 * plan_cache_mode = force_generic_plan or without parameters, never under
 * force_custom_plan; otherwise the generic child is kept if its cost is
 * below a custom child's (planned once, with the values of the miss that
 * decides) plus the planning cost a custom plan pays each time.
 *
 * The child may depend on more than the cache plan does (a SQL function
 * inlined into it reads other tables): it is kept only if its relations
 * and invalidation items are all the cache plan's, which the plan cache
 * watches; and never a transient plan, nor one that depends on the role
 * when the cache plan does not.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "optimizer/optimizer.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/plancache.h"

#include "cache/cache_internal.h"

/* One cache plan's child, keyed by the cache plan's node. */
typedef struct ChildPlan
{
	const CustomScan *node;		/* the key: lives in the plan's context */
	PlannedStmt *generic;		/* in that context, or NULL: plan each miss */
} ChildPlan;

static HTAB *child_plans = NULL;

/*
 * The kept children asked for last, by their node's address: a cold
 * statement's execution finds its child here without decoding the cache
 * plan's private list nor hashing (CacheChildPlanKept).
 */
#define KEPT_MEMO_SIZE 16
static ChildPlan kept_memo[KEPT_MEMO_SIZE];

static inline ChildPlan *
kept_memo_slot(const CustomScan *node)
{
	return &kept_memo[((uintptr_t) node / sizeof(CustomScan)) % KEPT_MEMO_SIZE];
}

/* The plan cache dropped the plan: forget its child. */
static void
forget_child(void *arg)
{
	const CustomScan *node = arg;
	ChildPlan  *memo = kept_memo_slot(node);

	if (memo->node == node)
		memo->node = NULL;
	if (child_plans != NULL)
		(void) hash_search(child_plans, &node, HASH_REMOVE, NULL);
}

/* The child kept with this cache plan node, if it is known to have one. */
PlannedStmt *
CacheChildPlanKept(const CustomScan *node)
{
	ChildPlan  *memo = kept_memo_slot(node);

	return memo->node == node ? memo->generic : NULL;
}

/* The child kept with node, remembered for CacheChildPlanKept. */
static PlannedStmt *
kept(const CustomScan *node, PlannedStmt *generic)
{
	ChildPlan  *memo = kept_memo_slot(node);

	memo->node = node;
	memo->generic = generic;
	return generic;
}

/* Is item in items? (equal() does not compare plan invalidation items.) */
static bool
has_inval_item(List *items, const PlanInvalItem *item)
{
	ListCell   *lc;

	foreach(lc, items)
	{
		const PlanInvalItem *other = lfirst(lc);

		if (other->cacheId == item->cacheId && other->hashValue == item->hashValue)
			return true;
	}
	return false;
}

/* Is everything the child depends on watched by the cache plan? */
static bool
depends_on_outer_only(const PlannedStmt *child, const PlannedStmt *outer)
{
	ListCell   *lc;

	if (child->transientPlan || (child->dependsOnRole && !outer->dependsOnRole))
		return false;
	foreach(lc, child->relationOids)
		if (!list_member_oid(outer->relationOids, lfirst_oid(lc)))
		return false;
	foreach(lc, child->invalItems)
		if (!has_inval_item(outer->invalItems, lfirst(lc)))
		return false;
	return true;
}

/* What a custom plan costs, planning included (plancache.c's fudge). */
static double
custom_cost(const PlannedStmt *custom)
{
	int			nrels = 0;
	ListCell   *lc;

	foreach(lc, custom->rtable)
		nrels += ((RangeTblEntry *) lfirst(lc))->rtekind == RTE_RELATION;
	return custom->planTree->total_cost + 1000.0 * cpu_operator_cost * (nrels + 1);
}

/*
 * Decide once for this cache plan: the generic child, or NULL (plan each
 * miss). *custom is set to a custom child planned on the way, for this
 * miss to run.
 */
static PlannedStmt *
decide(const CacheScanPrivate *priv, const PlannedStmt *outer, ParamListInfo params,
	   PlannedStmt **custom)
{
	PlannedStmt *generic = CachePlanSavedQuery(priv, NULL);
	bool		has_params = params != NULL && params->numParams > 0;

	*custom = NULL;
	if (!depends_on_outer_only(generic, outer))
		return NULL;
	if (!has_params || plan_cache_mode == PLAN_CACHE_MODE_FORCE_GENERIC_PLAN ||
		(priv->cursor_options & CURSOR_OPT_GENERIC_PLAN))
		return generic;
	if (plan_cache_mode == PLAN_CACHE_MODE_FORCE_CUSTOM_PLAN ||
		(priv->cursor_options & CURSOR_OPT_CUSTOM_PLAN))
		return NULL;
	*custom = CachePlanSavedQuery(priv, params);
	return generic->planTree->total_cost < custom_cost(*custom) ? generic : NULL;
}

/*
 * The child a miss of this execution runs: the one kept with the cache plan
 * node, else one planned now with the execution's parameter values.
 */
PlannedStmt *
CacheChildPlan(const CustomScan *node, const CacheScanPrivate *priv,
			   const PlannedStmt *outer, ParamListInfo params)
{
	MemoryContext plan_cxt = GetMemoryChunkContext((void *) node);
	ChildPlan  *entry;
	bool		found;
	PlannedStmt *custom;
	MemoryContextCallback *forget;

	/* a generic plan the plan cache keeps; anything else plans each time */
	if (!priv->generic_plan || strcmp(plan_cxt->name, "CachedPlan") != 0)
		return CachePlanSavedQuery(priv, params);
	if (child_plans == NULL)
	{
		HASHCTL		info;

		info.keysize = sizeof(const CustomScan *);
		info.entrysize = sizeof(ChildPlan);
		info.hcxt = TopMemoryContext;
		child_plans = hash_create("sfcache child plans", 64, &info,
								  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	entry = hash_search(child_plans, &node, HASH_FIND, &found);
	if (entry != NULL)
		return entry->generic ? kept(node, entry->generic) : CachePlanSavedQuery(priv, params);

	entry = hash_search(child_plans, &node, HASH_ENTER, &found);
	entry->generic = NULL;
	forget = MemoryContextAlloc(plan_cxt, sizeof(MemoryContextCallback));
	forget->func = forget_child;
	forget->arg = (void *) node;
	MemoryContextRegisterResetCallback(plan_cxt, forget);

	PG_TRY();
	{
		PlannedStmt *generic = decide(priv, outer, params, &custom);

		if (generic != NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(plan_cxt);

			entry->generic = copyObject(generic);
			MemoryContextSwitchTo(old);
		}
	}
	PG_CATCH();
	{
		/* planning failed: the next miss plans as usual */
		(void) hash_search(child_plans, &node, HASH_REMOVE, NULL);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (entry->generic != NULL)
		return kept(node, entry->generic);
	return custom != NULL ? custom : CachePlanSavedQuery(priv, params);
}
