/*-------------------------------------------------------------------------
 *
 * advice_qual.c
 *		Classifies one qual of a scan: which column or expression of the
 *		scanned relation it tests, with which operator, and what kind of
 *		index could serve it (btree equality or range, IS NULL, boolean,
 *		GIN).  Used both on executed plans (recording) and on re-planned
 *		statements (suggestions), so that both see quals the same way.
 *
 * The shapes ORMs write: an OR on one key (Django's Q(a) | Q(b):
 * "scope_ids @> '[3]' OR scope_ids @> '[22]'", "status = 'a' OR status =
 * 'b'", ranges) is one qual, served by one index through a BitmapOr; an OR
 * across keys is a list of arms (AdviceClassifyOrArms), each needing its
 * own index.  LIKE with a fixed prefix is a btree range under the pattern
 * operator class (text_pattern_ops, unless the collation is C); ILIKE and
 * LIKE without a prefix are GIN operators of pg_trgm's gin_trgm_ops.
 * col IS TRUE / IS FALSE are booleans like col / NOT col; IS NOT TRUE and
 * IS NOT FALSE only a partial index's predicate can serve.
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
#include "utils/fmgroids.h"
#include "utils/pg_locale.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"

#include "advice/advice_internal.h"

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

/* Does the LIKE pattern start with at least one literal character? */
static bool
advice_like_has_prefix(Expr *value)
{
	Const	   *c = (Const *) advice_strip(value);
	char	   *pattern;

	if (!IsA(c, Const) || c->constisnull)
		return false;
	pattern = TextDatumGetCString(c->constvalue);
	return pattern[0] != '\0' && pattern[0] != '%' && pattern[0] != '_' &&
		pattern[0] != '\\';
}

/*
 * key LIKE 'x%': a btree range under the pattern operator class (the
 * planner turns the prefix into index conditions); ILIKE, or LIKE without
 * a prefix: a trigram GIN operator (pg_trgm).  Sets out's kind and opclass.
 */
static bool
advice_classify_like(Oid opno, Expr *key, Expr *value, AdviceQual *out)
{
	RegProcedure code = get_opcode(opno);
	bool		bpchar = (code == F_BPCHARLIKE || code == F_BPCHARICLIKE);

	if (code != F_TEXTLIKE && code != F_TEXTICLIKE && !bpchar)
		return false;
	if ((code == F_TEXTLIKE || code == F_BPCHARLIKE) && advice_like_has_prefix(value))
	{
		out->kind = ADVICE_KIND_RANGE;
		if (!SfcCollationIsC(exprCollation((Node *) key)))
			out->opclass = bpchar ? "bpchar_pattern_ops" :
				"text_pattern_ops";
		return true;
	}
	out->kind = ADVICE_KIND_GIN;
	out->opclass = "gin_trgm_ops";
	return true;
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
	if (out->kind == 0 && !advice_classify_like(opno, left, right, out))
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
 * col IS TRUE / IS FALSE: as col / NOT col; col IS NOT TRUE / IS NOT FALSE
 * (SQLAlchemy's is_not(True)): only a predicate serves it.
 */
static bool
advice_classify_booltest(BooleanTest *bt, Index varno, AdviceQual *out)
{
	if (bt->booltesttype == IS_UNKNOWN || bt->booltesttype == IS_NOT_UNKNOWN)
		return false;
	if (!advice_classify_bool(bt->arg, bt->booltesttype == IS_TRUE ||
							  bt->booltesttype == IS_NOT_FALSE, varno, out))
		return false;
	if (bt->booltesttype == IS_NOT_TRUE || bt->booltesttype == IS_NOT_FALSE)
	{
		out->pred_only = true;
		out->const_hash = bt->booltesttype == IS_NOT_TRUE ? 3 : 4;
	}
	out->clause = (Expr *) bt;
	return true;
}

/* The arm quals of an OR, each classified alone; NIL if one is not. */
static List *
advice_or_singles(BoolExpr *or, Index varno)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, or->args)
	{
		AdviceQual *q = palloc(sizeof(AdviceQual));

		if (!AdviceClassifyQual((Expr *) lfirst(lc), varno, q))
			return NIL;
		result = lappend(result, q);
	}
	return result;
}

/*
 * The kind one index gives an OR of these arms on one key, or 0: GIN when
 * every arm uses the same GIN operator; else a range if one arm is, an
 * equality if one arm is, a boolean if one arm is.
 */
static AdviceKind
advice_or_kind(List *arms)
{
	AdviceQual *first = linitial(arms);
	bool		seen[128] = {false};
	ListCell   *lc;

	foreach(lc, arms)
	{
		AdviceQual *q = lfirst(lc);

		if (!AdviceSameKey(q, first) || q->pred_only ||
			((q->kind == ADVICE_KIND_GIN || first->kind == ADVICE_KIND_GIN) &&
			 (q->kind != first->kind || q->opno != first->opno)))
			return (AdviceKind) 0;
		seen[(int) q->kind] = true;
	}
	if (first->kind == ADVICE_KIND_GIN)
		return ADVICE_KIND_GIN;
	if (seen[ADVICE_KIND_RANGE])
		return ADVICE_KIND_RANGE;
	if (seen[ADVICE_KIND_EQ])
		return ADVICE_KIND_EQ;
	return seen[ADVICE_KIND_BOOL] ? ADVICE_KIND_BOOL : ADVICE_KIND_NULL;
}

/*
 * An OR whose arms all test one key: one qual, which an index on the key
 * serves through a BitmapOr ("scope_ids @> '[3]' OR scope_ids @> '[22]'",
 * "NOT is_pinned OR is_pinned IS NULL").  Its operator is the first arm's
 * that has one; its constant hash combines the arms'.
 */
static bool
advice_classify_or(BoolExpr *or, Index varno, AdviceQual *out)
{
	List	   *arms = advice_or_singles(or, varno);
	List	   *clauses = NIL;
	ListCell   *lc;
	AdviceKind	kind;

	if (arms == NIL || (kind = advice_or_kind(arms)) == 0)
		return false;
	*out = *(AdviceQual *) linitial(arms);
	out->kind = kind;
	out->const_hash = 0;
	foreach(lc, arms)
	{
		AdviceQual *q = lfirst(lc);

		if (out->opno == InvalidOid)
			out->opno = q->opno;
		if (q->opclass != NULL)
			out->opclass = q->opclass;
		out->is_const = out->is_const && q->is_const;
		out->const_hash = hash_combine(out->const_hash, q->const_hash);
		clauses = lappend(clauses, q->clause);
	}
	if (kind == ADVICE_KIND_BOOL && out->opno == InvalidOid)
		out->opno = BooleanEqualOperator;
	out->clause = make_orclause(clauses);
	return true;
}

/*
 * The arms of an OR across keys ("author_id = 5 OR editor_id = 5"), each
 * the list of its classified conjuncts (AdviceQual *): each arm needs an
 * index of its own, the planner combining them with a BitmapOr.  NIL when
 * clause is no such OR, or an arm has nothing an index could find (then no
 * set of indexes serves the OR).
 */
List *
AdviceClassifyOrArms(Expr *clause, Index varno)
{
	List	   *result = NIL;
	ListCell   *lc;

	clause = advice_strip(clause);
	if (!is_orclause(clause))
		return NIL;
	foreach(lc, ((BoolExpr *) clause)->args)
	{
		Expr	   *arm = lfirst(lc);
		List	   *conjuncts = is_andclause(arm) ? ((BoolExpr *) arm)->args : list_make1(arm);
		List	   *quals = NIL;
		ListCell   *lc2;

		foreach(lc2, conjuncts)
		{
			AdviceQual *q = palloc(sizeof(AdviceQual));

			if (AdviceClassifyQual((Expr *) lfirst(lc2), varno, q) && !q->pred_only)
				quals = lappend(quals, q);
		}
		if (quals == NIL)
			return NIL;
		result = lappend(result, quals);
	}
	return result;
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
	if (IsA(clause, BooleanTest))
		return advice_classify_booltest((BooleanTest *) clause, varno, out);
	if (is_orclause(clause))
		return advice_classify_or((BoolExpr *) clause, varno, out);
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

/* Is plan a bitmap heap scan over a BitmapAnd of two or more indexes? */
bool
AdviceBitmapAnd(Plan *plan)
{
	return IsA(plan, BitmapHeapScan) && IsA(outerPlan(plan), BitmapAnd);
}

/* Do two quals test the same column or expression? */
bool
AdviceSameKey(AdviceQual *a, AdviceQual *b)
{
	if (a->attnum != 0 || b->attnum != 0)
		return a->attnum == b->attnum;
	return equal(a->key, b->key);
}

/*
 * The key as SQL text, e.g. "scope_ids" or "(data -> 'scope'::text)". A
 * column is what deparse_expression() prints for it, without building a
 * deparse context.
 */
char *
AdviceKeyText(Expr *key, Index varno, Oid relid)
{
	Node	   *copy;
	char	   *relname;

	if (IsA(key, Var) && ((Var *) key)->varattno > 0)
	{
		char	   *attname = get_attname(relid, ((Var *) key)->varattno, true);

		return pstrdup(attname ? quote_identifier(attname) : "?");
	}
	copy = copyObject((Node *) key);
	relname = get_rel_name(relid);
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
