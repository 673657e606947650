/*-------------------------------------------------------------------------
 *
 * advice_qual.c
 *		Classifies one qual of a scan: which column or expression of the
 *		scanned relation it tests, with which operator, and what kind of
 *		index could serve it (btree equality or range, IS NULL, boolean,
 *		GIN).  Used both on executed plans (recording) and on re-planned
 *		statements (suggestions), so that both see quals the same way.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "catalog/pg_am.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "common/hashfn.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "rewrite/rewriteManip.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"

#include "advice/advice.h"

typedef struct VarCheck
{
	Index		varno;
	bool		has_own;		/* a Var of the scanned relation */
	bool		has_other;		/* a Var of another relation */
} VarCheck;

static bool
advice_var_walker(Node *node, VarCheck *check)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) node;

		if (var->varno == check->varno && var->varlevelsup == 0 &&
			var->varattno > 0)
			check->has_own = true;
		else
			check->has_other = true;
		return false;
	}
	if (IsA(node, SubPlan) || IsA(node, Aggref))
	{
		check->has_other = true;
		return false;
	}
	return expression_tree_walker(node, advice_var_walker, check);
}

/* Is expr a column or stable expression of the scanned relation only? */
static bool
advice_is_key(Node *expr, Index varno)
{
	VarCheck	check = {varno, false, false};

	(void) advice_var_walker(expr, &check);
	return check.has_own && !check.has_other && !contain_volatile_functions(expr);
}

/* Is expr a constant or parameter as far as this scan is concerned? */
static bool
advice_is_value(Node *expr, Index varno)
{
	VarCheck	check = {varno, false, false};

	(void) advice_var_walker(expr, &check);
	return !check.has_own && !contain_volatile_functions(expr);
}

static Expr *
advice_strip(Expr *expr)
{
	while (expr && IsA(expr, RelabelType))
		expr = ((RelabelType *) expr)->arg;
	return expr;
}

/* Fill the key part of out from the indexable side of a qual. */
static void
advice_set_key(AdviceQual *out, Expr *key)
{
	key = advice_strip(key);
	out->key = key;
	out->attnum = IsA(key, Var) ? ((Var *) key)->varattno : 0;
}

/* Note whether value is a constant, and its hash. */
static void
advice_set_value(AdviceQual *out, Expr *value)
{
	Const	   *c = (Const *) advice_strip(value);
	int16		typlen;
	bool		typbyval;

	out->is_const = IsA(c, Const);
	out->const_hash = 0;
	if (!out->is_const || c->constisnull)
		return;
	get_typlenbyval(c->consttype, &typlen, &typbyval);
	out->const_hash = datum_image_hash(c->constvalue, typbyval, typlen);
}

/* The kind of index that could serve "key opno value", or 0. */
static AdviceKind
advice_operator_kind(Oid opno, Oid keytype)
{
	ListCell   *lc;
	Oid			opclass;

	foreach(lc, get_op_index_interpretation(opno))
	{
		OpIndexInterpretation *interp = lfirst(lc);

		if (SfcOpInterpretationCmp(interp) == COMPARE_EQ)
			return ADVICE_KIND_EQ;
		if (SfcOpInterpretationCmp(interp) >= COMPARE_LT &&
			SfcOpInterpretationCmp(interp) <= COMPARE_GT)
			return ADVICE_KIND_RANGE;
	}
	opclass = GetDefaultOpClass(keytype, GIN_AM_OID);
	if (OidIsValid(opclass) && op_in_opfamily(opno, get_opclass_family(opclass)))
		return ADVICE_KIND_GIN;
	return (AdviceKind) 0;
}

/* key op value, or value op key (commuted to have the key on the left). */
static bool
advice_classify_opexpr(OpExpr *op, Index varno, AdviceQual *out)
{
	Expr	   *left;
	Expr	   *right;
	Oid			opno = op->opno;

	if (list_length(op->args) != 2)
		return false;
	left = linitial(op->args);
	right = lsecond(op->args);
	if (!advice_is_key((Node *) left, varno) || !advice_is_value((Node *) right, varno))
	{
		Expr	   *tmp = left;

		opno = get_commutator(opno);
		left = right;
		right = tmp;
		if (!OidIsValid(opno) || !advice_is_key((Node *) left, varno) ||
			!advice_is_value((Node *) right, varno))
			return false;
	}
	out->kind = advice_operator_kind(opno, exprType((Node *) advice_strip(left)));
	if (out->kind == 0)
		return false;
	advice_set_key(out, left);
	advice_set_value(out, right);
	out->opno = opno;
	out->clause = (Expr *) make_opclause(opno, op->opresulttype, op->opretset,
										 left, right, op->opcollid, op->inputcollid);
	return true;
}

/* key = ANY (values): an IN list, served like an equality. */
static bool
advice_classify_in(ScalarArrayOpExpr *saop, Index varno, AdviceQual *out)
{
	Expr	   *left = linitial(saop->args);
	Expr	   *right = lsecond(saop->args);

	if (!saop->useOr || !advice_is_key((Node *) left, varno) ||
		!advice_is_value((Node *) right, varno) ||
		advice_operator_kind(saop->opno, exprType((Node *) left)) != ADVICE_KIND_EQ)
		return false;
	out->kind = ADVICE_KIND_EQ;
	advice_set_key(out, left);
	advice_set_value(out, right);
	out->opno = saop->opno;
	out->clause = (Expr *) saop;
	return true;
}

/* col, NOT col on a boolean column: an equality with true or false. */
static bool
advice_classify_bool(Expr *arg, bool value, Index varno, AdviceQual *out)
{
	if (exprType((Node *) arg) != BOOLOID || !advice_is_key((Node *) arg, varno))
		return false;
	out->kind = ADVICE_KIND_BOOL;
	advice_set_key(out, arg);
	out->opno = BooleanEqualOperator;
	out->is_const = true;
	out->const_hash = value ? 1 : 2;
	out->clause = value ? arg : make_notclause(arg);
	return true;
}

/*
 * Classify one qual (an element of an implicit-AND list) evaluated by a scan
 * of range table entry varno.  Returns false for anything no btree or GIN
 * index could serve.
 */
bool
AdviceClassifyQual(Expr *clause, Index varno, AdviceQual *out)
{
	memset(out, 0, sizeof(AdviceQual));
	clause = advice_strip(clause);
	if (IsA(clause, OpExpr))
		return advice_classify_opexpr((OpExpr *) clause, varno, out);
	if (IsA(clause, ScalarArrayOpExpr))
		return advice_classify_in((ScalarArrayOpExpr *) clause, varno, out);
	if (IsA(clause, Var))
		return advice_classify_bool(clause, true, varno, out);
	if (is_notclause(clause))
		return advice_classify_bool(get_notclausearg(clause), false, varno, out);
	if (IsA(clause, NullTest) && ((NullTest *) clause)->nulltesttype == IS_NULL &&
		!((NullTest *) clause)->argisrow &&
		advice_is_key((Node *) ((NullTest *) clause)->arg, varno))
	{
		out->kind = ADVICE_KIND_NULL;
		advice_set_key(out, ((NullTest *) clause)->arg);
		out->is_const = true;
		out->clause = clause;
		return true;
	}
	return false;
}

/* The key as SQL text, e.g. "scope_ids" or "(data -> 'scope'::text)". */
char *
AdviceKeyText(Expr *key, Index varno, Oid relid)
{
	Node	   *copy = copyObject((Node *) key);
	char	   *relname = get_rel_name(relid);

	if (relname == NULL)
		return pstrdup("?");
	if (varno != 1)
		ChangeVarNodes(copy, varno, 1, 0);
	return deparse_expression(copy, deparse_context_for(relname, relid),
							  false, false);
}

uint32
AdviceHashText(const char *text)
{
	return hash_bytes((const unsigned char *) text, strlen(text));
}
