/*-------------------------------------------------------------------------
 *
 * cache_cacheable.c
 *		Whether a statement may be served from or stored in the cache, and
 *		which relations it reads (doc/DESIGN.md, "When a statement may be
 *		served or stored").
 *
 * Checked when the statement is planned: a plain top-level SELECT (no row
 * locks, no data-modifying CTE, no opt-out comment), all the code it can
 * run IMMUTABLE or named in sfcache.immutable_functions (cache_code.c)
 * and none of it reading the catalogs despite its label (cache_catalog.c),
 * including what views and row security policies bring in after
 * rewriting, and only permanent user tables, partitioned tables, views and
 * materialized views, none excluded, with no temporary or foreign member
 * in their hierarchies. Checked at each execution, since a cached plan
 * outlives them: the isolation level, recovery, the transaction's own
 * writes, and the members of the hierarchies read.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/sysattr.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "parser/scansup.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/varlena.h"
#include "utils/lsyscache.h"

#include "cache/cache_internal.h"

typedef struct WalkContext
{
	CacheBypass bypass;
	List	   *relids;
	List	   *inh_roots;		/* relations read with their descendants */
	List	   *types;			/* types whose code was checked */
	int			ttl_override_s;
	bool		ttl_default;
} WalkContext;

static bool cacheable_walker(Node *node, WalkContext *ctx);

/*
 * The members of an inheritance or partition hierarchy are not listed as
 * relations read: a write to one bumps the generations of its ancestors
 * too (cache_inval_writeset.c). They must all be permanent tables of this server, though:
 * a temporary member holds one session's rows, which another session's
 * execution does not see, and a foreign one is written where no hook sees
 * it. Checked when planned and again at each execution, since members
 * come and go without the plan knowing.
 */
static CacheBypass
check_hierarchy_member(Oid relid)
{
	if (get_rel_persistence(relid) == RELPERSISTENCE_TEMP)
		return CACHE_BYPASS_TEMP_RELATION;
	if (get_rel_relkind(relid) == RELKIND_FOREIGN_TABLE)
		return CACHE_BYPASS_FOREIGN_RELATION;
	return CACHE_BYPASS_NONE;
}

CacheBypass
CacheCheckHierarchies(List *inh_roots)
{
	ListCell   *lc;

	foreach(lc, inh_roots)
	{
		Oid			root = lfirst_oid(lc);
		List	   *members;
		ListCell   *lm;
		CacheBypass why = CACHE_BYPASS_NONE;

		if (!has_subclass(root))
			continue;
		members = find_all_inheritors(root, NoLock, NULL);
		foreach(lm, members)
		{
			if ((why = check_hierarchy_member(lfirst_oid(lm))) != CACHE_BYPASS_NONE)
				break;
		}
		list_free(members);
		if (why != CACHE_BYPASS_NONE)
			return why;
	}
	return CACHE_BYPASS_NONE;
}

/* Add a relation read; one read with its descendants roots a hierarchy. */
static void
add_relation(WalkContext *ctx, Oid relid, char relkind, bool inh)
{
	ctx->relids = list_append_unique_oid(ctx->relids, relid);
	if (inh && (relkind == RELKIND_RELATION || relkind == RELKIND_PARTITIONED_TABLE))
		ctx->inh_roots = list_append_unique_oid(ctx->inh_roots, relid);
}

static CacheBypass
check_relation(RangeTblEntry *rte, WalkContext *ctx)
{
	char		relkind = get_rel_relkind(rte->relid);
	int			ttl;

	if (rte->relid < FirstNormalObjectId)
		return CACHE_BYPASS_RELATION_KIND;
	if (relkind == RELKIND_FOREIGN_TABLE)
		return CACHE_BYPASS_FOREIGN_RELATION;
	if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE &&
		relkind != RELKIND_VIEW && relkind != RELKIND_MATVIEW)
		return CACHE_BYPASS_RELATION_KIND;
	if (get_rel_persistence(rte->relid) == RELPERSISTENCE_TEMP)
		return CACHE_BYPASS_TEMP_RELATION;
	if (rte->tablesample != NULL)
		return CACHE_BYPASS_NOT_IMMUTABLE;
	if (CacheRelationIsExcluded(rte->relid))
		return CACHE_BYPASS_EXCLUDED;
	/* views hold no rows: the TTLs are their tables' */
	ttl = (relkind == RELKIND_VIEW) ? -1 : CacheRelationTtl(rte->relid);
	if (ttl == 0)
		ctx->ttl_default = true;
	else if (ttl > 0 && (ctx->ttl_override_s == 0 || ttl < ctx->ttl_override_s))
		ctx->ttl_override_s = ttl;
	add_relation(ctx, rte->relid, relkind, rte->inh);
	return CACHE_BYPASS_NONE;
}

static CacheBypass
check_query(Query *query)
{
	if (query->commandType != CMD_SELECT || query->utilityStmt != NULL ||
		query->hasModifyingCTE)
		return CACHE_BYPASS_NOT_SELECT;
	if (query->rowMarks != NIL)
		return CACHE_BYPASS_ROW_LOCK;
	return CACHE_BYPASS_NONE;
}

/*
 * Nodes that read the clock, the session or a sequence, and the system
 * columns that change without a write: xmax with every row lock (a foreign
 * key check takes one), xmin when VACUUM freezes the row, cmin and cmax
 * (combo command ids are local to a backend).
 */
static bool
is_session_dependent(Node *node)
{
	switch (nodeTag(node))
	{
		case T_Var:
			{
				AttrNumber	attno = ((Var *) node)->varattno;

				return attno == MinTransactionIdAttributeNumber ||
					attno == MaxTransactionIdAttributeNumber ||
					attno == MinCommandIdAttributeNumber ||
					attno == MaxCommandIdAttributeNumber;
			}
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
		if ((ctx->bypass = check_query((Query *) node)) != CACHE_BYPASS_NONE)
			return true;
		return query_tree_walker((Query *) node, cacheable_walker, ctx,
								 QTW_EXAMINE_RTES_BEFORE | QTW_EXAMINE_SORTGROUP);
	}
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		if (rte->rtekind == RTE_RELATION &&
			(ctx->bypass = check_relation(rte, ctx)) != CACHE_BYPASS_NONE)
			return true;
		return false;
	}
	if (is_session_dependent(node) || CacheNodeRunsMutableCode(node, &ctx->types))
	{
		ctx->bypass = CACHE_BYPASS_NOT_IMMUTABLE;
		return true;
	}
	if (CacheNodeReadsCatalogs(node))
	{
		ctx->bypass = CACHE_BYPASS_CATALOG_LOOKUP;
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

/* Does the comment text between start and end name sfcache:off? */
static bool
names_opt_out(const char *start, const char *end)
{
	for (const char *q = start; q + 11 <= end; q++)
		if (strncmp(q, "sfcache:off", 11) == 0)
			return true;
	return false;
}

/*
 * Skip blanks and comments (-- to the end of the line, and nested slash-star
 * ones, as the scanner reads them); note whether one names sfcache:off.
 */
static const char *
skip_blanks(const char *p, bool *opt_out)
{
	for (;;)
	{
		while (scanner_isspace(*p))
			p++;
		if (p[0] == '-' && p[1] == '-')
		{
			const char *end = p + strcspn(p, "\n");

			*opt_out |= names_opt_out(p + 2, end);
			p = end;
		}
		else if (p[0] == '/' && p[1] == '*')
		{
			const char *q = p + 2;
			int			depth = 1;

			while (*q != '\0' && depth > 0)
			{
				if (q[0] == '/' && q[1] == '*')
					depth++, q++;
				else if (q[0] == '*' && q[1] == '/')
					depth--, q++;
				q++;
			}
			*opt_out |= names_opt_out(p + 2, q);
			p = q;
		}
		else
			return p;
	}
}

/* Is the keyword word (lower case) at p, as a whole word? */
static bool
at_keyword(const char *p, const char *word)
{
	size_t		len = strlen(word);

	return pg_strncasecmp(p, word, len) == 0 &&
		!(isalnum((unsigned char) p[len]) || p[len] == '_' || p[len] == '$' ||
		  IS_HIGHBIT_SET(p[len]));
}

/* Skip EXPLAIN's option list "( ... )" at p, its comments included. */
static const char *
skip_explain_options(const char *p, bool *opt_out)
{
	int			depth = 0;

	do
	{
		p = skip_blanks(p, opt_out);
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		else if (*p == '\'' || *p == '"')
		{
			const char *close = strchr(p + 1, *p);

			p = close ? close : p + strlen(p) - 1;
		}
		else if (*p == '\0')
			return p;
		p++;
	} while (depth > 0);
	return p;
}

/*
 * Does a slash-star comment naming sfcache:off end just before p, with only
 * blanks and other such comments between? From 18 on a statement's text
 * starts at its first word, and its leading comments stand before it (up to
 * 17 they are part of it, and this finds nothing: a semicolon or the
 * string's start comes first).
 */
static bool
preceding_comment_opts_out(const char *query_string, const char *p)
{
	for (;;)
	{
		const char *open;

		while (p > query_string && scanner_isspace(p[-1]))
			p--;
		if (p - query_string < 4 || p[-1] != '/' || p[-2] != '*')
			return false;
		for (open = p - 4; open > query_string && strncmp(open, "/*", 2) != 0; open--)
			;
		if (strncmp(open, "/*", 2) != 0)
			return false;
		if (names_opt_out(open + 2, p - 2))
			return true;
		p = open;
	}
}

/*
 * True if a comment naming sfcache:off stands before the statement's
 * first token: at its start (or, from 18 on, just before it), or anywhere
 * in an EXPLAIN before the explained statement (EXPLAIN (ANALYZE), then the
 * comment, then SELECT).
 */
static bool
has_opt_out_comment(Query *query, const char *query_string)
{
	const char *p;
	bool		opt_out = false;
	int			location = Max(query->stmt_location, 0);

	if (query_string == NULL)
		return false;

	/*
	 * An EXPLAIN's query is read from the EXPLAIN's start: up to 17 it has no
	 * location of its own, from 18 on its own lies inside the EXPLAIN's.
	 */
	if (CacheExplaining() && query_string == debug_query_string &&
		((query->stmt_location <= 0 && query->stmt_len == 0) ||
		 (CacheExplainLocation() >= 0 && CacheExplainLocation() <= query->stmt_location)))
		location = Max(CacheExplainLocation(), 0);
	if ((size_t) location > strlen(query_string))
		location = 0;
	p = skip_blanks(query_string + location, &opt_out);
	if (at_keyword(p, "explain"))
	{
		p = skip_blanks(p + 7, &opt_out);
		if (*p == '(')
			p = skip_blanks(skip_explain_options(p, &opt_out), &opt_out);
		while (at_keyword(p, "analyze") || at_keyword(p, "analyse") ||
			   at_keyword(p, "verbose"))
			p = skip_blanks(p + 7, &opt_out);
	}
	return opt_out || preceding_comment_opts_out(query_string, query_string + location);
}

/* What can be decided when the statement is planned. */
void
CacheCheckCacheable(Query *query, const char *query_string, CacheableInfo *info)
{
	WalkContext ctx = {CACHE_BYPASS_NONE, NIL, NIL, NIL, 0, false};

	info->relids = NIL;
	info->inh_roots = NIL;
	info->ttl_override_s = 0;
	info->ttl_default = true;
	if (has_opt_out_comment(query, query_string))
		info->bypass = CACHE_BYPASS_OPT_OUT;
	else if (cacheable_walker((Node *) query, &ctx))
		info->bypass = ctx.bypass;
	else if (returns_anonymous_records(query))
		info->bypass = CACHE_BYPASS_RECORD_RESULT;
	else if (list_length(ctx.relids) > CACHE_MAX_RELS)
		info->bypass = CACHE_BYPASS_TOO_MANY_RELATIONS;
	else
		info->bypass = CacheCheckHierarchies(ctx.inh_roots);
	if (info->bypass == CACHE_BYPASS_NONE)
	{
		info->relids = ctx.relids;
		info->inh_roots = ctx.inh_roots;
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
CacheStatementTtl(int ttl_override_s, bool ttl_default)
{
	if (ttl_override_s == 0)
		return cache_ttl_s;
	return ttl_default ? Min(ttl_override_s, cache_ttl_s) : ttl_override_s;
}

static CacheStandbyCheck standby_check = NULL;

/* Did the last leader's CacheCheckStandby pass under the WAL's rule? */
static bool leader_under_wal_rule = false;

/* From an Init: the rule a hot standby caches under (the Redis bus). */
void
CacheRegisterStandbyCheck(CacheStandbyCheck check)
{
	standby_check = check;
}

/*
 * On a hot standby: its replay fires no hook, so only the invalidations
 * replayed from the WAL (cache_inval_wal_standby.c) or a registered rule
 * (the Redis bus) can say a result is as fresh as the statement's
 * snapshot; with the bus, the standby must also have replayed past what
 * its invalidations asked for the relations read. A leader (storing) also
 * waits for the writers whose WAL record was replayed. Called after the
 * generations are read and before the snapshot is taken
 * (cache_inval_counters.c's order).
 */
CacheBypass
CacheCheckStandby(List *relids, bool storing)
{
	CacheBypass why;

	if (storing)
	{
		leader_under_wal_rule = CacheWalTrusted();
		if (leader_under_wal_rule)
			return CacheWalStoreCheck();
	}
	else if (CacheWalTrusted())
		return CACHE_BYPASS_NONE;
	if (standby_check == NULL)
		return CACHE_BYPASS_STANDBY;
	why = standby_check();
	if (why != CACHE_BYPASS_NONE)
		return why;
	if (!CacheReplayedPast(relids, GetXLogReplayRecPtr(NULL)))
		return CACHE_BYPASS_STANDBY_BEHIND;
	return CACHE_BYPASS_NONE;
}

/*
 * On a hot standby, for a leader, with the snapshot it executed with:
 * may its result be stored (under the WAL's rule, replay may have begun
 * inside a writer's commit: cache_inval_wal_standby.c)?
 */
bool
CacheCheckStandbySnapshot(Snapshot snapshot)
{
	return !leader_under_wal_rule || CacheWalSnapshotPastStart(snapshot);
}

/* What must be checked again at each execution of a cached plan. */
CacheBypass
CacheCheckRuntimeBypass(List *relids)
{
	if (cache_cache_mode == CACHE_MODE_OFF)
		return CACHE_BYPASS_DISABLED;
	if (XactIsoLevel != XACT_READ_COMMITTED)
		return CACHE_BYPASS_ISOLATION;
	if (RecoveryInProgress())
	{
		CacheBypass why = CacheCheckStandby(relids, false);

		if (why != CACHE_BYPASS_NONE)
			return why;
	}
	if (CacheTransactionWroteAny(relids))
		return CACHE_BYPASS_OWN_WRITE;
	return CACHE_BYPASS_NONE;
}
