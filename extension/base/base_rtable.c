/*-------------------------------------------------------------------------
 *
 * base_rtable.c
 *		The relations a query tree reads and the permissions they need,
 *		flattened over every query level (subqueries, CTEs, sublinks, the
 *		queries of views and row security policies) the way the planner
 *		flattens them into PlannedStmt.rtable and .permInfos.
 *
 * A plan that sfcache builds by hand (the cache plan) or a check it makes
 * without planning (whatif) must make the executor check what a real plan
 * would. On 15 each relation's range table entry carries its permissions;
 * from 16 on they are RTEPermissionInfo nodes in a list per query level,
 * which an entry points into by perminfoindex: flattening renumbers them
 * (compat.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/nodeFuncs.h"

#include "base/base.h"

typedef struct RtableContext
{
	List	   *rtable;			/* copies of the RTE_RELATION entries */
	List	   *perminfos;		/* every level's permission infos */
	int			offset;			/* where this level's perminfos start */
} RtableContext;

static bool
collect_walker(Node *node, RtableContext *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *query = (Query *) node;
		int			saved = ctx->offset;
		bool		result;

		ctx->offset = list_length(ctx->perminfos);
		ctx->perminfos = list_concat(ctx->perminfos,
									 copyObject(SfcQueryPermInfos(query)));
		result = query_tree_walker(query, collect_walker, ctx,
								   QTW_EXAMINE_RTES_BEFORE);
		ctx->offset = saved;
		return result;
	}
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		if (rte->rtekind == RTE_RELATION)
		{
			rte = copyObject(rte);
			SfcRtePermIndexShift(rte, ctx->offset);
			ctx->rtable = lappend(ctx->rtable, rte);
		}
		return false;
	}
	return expression_tree_walker(node, collect_walker, ctx);
}

/*
 * Copies of every relation entry of query, at any level, into *rtable,
 * and (16 and later) every level's permission infos into *perminfos, the
 * entries' perminfoindex renumbered to point into that one list.
 */
void
SfcCollectRelations(Query *query, List **rtable, List **perminfos)
{
	RtableContext ctx = {NIL, NIL, 0};

	(void) collect_walker((Node *) query, &ctx);
	*rtable = ctx.rtable;
	*perminfos = ctx.perminfos;
}

/* Error, as the executor would, unless the current user may run query. */
void
SfcCheckQueryPermissions(Query *query)
{
	List	   *rtable;
	List	   *perminfos;

	SfcCollectRelations(query, &rtable, &perminfos);
	(void) ExecCheckPermissions(rtable, perminfos, true);
}
