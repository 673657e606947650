/*-------------------------------------------------------------------------
 *
 * cache_tags.c
 *		What a cached result depends on, row by row: for each relation a
 *		statement reads, either all its rows, or only the rows whose
 *		tracked column equals one of some constants or parameters; and,
 *		at execution, the invalidation counters (cache_inval_counters.c)
 *		that stand for those rows.
 *
 * The rule (doc/DESIGN.md, "Invalidation by key values"): if every
 * occurrence of a relation in the statement is restricted by a top-level
 * equality of one of its tracked columns with constants or parameters,
 * the result depends on that relation only through the tags (relation,
 * column, value), plus the counter of its writes whose rows were not
 * captured. A restriction counts where it filters the occurrence's rows:
 *
 * - a conjunct of WHERE filters every relation of its query level, on
 *   either side of any join, since an equality with a constant is strict:
 *   a row joined or null-extended with another value of the column never
 *   survives it;
 * - a conjunct of JOIN ... ON filters both sides of an inner join and the
 *   nullable side of an outer join (a row of that side with another value
 *   matches nothing); never the preserved side, nor either side of a FULL
 *   JOIN;
 * - a row security qual filters its own relation;
 * - a column equal to another in a WHERE or inner-join conjunct (same
 *   type and collation, hashable equality) inherits the other's values;
 * - a restriction on a column of a subquery in FROM (a view, after
 *   rewriting) that is a plain column of a relation of the subquery
 *   filters that relation, when the subquery has no grouping, aggregate,
 *   window function, DISTINCT, LIMIT, set operation or set-returning
 *   function in its target list.
 *
 * The equality must be a member of the column type's default hash operator
 * family, in the column's collation, which must be deterministic; the
 * value is then hashed with that family's function for its own type, so
 * it names the same tag as a row whose column equals it (cache_capture.c
 * hashes the row's value with the column type's function of the family).
 * Anything else, and anything this file is unsure of, depends on the
 * whole relation.
 *
 * One tag is enough: an occurrence restricted on several tracked columns
 * depends on one of them only, the most selective by pg_statistic (the
 * smallest share of rows its values stand for: values x (1 - null_frac) /
 * n_distinct), or without statistics on both, the one with the fewest
 * values, then the lowest column number. A plan made before ANALYZE keeps
 * its choice until the plan is invalidated (ANALYZE does that).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "cache/cache_internal.h"

/* A column compared with constants or parameters, in one query level. */
typedef struct Restriction
{
	Index		varno;
	AttrNumber	attno;
	Oid			opno;
	Oid			inputcollid;
	List	   *values;			/* Const or Param nodes (no RelabelType) */
	List	   *value_types;	/* OIDs: each value's type as compared */
} Restriction;

/* A conjunct and the range table entries it filters. */
typedef struct ScopedQual
{
	Node	   *qual;
	Bitmapset  *scope;
	bool		equivalence;	/* may a Var = Var in it join two classes? */
} ScopedQual;

/* One relation's tags, as collected. */
typedef struct RelationTags
{
	Oid			relid;
	bool		whole;
	List	   *tags;			/* of list(String attname, Integer hashproc,
								 * Integer collid, value node) */
} RelationTags;

typedef struct TagsContext
{
	List	   *relations;		/* RelationTags */
} TagsContext;

static void analyze_level(TagsContext *ctx, Query *query, List *pushed);

static RelationTags *
relation_tags(TagsContext *ctx, Oid relid)
{
	ListCell   *lc;
	RelationTags *rtags;

	foreach(lc, ctx->relations)
	{
		rtags = lfirst(lc);
		if (rtags->relid == relid)
			return rtags;
	}
	rtags = palloc0(sizeof(RelationTags));
	rtags->relid = relid;
	ctx->relations = lappend(ctx->relations, rtags);
	return rtags;
}

/* Every base range table entry under a join tree node. */
static Bitmapset *
rels_under(Node *node)
{
	Bitmapset  *rels = NULL;

	if (node == NULL)
		return NULL;
	if (IsA(node, RangeTblRef))
		return bms_make_singleton(((RangeTblRef *) node)->rtindex);
	if (IsA(node, FromExpr))
	{
		ListCell   *lc;

		foreach(lc, ((FromExpr *) node)->fromlist)
			rels = bms_join(rels, rels_under(lfirst(lc)));
		return rels;
	}
	if (IsA(node, JoinExpr))
		return bms_join(rels_under(((JoinExpr *) node)->larg),
						rels_under(((JoinExpr *) node)->rarg));
	return NULL;
}

static void
add_conjuncts(List **quals, Node *expr, Bitmapset *scope, bool equivalence)
{
	ListCell   *lc;

	foreach(lc, make_ands_implicit((Expr *) expr))
	{
		ScopedQual *sq = palloc(sizeof(ScopedQual));

		sq->qual = lfirst(lc);
		sq->scope = scope;
		sq->equivalence = equivalence;
		*quals = lappend(*quals, sq);
	}
}

/* The conjuncts of a join tree, each with the entries it filters. */
static void
collect_quals(Node *node, List **quals)
{
	if (node == NULL || IsA(node, RangeTblRef))
		return;
	if (IsA(node, FromExpr))
	{
		FromExpr   *f = (FromExpr *) node;
		ListCell   *lc;

		if (f->quals)
			add_conjuncts(quals, f->quals, rels_under(node), true);
		foreach(lc, f->fromlist)
			collect_quals(lfirst(lc), quals);
	}
	else if (IsA(node, JoinExpr))
	{
		JoinExpr   *j = (JoinExpr *) node;
		Bitmapset  *scope = NULL;

		if (j->jointype == JOIN_INNER || j->jointype == JOIN_RIGHT)
			scope = bms_join(scope, rels_under(j->larg));
		if (j->jointype == JOIN_INNER || j->jointype == JOIN_LEFT)
			scope = bms_join(scope, rels_under(j->rarg));
		if (j->quals && scope != NULL)
			add_conjuncts(quals, j->quals, scope, j->jointype == JOIN_INNER);
		collect_quals(j->larg, quals);
		collect_quals(j->rarg, quals);
	}
}

/*
 * A plain column of this level, through join aliases (USING columns of
 * inner joins are a column of one side): its entry and number. Without a
 * query (a plan's scan qual), a Var is the column it names.
 */
static bool
resolve_column(Query *query, Node *node, Index *varno, AttrNumber *attno)
{
	while (node && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	if (node == NULL || !IsA(node, Var))
		return false;
	for (;;)
	{
		Var		   *var = (Var *) node;
		RangeTblEntry *rte;

		if (var->varlevelsup != 0 || var->varattno <= 0)
			return false;
		if (query == NULL)
		{
			*varno = var->varno;
			*attno = var->varattno;
			return true;
		}
		if (var->varno < 1 || var->varno > list_length(query->rtable))
			return false;
		rte = rt_fetch(var->varno, query->rtable);
		if (rte->rtekind != RTE_JOIN)
		{
			*varno = var->varno;
			*attno = var->varattno;
			return true;
		}
		if (var->varattno > list_length(rte->joinaliasvars))
			return false;
		node = list_nth(rte->joinaliasvars, var->varattno - 1);
		if (node == NULL || !IsA(node, Var) ||
			exprType(node) != var->vartype || exprCollation(node) != var->varcollid)
			return false;
	}
}

/* A constant or an external parameter, and the type it is compared as. */
static bool
comparable_value(Node *node, Node **value, Oid *type)
{
	*type = exprType(node);
	while (node && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	if (node == NULL)
		return false;
	if (IsA(node, Const) ||
		(IsA(node, Param) && ((Param *) node)->paramkind == PARAM_EXTERN))
	{
		*value = node;
		return true;
	}
	return false;
}

/* The elements of an IN list or = ANY(array) of constants and parameters. */
static bool
comparable_values(Node *node, List **values, List **types)
{
	Node	   *value;
	Oid			type;

	*values = *types = NIL;
	if (IsA(node, ArrayExpr) && !((ArrayExpr *) node)->multidims)
	{
		ListCell   *lc;

		foreach(lc, ((ArrayExpr *) node)->elements)
		{
			if (!comparable_value(lfirst(lc), &value, &type))
				return false;
			*values = lappend(*values, value);
			*types = lappend_oid(*types, type);
		}
		return true;
	}
	if (IsA(node, Const) && !((Const *) node)->constisnull)
	{
		ArrayType  *array = DatumGetArrayTypeP(((Const *) node)->constvalue);
		Oid			elemtype = ARR_ELEMTYPE(array);
		int16		typlen;
		bool		typbyval;
		char		typalign;
		Datum	   *elems;
		bool	   *nulls;
		int			n;

		if (ARR_NDIM(array) > 1)
			return false;
		get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
		deconstruct_array(array, elemtype, typlen, typbyval, typalign, &elems, &nulls, &n);
		for (int i = 0; i < n; i++)
		{
			*values = lappend(*values, makeConst(elemtype, -1, InvalidOid, typlen,
												 elems[i], nulls[i], typbyval));
			*types = lappend_oid(*types, elemtype);
		}
		return true;
	}
	return false;
}

/* column op value, value op column, or column = ANY (values) */
static Restriction *
as_restriction(Query *query, Node *qual)
{
	Restriction *r = palloc0(sizeof(Restriction));

	if (IsA(qual, OpExpr) && list_length(((OpExpr *) qual)->args) == 2)
	{
		OpExpr	   *op = (OpExpr *) qual;
		Node	   *value;
		Oid			type;

		r->opno = op->opno;
		r->inputcollid = op->inputcollid;
		if (resolve_column(query, linitial(op->args), &r->varno, &r->attno) &&
			comparable_value(lsecond(op->args), &value, &type))
			;
		else if (resolve_column(query, lsecond(op->args), &r->varno, &r->attno) &&
				 comparable_value(linitial(op->args), &value, &type))
			;
		else
			return NULL;
		r->values = list_make1(value);
		r->value_types = list_make1_oid(type);
		return r;
	}
	if (IsA(qual, ScalarArrayOpExpr))
	{
		ScalarArrayOpExpr *saop = (ScalarArrayOpExpr *) qual;

		if (!saop->useOr ||
			!resolve_column(query, linitial(saop->args), &r->varno, &r->attno) ||
			!comparable_values(lsecond(saop->args), &r->values, &r->value_types))
			return NULL;
		r->opno = saop->opno;
		r->inputcollid = saop->inputcollid;
		return r;
	}
	return NULL;
}

/* column = column, both of this level, hashable, same type and collation */
static bool
as_equivalence(Query *query, Node *qual, Index *v1, AttrNumber *a1,
			   Index *v2, AttrNumber *a2)
{
	OpExpr	   *op;
	TypeCacheEntry *typentry;
	Node	   *l;
	Node	   *r;

	if (!IsA(qual, OpExpr) || list_length(((OpExpr *) qual)->args) != 2)
		return false;
	op = (OpExpr *) qual;
	l = linitial(op->args);
	r = lsecond(op->args);
	if (!IsA(l, Var) || !IsA(r, Var) || exprType(l) != exprType(r) ||
		exprCollation(l) != exprCollation(r) || op->inputcollid != exprCollation(l))
		return false;
	typentry = lookup_type_cache(exprType(l), TYPECACHE_HASH_OPFAMILY);
	if (!OidIsValid(typentry->hash_opf) || !op_in_opfamily(op->opno, typentry->hash_opf))
		return false;
	return resolve_column(query, l, v1, a1) && resolve_column(query, r, v2, a2);
}

/* The restriction's values as tags of a relation's column, or NIL. */
static List *
restriction_tags(Query *query, Restriction *r)
{
	RangeTblEntry *rte = rt_fetch(r->varno, query->rtable);
	Oid			atttype;
	int32		typmod;
	Oid			attcoll;
	char	   *attname;
	List	   *tags = NIL;
	ListCell   *lv;

	get_atttypetypmodcoll(rte->relid, r->attno, &atttype, &typmod, &attcoll);
	attname = get_attname(rte->relid, r->attno, true);
	if (attname == NULL)
		return NIL;

	foreach(lv, r->values)
	{
		Oid			type = list_nth_oid(r->value_types, foreach_current_index(lv));
		Oid			hashproc = CacheTagHashProc(atttype, attcoll, r->opno, r->inputcollid,
												type);

		if (!OidIsValid(hashproc))
			return NIL;
		tags = lappend(tags, list_make4(makeString(attname),
										makeInteger((int) hashproc),
										makeInteger((int) attcoll),
										copyObject(lfirst(lv))));
	}
	return tags;
}

/* A subquery whose rows are rows of its relations, filtered and projected. */
static bool
is_simple_subquery(Query *sub)
{
	return sub->groupClause == NIL && sub->groupingSets == NIL && !sub->hasAggs &&
		!sub->hasWindowFuncs && sub->distinctClause == NIL &&
		sub->limitCount == NULL && sub->limitOffset == NULL &&
		sub->setOperations == NULL && !sub->hasTargetSRFs &&
		sub->havingQual == NULL && sub->commandType == CMD_SELECT;
}

/* The restrictions on a subquery's columns, in the subquery's terms. */
static List *
push_into_subquery(Query *sub, List *restrictions, Index rti)
{
	List	   *pushed = NIL;
	ListCell   *lc;

	if (!is_simple_subquery(sub))
		return NIL;
	foreach(lc, restrictions)
	{
		Restriction *r = lfirst(lc);
		TargetEntry *tle;
		Restriction *p;

		if (r->varno != rti)
			continue;
		tle = get_tle_by_resno(sub->targetList, r->attno);
		if (tle == NULL || tle->resjunk)
			continue;
		p = palloc(sizeof(Restriction));
		*p = *r;
		if (!resolve_column(sub, (Node *) tle->expr, &p->varno, &p->attno))
			continue;
		pushed = lappend(pushed, p);
	}
	return pushed;
}

/* Sublinks and CTEs: query levels of their own. */
static bool
nested_query_walker(Node *node, TagsContext *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		analyze_level(ctx, (Query *) node, NIL);
		return false;
	}
	return expression_tree_walker(node, nested_query_walker, (void *) ctx);
}

/* Is the restriction's entry filtered by the qual it came from? */
static bool
in_scope(const ScopedQual *sq, Index varno)
{
	return bms_is_member((int) varno, sq->scope);
}

/*
 * The restrictions a query level's quals (and those pushed from the level
 * above, which filter all of its rows) put on its entries, and the
 * column = column equivalences (list(varno, attno, varno, attno)).
 */
static void
level_restrictions(Query *query, List *pushed, List **restrictions, List **classes)
{
	List	   *quals = NIL;
	Bitmapset  *all = rels_under((Node *) query->jointree);
	ListCell   *lc;

	collect_quals((Node *) query->jointree, &quals);
	foreach(lc, pushed)
	{
		Restriction *r = lfirst(lc);

		if (bms_is_member((int) r->varno, all))
			*restrictions = lappend(*restrictions, r);
	}
	foreach(lc, quals)
	{
		ScopedQual *sq = lfirst(lc);
		Restriction *r = as_restriction(query, sq->qual);
		Index		v1,
					v2;
		AttrNumber	a1,
					a2;

		if (r != NULL && in_scope(sq, r->varno))
			*restrictions = lappend(*restrictions, r);
		else if (sq->equivalence &&
				 as_equivalence(query, sq->qual, &v1, &a1, &v2, &a2) &&
				 in_scope(sq, v1) && in_scope(sq, v2))
			*classes = lappend(*classes, list_make4_int(v1, a1, v2, a2));
	}
}

/* Is there a restriction of (varno, attno) to the values of r already? */
static bool
restriction_known(List *restrictions, Index varno, AttrNumber attno, const Restriction *r)
{
	ListCell   *lc;

	foreach(lc, restrictions)
	{
		Restriction *x = lfirst(lc);

		if (x->varno == varno && x->attno == attno && x->opno == r->opno &&
			equal(x->values, r->values))
			return true;
	}
	return false;
}

/* Values spread through column = column, until nothing changes. */
static List *
spread_through_equivalences(List *restrictions, List *classes)
{
	for (bool changed = true; changed;)
	{
		ListCell   *lc;

		changed = false;
		foreach(lc, classes)
		{
			List	   *eq = lfirst(lc);

			for (int side = 0; side < 2; side++)
			{
				Index		from_v = list_nth_int(eq, side * 2);
				AttrNumber	from_a = list_nth_int(eq, side * 2 + 1);
				Index		to_v = list_nth_int(eq, (1 - side) * 2);
				AttrNumber	to_a = list_nth_int(eq, (1 - side) * 2 + 1);
				ListCell   *lr;

				foreach(lr, restrictions)
				{
					Restriction *r = lfirst(lr);
					Restriction *n;

					if (r->varno != from_v || r->attno != from_a ||
						restriction_known(restrictions, to_v, to_a, r))
						continue;
					n = palloc(sizeof(Restriction));
					*n = *r;
					n->varno = to_v;
					n->attno = to_a;
					restrictions = lappend(restrictions, n);
					changed = true;
				}
			}
		}
	}
	return restrictions;
}

/*
 * Estimated share of the relation's rows a tag set of nvalues values of
 * column attno stands for, from pg_statistic: nvalues x (1 - null_frac) /
 * n_distinct (a negative n_distinct is a fraction of the rows). False when
 * the column has no statistics.
 */
static bool
column_share(Oid relid, AttrNumber attno, bool inh, int nvalues, double *share)
{
	HeapTuple	tuple;
	Form_pg_statistic stats;
	double		ndistinct;
	double		reltuples = 0;

	tuple = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(relid),
							Int16GetDatum(attno), BoolGetDatum(inh));
	if (!HeapTupleIsValid(tuple))
		return false;
	stats = (Form_pg_statistic) GETSTRUCT(tuple);
	ndistinct = stats->stadistinct;
	*share = 1.0 - stats->stanullfrac;
	ReleaseSysCache(tuple);
	if (ndistinct < 0)
	{
		tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
		if (HeapTupleIsValid(tuple))
		{
			reltuples = ((Form_pg_class) GETSTRUCT(tuple))->reltuples;
			ReleaseSysCache(tuple);
		}
		ndistinct = -ndistinct * reltuples;
	}
	if (ndistinct <= 0)
		return false;
	*share = Min(1.0, *share * nvalues / ndistinct);
	return true;
}

/* A tracked column restricted in one occurrence, and its tags. */
typedef struct TagChoice
{
	List	   *tags;
	AttrNumber	attno;
	bool		has_stats;
	double		share;			/* of the rows, when has_stats */
} TagChoice;

/*
 * Is a better than b? Invalidations are fewest on the column whose tags
 * stand for the smallest share of the rows (the most selective by
 * pg_stats); unless both have statistics, fewest values, then the lowest
 * column number, so the choice never depends on the order of conjuncts.
 */
static bool
choice_better(const TagChoice *a, const TagChoice *b)
{
	if (a->has_stats && b->has_stats && a->share != b->share)
		return a->share < b->share;
	if (!(a->has_stats && b->has_stats) &&
		list_length(a->tags) != list_length(b->tags))
		return list_length(a->tags) < list_length(b->tags);
	return a->attno < b->attno;
}

/*
 * One occurrence of a relation (entry rti of the level): the tags of ONE
 * of its restricted tracked columns, the most selective (choice_better),
 * or whole. One suffices: a row must satisfy every conjunct to reach the
 * result, so a write that changes the result writes a row whose chosen
 * column has one of the values, in its old or new version.
 */
static void
relation_occurrence(TagsContext *ctx, Query *query, RangeTblEntry *rte, Index rti,
					List *restrictions)
{
	RelationTags *rtags = relation_tags(ctx, rte->relid);
	List	   *tracked = CacheTrackedColumnsOf(rte->relid);
	TagChoice	best = {NIL};
	List	   *own = list_copy(restrictions);
	ListCell   *lr;
	ListCell   *ls;

	/* row security quals filter their own relation */
	foreach(ls, rte->securityQuals)
	{
		ListCell   *lq;

		foreach(lq, make_ands_implicit((Expr *) lfirst(ls)))
		{
			Restriction *r = as_restriction(query, lfirst(lq));

			if (r != NULL && r->varno == rti)
				own = lappend(own, r);
		}
	}
	foreach(lr, own)
	{
		Restriction *r = lfirst(lr);
		TagChoice	candidate;
		char	   *attname;

		if (r->varno != rti || tracked == NIL)
			continue;
		attname = get_attname(rte->relid, r->attno, true);
		if (attname == NULL || !CacheColumnIsTracked(tracked, attname))
			continue;
		candidate.tags = restriction_tags(query, r);
		if (candidate.tags == NIL)
			continue;
		candidate.attno = r->attno;
		/* a table without children has only its own statistics */
		candidate.has_stats = column_share(rte->relid, r->attno,
										   rte->inh && has_subclass(rte->relid),
										   list_length(candidate.tags),
										   &candidate.share);
		if (best.tags == NIL || choice_better(&candidate, &best))
			best = candidate;
	}
	if (best.tags == NIL)
		rtags->whole = true;
	else
		rtags->tags = list_concat(rtags->tags, best.tags);
}

/*
 * One query level: its restrictions, spread through equivalences; then each
 * relation's dependency, and the levels below (subqueries in FROM with the
 * restrictions on their columns pushed in, sublinks and CTEs on their own).
 */
static void
analyze_level(TagsContext *ctx, Query *query, List *pushed)
{
	List	   *restrictions = NIL;
	List	   *classes = NIL;
	ListCell   *lc;
	Index		rti = 0;

	level_restrictions(query, pushed, &restrictions, &classes);
	restrictions = spread_through_equivalences(restrictions, classes);
	foreach(lc, query->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);

		rti++;
		if (rte->rtekind == RTE_RELATION)
			relation_occurrence(ctx, query, rte, rti, restrictions);
		else if (rte->rtekind == RTE_SUBQUERY)
			analyze_level(ctx, rte->subquery,
						  push_into_subquery(rte->subquery, restrictions, rti));
	}
	query_tree_walker(query, nested_query_walker, (void *) ctx,
					  QTW_IGNORE_RT_SUBQUERIES);
}

/*
 * When planned: the tags of a statement, for its plan to
 * keep (a list of list(Integer relid, tags...)); relations not in it
 * depend on all their rows.
 */
List *
CacheStatementTags(Query *query)
{
	TagsContext ctx = {NIL};
	List	   *result = NIL;
	ListCell   *lc;

	analyze_level(&ctx, query, NIL);
	foreach(lc, ctx.relations)
	{
		RelationTags *rtags = lfirst(lc);

		if (!rtags->whole && rtags->tags != NIL)
			result = lappend(result, lcons(makeInteger((int) rtags->relid), rtags->tags));
	}
	return result;
}

/* Is node column attno of varno (a plan's Var, under any RelabelType)? */
static bool
column_compared(Node *node, Index varno, AttrNumber attno)
{
	while (node && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	return node != NULL && IsA(node, Var) && ((Var *) node)->varno == varno &&
		((Var *) node)->varattno == attno && ((Var *) node)->varlevelsup == 0;
}

/*
 * Writers (cache_capture_plan.c): does qual, a conjunct that every row a
 * plan's scan of entry varno returns satisfies, restrict column attno (of
 * type atttype, collation attcoll) to values that name tags? Then its
 * values (Const or Param nodes, for CacheTagValue) and the function that
 * hashes each, by the rule readers follow (CacheTagHashProc), up to max:
 * how many; -1 when it is no such restriction or has more values.
 */
int
CacheQualTagValues(Node *qual, Index varno, AttrNumber attno, Oid atttype,
				   Oid attcoll, Node **values, Oid *hashprocs, int max)
{
	Restriction *r;
	ListCell   *lv;

	/* column = value, the common case, without building a Restriction */
	if (IsA(qual, OpExpr) && list_length(((OpExpr *) qual)->args) == 2)
	{
		OpExpr	   *op = (OpExpr *) qual;
		Oid			type;

		if (!((column_compared(linitial(op->args), varno, attno) &&
			   comparable_value(lsecond(op->args), &values[0], &type)) ||
			  (column_compared(lsecond(op->args), varno, attno) &&
			   comparable_value(linitial(op->args), &values[0], &type))) || max < 1)
			return -1;
		hashprocs[0] = CacheTagHashProc(atttype, attcoll, op->opno, op->inputcollid, type);
		return OidIsValid(hashprocs[0]) ? 1 : -1;
	}
	r = as_restriction(NULL, qual);
	if (r == NULL || r->varno != varno || r->attno != attno || list_length(r->values) > max)
		return -1;
	foreach(lv, r->values)
	{
		int			i = foreach_current_index(lv);

		values[i] = lfirst(lv);
		hashprocs[i] = CacheTagHashProc(atttype, attcoll, r->opno, r->inputcollid,
										list_nth_oid(r->value_types, i));
		if (!OidIsValid(hashprocs[i]))
			return -1;
	}
	return list_length(r->values);
}

/* The value of a tag's constant or parameter at this execution. */
bool
CacheTagValue(Node *node, ParamListInfo params, Datum *value, bool *isnull)
{
	if (IsA(node, Const))
	{
		*value = ((Const *) node)->constvalue;
		*isnull = ((Const *) node)->constisnull;
		return true;
	}
	if (IsA(node, Param))
	{
		Param	   *param = (Param *) node;
		ParamExternData *prm;

		if (param->paramkind != PARAM_EXTERN || params == NULL || param->paramid < 1 ||
			param->paramid > params->numParams || params->paramFetch != NULL)
			return false;
		prm = &params->params[param->paramid - 1];
		if (prm->ptype != param->paramtype)
			return false;
		*value = prm->value;
		*isnull = prm->isnull;
		return true;
	}
	return false;
}

/*
 * At execution: the counters a result of the statement depends on, for
 * CacheGenSnapshotTake. A relation whose tags do not fit, or whose values
 * cannot be read, depends on all its rows.
 */
int
CacheResultCounters(List *relids, List *statement_tags, ParamListInfo params,
					uint32 *counters)
{
	int			n = 0;
	int			remaining = list_length(relids);
	ListCell   *lc;

	foreach(lc, relids)
	{
		Oid			relid = lfirst_oid(lc);
		List	   *tags = NIL;
		ListCell   *ld;
		int			start = n;
		bool		ok = true;

		remaining--;
		foreach(ld, statement_tags)
		{
			if ((Oid) intVal(linitial(lfirst(ld))) == relid)
				tags = list_delete_first(list_copy(lfirst(ld)));
		}
		if (tags != NIL)
		{
			counters[n++] = CacheWholeRelationCounter(relid);
			foreach(ld, tags)
			{
				List	   *tag = lfirst(ld);
				Datum		value;
				bool		isnull;
				uint32		hash;

				if (!CacheTagValue(lfourth(tag), params, &value, &isnull) ||
					n >= CACHE_MAX_COUNTERS - remaining)
				{
					ok = false;
					break;
				}
				if (isnull)
					continue;
				hash = DatumGetUInt32(OidFunctionCall1Coll((Oid) intVal(lsecond(tag)),
														   (Oid) intVal(lthird(tag)),
														   value));
				counters[n++] = CacheTagCounter(relid, strVal(linitial(tag)), hash);
			}
		}
		if (tags == NIL || !ok)
		{
			n = start;
			counters[n++] = CacheAnyRowCounter(relid);
		}
	}
	return n;
}
