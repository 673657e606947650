/*-------------------------------------------------------------------------
 *
 * cache_window.c
 *		Validity windows, when a statement is planned: which of its
 *		constants may move without changing its result while they stay
 *		between two consecutive values of a column (doc/DESIGN.md,
 *		"Validity windows"); and, at each execution, their values.
 *
 * A constant is windowed when it is a non-null Const, or an external
 * Param, that appears in the statement only as one side of top-level
 * conjuncts "column op constant" (either way round) of the top query
 * level's WHERE or of the ON of one of its joins, where
 *
 * - the column is a plain column (varattno > 0) of a base relation
 *   occurrence of that level: an ordinary table or materialized view read
 *   without descendants, with no row security quals and no TABLESAMPLE;
 * - op is <, <=, > or >= of the column type's default btree operator
 *   family, with order procedures for (column, constant) and (column,
 *   column) in that family.
 *
 * Anything else keeps the constant in the key (a constant used in the
 * select list, an OR branch, a function argument, a subquery, another
 * comparison, more than once in the tree as a Const).
 *
 * Each windowed conjunct carries the other conjuncts of the same clause
 * that test the same occurrence alone with leakproof operators against
 * constants and parameters that are not windowed (its filters): the
 * window is computed over the rows that pass them (cache_window_bounds.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtree.h"
#include "access/stratnum.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "cache/cache_internal.h"

/* A conjunct of one clause (WHERE or an ON), with its clause's number. */
typedef struct Conjunct
{
	Node	   *qual;
	int			clause;
	CacheWindowSpec *spec;		/* if it compares a column with a constant */
} Conjunct;

static void
add_clause(List **conjuncts, Node *quals, int *nclauses)
{
	ListCell   *lc;

	if (quals == NULL)
		return;
	(*nclauses)++;
	foreach(lc, make_ands_implicit((Expr *) quals))
	{
		Conjunct   *c = palloc0(sizeof(Conjunct));

		c->qual = lfirst(lc);
		c->clause = *nclauses;
		*conjuncts = lappend(*conjuncts, c);
	}
}

/* The conjuncts of WHERE and of every ON of the top level's join tree. */
static void
collect_conjuncts(Node *node, List **conjuncts, int *nclauses)
{
	ListCell   *lc;

	if (node == NULL || IsA(node, RangeTblRef))
		return;
	if (IsA(node, FromExpr))
	{
		add_clause(conjuncts, ((FromExpr *) node)->quals, nclauses);
		foreach(lc, ((FromExpr *) node)->fromlist)
			collect_conjuncts(lfirst(lc), conjuncts, nclauses);
	}
	else if (IsA(node, JoinExpr))
	{
		JoinExpr   *j = (JoinExpr *) node;

		add_clause(conjuncts, j->quals, nclauses);
		collect_conjuncts(j->larg, conjuncts, nclauses);
		collect_conjuncts(j->rarg, conjuncts, nclauses);
	}
}

/* Binary-compatible relabelling and COLLATE leave the value as it is. */
static Node *
strip_relabel(Node *node)
{
	while (node != NULL && (IsA(node, RelabelType) || IsA(node, CollateExpr)))
		node = IsA(node, RelabelType) ? (Node *) ((RelabelType *) node)->arg :
			(Node *) ((CollateExpr *) node)->arg;
	return node;
}

/* A plain column of this query level (by its shape alone). */
static bool
window_column(Node *node, Query *query, Var **var)
{
	node = strip_relabel(node);
	if (node == NULL || !IsA(node, Var))
		return false;
	*var = (Var *) node;
	return (*var)->varlevelsup == 0 && (*var)->varattno > 0 &&
		(*var)->varno >= 1 && (*var)->varno <= list_length(query->rtable);
}

/* A base relation occurrence a window can be computed over. */
static bool
window_relation(Query *query, Var *var)
{
	RangeTblEntry *rte = rt_fetch(var->varno, query->rtable);

	return rte->rtekind == RTE_RELATION &&
		(rte->relkind == RELKIND_RELATION || rte->relkind == RELKIND_MATVIEW) &&
		rte->securityQuals == NIL && rte->tablesample == NULL &&
		!(rte->inh && has_subclass(rte->relid));
}

/* A non-null constant or an external parameter. */
static bool
window_value(Node *node, Node **value)
{
	node = strip_relabel(node);
	if (node != NULL &&
		((IsA(node, Const) && !((Const *) node)->constisnull) ||
		 (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_EXTERN)))
	{
		*value = node;
		return true;
	}
	return false;
}

static int
commute_strategy(int strategy)
{
	switch (strategy)
	{
		case BTLessStrategyNumber:
			return BTGreaterStrategyNumber;
		case BTLessEqualStrategyNumber:
			return BTGreaterEqualStrategyNumber;
		case BTGreaterEqualStrategyNumber:
			return BTLessEqualStrategyNumber;
		case BTGreaterStrategyNumber:
			return BTLessStrategyNumber;
	}
	return strategy;
}

/* column op constant (or constant op column): its spec, or NULL. */
static CacheWindowSpec *
as_window(Query *query, Node *qual)
{
	OpExpr	   *op;
	Var		   *var;
	Node	   *value;
	Node	   *colside;
	bool		var_left;
	TypeCacheEntry *typentry;
	CacheWindowSpec *spec;
	int			strategy;
	Oid			lefttype;
	Oid			righttype;

	if (!IsA(qual, OpExpr) || list_length(((OpExpr *) qual)->args) != 2)
		return NULL;
	op = (OpExpr *) qual;
	var_left = window_column(linitial(op->args), query, &var) &&
		window_value(lsecond(op->args), &value);
	if (!var_left && !(window_column(lsecond(op->args), query, &var) &&
					   window_value(linitial(op->args), &value)))
		return NULL;
	colside = var_left ? linitial(op->args) : lsecond(op->args);
	/* the common case, equality, from the type cache: no catalog lookup */
	typentry = lookup_type_cache(exprType(colside),
								 TYPECACHE_BTREE_OPFAMILY | TYPECACHE_EQ_OPR);
	if (op->opno == typentry->eq_opr || !OidIsValid(typentry->btree_opf) ||
		!op_in_opfamily(op->opno, typentry->btree_opf) || !window_relation(query, var))
		return NULL;
	get_op_opfamily_properties(op->opno, typentry->btree_opf, false,
							   &strategy, &lefttype, &righttype);
	if (strategy == BTEqualStrategyNumber)
		return NULL;

	spec = palloc0(sizeof(CacheWindowSpec));
	spec->value = value;
	spec->const_index = -1;
	spec->relid = rt_fetch(var->varno, query->rtable)->relid;
	spec->attno = var->varattno;
	spec->coltype = var->vartype;
	spec->strategy = var_left ? strategy : commute_strategy(strategy);
	spec->opfamily = typentry->btree_opf;
	spec->lefttype = var_left ? lefttype : righttype;
	spec->righttype = var_left ? righttype : lefttype;
	spec->collid = op->inputcollid;
	spec->cmp_proc = get_opfamily_proc(spec->opfamily, spec->lefttype,
									   spec->righttype, BTORDER_PROC);
	spec->self_cmp_proc = get_opfamily_proc(spec->opfamily, spec->lefttype,
											spec->lefttype, BTORDER_PROC);
	spec->colname = get_attname(spec->relid, spec->attno, true);
	if (!OidIsValid(spec->cmp_proc) || !OidIsValid(spec->self_cmp_proc) ||
		spec->colname == NULL)
		return NULL;
	spec->varno = var->varno;
	return spec;
}

/* ---- is each candidate's constant used nowhere else? ---- */

typedef struct UseCount
{
	Node	   *target;			/* a Const (by pointer) or a Param (by id) */
	int			uses;
} UseCount;

static bool
count_uses(Node *node, UseCount *uc)
{
	if (node == NULL)
		return false;
	if (node == uc->target)
		uc->uses++;
	else if (IsA(node, Param) && IsA(uc->target, Param) &&
			 ((Param *) node)->paramkind == PARAM_EXTERN &&
			 ((Param *) node)->paramid == ((Param *) uc->target)->paramid)
		uc->uses++;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, count_uses, uc, 0);
	return expression_tree_walker(node, count_uses, uc);
}

/* How many candidate conjuncts compare this very constant (or Param id)? */
static int
candidate_uses(List *conjuncts, Node *value)
{
	int			n = 0;
	ListCell   *lc;

	foreach(lc, conjuncts)
	{
		Conjunct   *c = lfirst(lc);

		if (c->spec == NULL)
			continue;
		if (c->spec->value == value ||
			(IsA(value, Param) && IsA(c->spec->value, Param) &&
			 ((Param *) value)->paramid == ((Param *) c->spec->value)->paramid))
			n++;
	}
	return n;
}

/* ---- filters: the clause's other tests of the occurrence alone ---- */

static bool
filter_operand(Node *node, Index varno)
{
	node = strip_relabel(node);
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return ((Var *) node)->varno == varno && ((Var *) node)->varlevelsup == 0 &&
			((Var *) node)->varattno > 0;
	if (IsA(node, Const))
		return true;
	if (IsA(node, Param))
		return ((Param *) node)->paramkind == PARAM_EXTERN;
	if (IsA(node, ArrayExpr))
	{
		ListCell   *lc;

		foreach(lc, ((ArrayExpr *) node)->elements)
			if (!filter_operand(lfirst(lc), varno))
			return false;
		return !((ArrayExpr *) node)->multidims;
	}
	return false;
}

/*
 * Can this conjunct be evaluated on any row of the occurrence without an
 * error a real execution would not raise? Only a leakproof operator (which
 * raises no error that depends on its input) on plain operands, null tests
 * and boolean columns; and it must read the occurrence.
 */
static bool
is_filter(Node *qual, Index varno)
{
	List	   *vars;
	bool		reads = false;
	ListCell   *lc;

	if (IsA(qual, OpExpr) && list_length(((OpExpr *) qual)->args) == 2)
	{
		OpExpr	   *op = (OpExpr *) qual;

		if (!get_func_leakproof(get_opcode(op->opno)) ||
			!filter_operand(linitial(op->args), varno) ||
			!filter_operand(lsecond(op->args), varno))
			return false;
	}
	else if (IsA(qual, ScalarArrayOpExpr))
	{
		ScalarArrayOpExpr *saop = (ScalarArrayOpExpr *) qual;

		if (!get_func_leakproof(get_opcode(saop->opno)) ||
			!filter_operand(linitial(saop->args), varno) ||
			!filter_operand(lsecond(saop->args), varno))
			return false;
	}
	else if (IsA(qual, NullTest))
	{
		if (((NullTest *) qual)->argisrow ||
			!filter_operand((Node *) ((NullTest *) qual)->arg, varno))
			return false;
	}
	else if (!(IsA(qual, Var) && filter_operand(qual, varno)))
		return false;
	vars = pull_var_clause(qual, 0);
	foreach(lc, vars)
		reads |= ((Var *) lfirst(lc))->varno == varno;
	return reads;
}

/* Does the conjunct use a windowed constant of the statement? */
static bool
uses_windowed(Node *qual, List *conjuncts)
{
	ListCell   *lc;

	foreach(lc, conjuncts)
	{
		Conjunct   *c = lfirst(lc);
		UseCount	uc = {NULL, 0};

		if (c->spec == NULL || c->spec->const_index == -2)
			continue;
		uc.target = c->spec->value;
		(void) count_uses(qual, &uc);
		if (uc.uses > 0)
			return true;
	}
	return false;
}

static void
add_filters(CacheWindowSpec *spec, Conjunct *self, List *conjuncts)
{
	Index		varno = spec->varno;
	ListCell   *lc;

	foreach(lc, conjuncts)
	{
		Conjunct   *c = lfirst(lc);

		if (c == self || c->clause != self->clause ||
			!is_filter(c->qual, varno) || uses_windowed(c->qual, conjuncts))
			continue;
		spec->filters = lappend(spec->filters, copyObject(c->qual));
	}
}

/* The place of each windowed Const in the key's walk (cache_key.c). */
static bool
number_consts(Query *query, List *conjuncts)
{
	CacheKeyConsts consts;
	ListCell   *lc;
	bool		any = false;

	CacheKeyConstsBlank(query, &consts);
	CacheKeyConstsRestore(&consts);
	foreach(lc, conjuncts)
	{
		Conjunct   *c = lfirst(lc);
		int			found = -1;

		if (c->spec == NULL || !IsA(c->spec->value, Const))
			continue;
		for (int i = 0; i < consts.n; i++)
		{
			if ((Node *) consts.nodes[i] != c->spec->value)
				continue;
			/* reached twice: not windowed */
			found = (found == -1) ? i : -2;
		}
		c->spec->const_index = found;
		any |= found >= 0;
	}
	CacheKeyConstsFree(&consts);
	return any;
}

/*
 * When planned: the windowed constants of a statement (a CacheWindowSpec list,
 * NIL for none).
 */
List *
CacheWindowsFind(Query *query)
{
	List	   *conjuncts = NIL;
	List	   *specs = NIL;
	int			nclauses = 0;
	bool		any = false;
	ListCell   *lc;

	if (query->commandType != CMD_SELECT)
		return NIL;
	collect_conjuncts((Node *) query->jointree, &conjuncts, &nclauses);
	foreach(lc, conjuncts)
	{
		Conjunct   *c = lfirst(lc);

		c->spec = as_window(query, c->qual);
		any |= c->spec != NULL;
	}
	if (!any)
		return NIL;

	/* a constant used anywhere but in candidate conjuncts stays in the key */
	foreach(lc, conjuncts)
	{
		Conjunct   *c = lfirst(lc);
		UseCount	uc = {NULL, 0};

		if (c->spec == NULL)
			continue;
		uc.target = c->spec->value;
		(void) query_tree_walker(query, count_uses, &uc, 0);
		if (uc.uses != candidate_uses(conjuncts, c->spec->value))
			c->spec = NULL;
	}
	(void) number_consts(query, conjuncts);
	foreach(lc, conjuncts)
	{
		Conjunct   *c = lfirst(lc);

		/* -2 marks a Const reached twice: not a window, but kept for filters */
		if (c->spec != NULL && IsA(c->spec->value, Const) && c->spec->const_index < 0)
			c->spec->const_index = -2;
	}
	foreach(lc, conjuncts)
	{
		Conjunct   *c = lfirst(lc);

		if (c->spec == NULL || c->spec->const_index == -2)
			continue;
		add_filters(c->spec, c, conjuncts);
		specs = lappend(specs, c->spec);
	}
	/* only now: filters were told from windowed conjuncts by pointer */
	foreach(lc, specs)
	{
		CacheWindowSpec *s = lfirst(lc);

		s->value = copyObject(s->value);
	}
	return specs;
}

/* ---- the plan's copy: nodes only ---- */

#define SPEC_INTS 12

List *
CacheWindowSpecsToList(List *specs)
{
	List	   *list = NIL;
	ListCell   *lc;

	foreach(lc, specs)
	{
		CacheWindowSpec *s = lfirst(lc);
		List	   *ints = list_make5_int(s->const_index, (int) s->relid, s->attno,
										  (int) s->coltype, s->strategy);

		ints = lappend_int(ints, (int) s->opfamily);
		ints = lappend_int(ints, (int) s->lefttype);
		ints = lappend_int(ints, (int) s->righttype);
		ints = lappend_int(ints, (int) s->collid);
		ints = lappend_int(ints, (int) s->cmp_proc);
		ints = lappend_int(ints, (int) s->self_cmp_proc);
		ints = lappend_int(ints, (int) s->varno);
		Assert(list_length(ints) == SPEC_INTS);
		list = lappend(list, list_make4(s->value, ints, makeString(s->colname),
										s->filters));
	}
	return list;
}

List *
CacheWindowSpecsFromList(List *list)
{
	List	   *specs = NIL;
	ListCell   *lc;

	foreach(lc, list)
	{
		List	   *l = lfirst(lc);
		List	   *ints = lsecond(l);
		CacheWindowSpec *s = palloc(sizeof(CacheWindowSpec));

		s->value = linitial(l);
		s->const_index = list_nth_int(ints, 0);
		s->relid = (Oid) list_nth_int(ints, 1);
		s->attno = (AttrNumber) list_nth_int(ints, 2);
		s->coltype = (Oid) list_nth_int(ints, 3);
		s->strategy = list_nth_int(ints, 4);
		s->opfamily = (Oid) list_nth_int(ints, 5);
		s->lefttype = (Oid) list_nth_int(ints, 6);
		s->righttype = (Oid) list_nth_int(ints, 7);
		s->collid = (Oid) list_nth_int(ints, 8);
		s->cmp_proc = (Oid) list_nth_int(ints, 9);
		s->self_cmp_proc = (Oid) list_nth_int(ints, 10);
		s->varno = (Index) list_nth_int(ints, 11);
		s->colname = strVal(lthird(l));
		s->filters = lfourth(l);
		specs = lappend(specs, s);
	}
	return specs;
}

/* The walk places of the windowed Consts, for CacheKeyCombine(). */
Bitmapset *
CacheWindowedConsts(List *specs)
{
	Bitmapset  *set = NULL;
	ListCell   *lc;

	foreach(lc, specs)
	{
		CacheWindowSpec *s = lfirst(lc);

		if (s->const_index >= 0)
			set = bms_add_member(set, s->const_index);
	}
	return set;
}

/*
 * At execution: each windowed constant's value and comparison, and the
 * parameters whose values the key leaves out. A null parameter, or one of
 * another type than planned, is keyed instead (its comparison passes no
 * row, or is not the one planned). NULL without windows.
 */
CacheWindowProbe *
CacheWindowProbeMake(List *specs, ParamListInfo params, Bitmapset **windowed_params)
{
	CacheWindowProbe *probe;
	Bitmapset  *keyed = NULL;
	ListCell   *lc;

	*windowed_params = NULL;
	if (specs == NIL)
		return NULL;
	probe = palloc0(sizeof(CacheWindowProbe));
	probe->values = palloc0(sizeof(CacheWindowValue) * list_length(specs));
	foreach(lc, specs)
	{
		CacheWindowSpec *s = lfirst(lc);
		CacheWindowValue *v = &probe->values[probe->n++];

		v->spec = s;
		get_typlenbyval(s->righttype, &v->typlen, &v->typbyval);
		if (IsA(s->value, Const))
		{
			v->value = ((Const *) s->value)->constvalue;
			v->keyed = ((Const *) s->value)->constisnull;
		}
		else
		{
			Param	   *p = (Param *) s->value;
			ParamExternData *prm = NULL;

			if (params != NULL && p->paramid >= 1 && p->paramid <= params->numParams)
				prm = &params->params[p->paramid - 1];
			v->keyed = prm == NULL || prm->isnull || prm->ptype != p->paramtype;
			if (v->keyed)
				keyed = bms_add_member(keyed, p->paramid);
			else
			{
				v->value = prm->value;
				*windowed_params = bms_add_member(*windowed_params, p->paramid);
			}
		}
		if (!v->keyed)
			fmgr_info(s->cmp_proc, &v->cmp);
	}
	/* a parameter keyed for one comparison is keyed for all */
	*windowed_params = bms_del_members(*windowed_params, keyed);
	for (int i = 0; i < probe->n; i++)
	{
		CacheWindowValue *v = &probe->values[i];

		if (IsA(v->spec->value, Param) &&
			bms_is_member(((Param *) v->spec->value)->paramid, keyed))
			v->keyed = true;
	}
	return probe;
}
