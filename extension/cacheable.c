/*-------------------------------------------------------------------------
 *
 * cacheable.c
 *		Whether a statement may be served from or stored in the cache, and
 *		which relations it reads (DESIGN.md, "When a statement may be
 *		served or stored").
 *
 * Checked when the statement is planned: a plain top-level SELECT (no row
 * locks, no data-modifying CTE, no opt-out comment), every function and
 * operator IMMUTABLE or named in sfcache.immutable_functions, including those
 * that views and row security policies bring in after rewriting, and only permanent user tables, partitioned
 * tables, views and materialized views, none excluded. Checked at each
 * execution, since a cached plan outlives them: the isolation level,
 * recovery, and the transaction's own writes.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/varlena.h"
#include "utils/lsyscache.h"

#include "sfcache.h"

typedef struct WalkContext
{
	SfcBypass	bypass;
	List	   *relids;
	int			ttl_override_s;
	bool		ttl_default;
} WalkContext;

static bool cacheable_walker(Node *node, WalkContext *ctx);

/* Is the function named in sfcache.immutable_functions? */
static bool
allowed_by_setting(Oid funcid)
{
	char	   *names;
	List	   *list;
	ListCell   *lc;
	const char *name = get_func_name(funcid);
	const char *schema = get_namespace_name(get_func_namespace(funcid));
	bool		allowed = false;

	if (sfc_immutable_functions == NULL || sfc_immutable_functions[0] == '\0' ||
		name == NULL || schema == NULL)
		return false;
	names = pstrdup(sfc_immutable_functions);
	if (!SplitIdentifierString(names, ',', &list))
		return false;
	foreach(lc, list)
	{
		const char *entry = lfirst(lc);
		const char *dot = strchr(entry, '.');

		if (dot == NULL ? strcmp(entry, name) == 0 :
			(strncmp(entry, schema, dot - entry) == 0 &&
			 schema[dot - entry] == '\0' && strcmp(dot + 1, name) == 0))
			allowed = true;
	}
	return allowed;
}

static bool
not_immutable(Oid funcid, void *context)
{
	return func_volatile(funcid) != PROVOLATILE_IMMUTABLE &&
		!allowed_by_setting(funcid);
}

/* Add a relation read, with the inheritance children it expands to. */
static void
add_relation(WalkContext *ctx, Oid relid, bool inh)
{
	ctx->relids = list_append_unique_oid(ctx->relids, relid);
	if (inh && get_rel_relkind(relid) == RELKIND_RELATION && has_subclass(relid))
		ctx->relids = list_concat_unique_oid(ctx->relids,
											 find_all_inheritors(relid, NoLock, NULL));
}

static SfcBypass
check_relation(RangeTblEntry *rte, WalkContext *ctx)
{
	char		relkind = get_rel_relkind(rte->relid);
	int			ttl;

	if (rte->relid < FirstNormalObjectId)
		return SFC_BYPASS_RELATION_KIND;
	if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE &&
		relkind != RELKIND_VIEW && relkind != RELKIND_MATVIEW)
		return SFC_BYPASS_RELATION_KIND;
	if (get_rel_persistence(rte->relid) == RELPERSISTENCE_TEMP)
		return SFC_BYPASS_TEMP_RELATION;
	if (rte->tablesample != NULL)
		return SFC_BYPASS_NOT_IMMUTABLE;
	if (RelationIsExcluded(rte->relid))
		return SFC_BYPASS_EXCLUDED;
	/* views hold no rows: the TTLs are their tables' */
	ttl = (relkind == RELKIND_VIEW) ? -1 : RelationTtl(rte->relid);
	if (ttl == 0)
		ctx->ttl_default = true;
	else if (ttl > 0 && (ctx->ttl_override_s == 0 || ttl < ctx->ttl_override_s))
		ctx->ttl_override_s = ttl;
	add_relation(ctx, rte->relid, rte->inh);
	return SFC_BYPASS_NONE;
}

static SfcBypass
check_query(Query *query)
{
	if (query->commandType != CMD_SELECT || query->utilityStmt != NULL ||
		query->hasModifyingCTE)
		return SFC_BYPASS_NOT_SELECT;
	if (query->rowMarks != NIL)
		return SFC_BYPASS_ROW_LOCK;
	return SFC_BYPASS_NONE;
}

/* Nodes that read the clock, the session or a sequence. */
static bool
is_session_dependent(Node *node)
{
	switch (nodeTag(node))
	{
		case T_SQLValueFunction:
		case T_NextValueExpr:
		case T_CurrentOfExpr:
			return true;
		case T_Param:
			return ((Param *) node)->paramkind != PARAM_EXTERN &&
				((Param *) node)->paramkind != PARAM_EXEC &&
				((Param *) node)->paramkind != PARAM_SUBLINK;
		default:
			return false;
	}
}

static bool
cacheable_walker(Node *node, WalkContext *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		if ((ctx->bypass = check_query((Query *) node)) != SFC_BYPASS_NONE)
			return true;
		return query_tree_walker((Query *) node, cacheable_walker, ctx,
								 QTW_EXAMINE_RTES_BEFORE);
	}
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		if (rte->rtekind == RTE_RELATION &&
			(ctx->bypass = check_relation(rte, ctx)) != SFC_BYPASS_NONE)
			return true;
		return false;
	}
	if (is_session_dependent(node) ||
		check_functions_in_node(node, not_immutable, NULL))
	{
		ctx->bypass = SFC_BYPASS_NOT_IMMUTABLE;
		return true;
	}
	return expression_tree_walker(node, cacheable_walker, ctx);
}

/* Anonymous record types are blessed per backend: another could not read them. */
static bool
returns_anonymous_records(Query *query)
{
	ListCell   *lc;

	foreach(lc, query->targetList)
	{
		TargetEntry *tle = lfirst(lc);
		Oid			type = getBaseType(exprType((Node *) tle->expr));

		if (!tle->resjunk &&
			(type == RECORDOID || type == RECORDARRAYOID ||
			 (type_is_rowtype(type) && !OidIsValid(get_typ_typrelid(type)))))
			return true;
	}
	return false;
}

/* True if the statement's text starts with a comment naming sfcache:off. */
static bool
has_opt_out_comment(Query *query, const char *query_string)
{
	const char *p;
	const char *end;

	if (query_string == NULL)
		return false;
	p = query_string + Max(query->stmt_location, 0);
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (strncmp(p, "/*", 2) != 0 || (end = strstr(p, "*/")) == NULL)
		return false;
	for (const char *q = p + 2; q + 11 <= end; q++)
		if (strncmp(q, "sfcache:off", 11) == 0)
			return true;
	return false;
}

/* What can be decided when the statement is planned. */
void
CheckCacheable(Query *query, const char *query_string, CacheableInfo *info)
{
	WalkContext ctx = {SFC_BYPASS_NONE, NIL, 0, false};

	info->relids = NIL;
	info->ttl_override_s = 0;
	info->ttl_default = true;
	if (has_opt_out_comment(query, query_string))
		info->bypass = SFC_BYPASS_OPT_OUT;
	else if (cacheable_walker((Node *) query, &ctx))
		info->bypass = ctx.bypass;
	else if (returns_anonymous_records(query))
		info->bypass = SFC_BYPASS_RECORD_RESULT;
	else if (list_length(ctx.relids) > SFC_MAX_RELS)
		info->bypass = SFC_BYPASS_TOO_MANY_RELATIONS;
	else
	{
		info->bypass = SFC_BYPASS_NONE;
		info->relids = ctx.relids;
		info->ttl_override_s = ctx.ttl_override_s;
		info->ttl_default = ctx.ttl_default || ctx.ttl_override_s == 0;
	}
}

/*
 * A statement's TTL, at execution (sfcache.ttl may have changed since the
 * plan): each relation's own TTL, sfcache.set_ttl()'s or else sfcache.ttl,
 * and the smallest of them.
 */
int
StatementTtl(int ttl_override_s, bool ttl_default)
{
	if (ttl_override_s == 0)
		return sfc_ttl_s;
	return ttl_default ? Min(ttl_override_s, sfc_ttl_s) : ttl_override_s;
}

/* What must be checked again at each execution of a cached plan. */
SfcBypass
CheckRuntimeBypass(List *relids)
{
	if (sfc_cache_mode == SFC_CACHE_OFF)
		return SFC_BYPASS_DISABLED;
	if (XactIsoLevel != XACT_READ_COMMITTED)
		return SFC_BYPASS_ISOLATION;
	if (RecoveryInProgress())
		return SFC_BYPASS_STANDBY;
	if (TransactionWroteAny(relids))
		return SFC_BYPASS_OWN_WRITE;
	return SFC_BYPASS_NONE;
}
