/*-------------------------------------------------------------------------
 *
 * advice_rules.c
 *		The suggestion rules: from a candidate's quals to the concrete
 *		index definitions worth verifying.
 *
 *	GIN:   jsonb_path_ops when every operator used on the key (in any
 *		   recorded statement) is in that operator family (@>, @?, @@),
 *		   jsonb_ops otherwise; ILIKE and LIKE without a prefix get
 *		   pg_trgm's gin_trgm_ops (no candidate without pg_trgm); arrays and
 *		   other types get their default operator class.
 *	LIKE 'x%': a range column under text_pattern_ops (varchar_pattern_ops,
 *		   bpchar_pattern_ops) unless the collation is C.
 *	IS NOT TRUE / IS NOT FALSE: only ever the predicate of a partial index.
 *	btree: equality columns first, the most selective first (n_distinct
 *		   from pg_statistic); then one range column (one variant per range
 *		   column: the verification keeps the cheapest, i.e. the most
 *		   selective); or, without a range column, the ORDER BY columns of
 *		   a LIMIT when that removes a sort.  A boolean column, or a
 *		   low-cardinality column always compared to the same constant,
 *		   becomes the partial-index predicate (WHERE NOT is_deleted) --
 *		   unless an existing plain btree index on some of the equality
 *		   columns can be extended, in which case the suggestion extends it
 *		   (its columns first) and says it replaces it.
 *		   For the configuration search, each btree variant also comes
 *		   with INCLUDE columns when an index-only scan could follow: the
 *		   scan's output columns and the columns of its quals the key and
 *		   predicate do not cover, at most ADVICE_INCLUDE_MAX of them and
 *		   ADVICE_INCLUDE_WIDTH bytes wide on average.  Also for the search:
 *		   a variant extending an existing index comes as well as the new
 *		   partial index it would be without that index ((tenant_id,
 *		   due_date) WHERE NOT is_archived beside the foreign key's
 *		   (tenant_id)), and a variant whose keys may be NULL comes as well
 *		   restricted to the rows where they are not (WHERE due_date IS NOT
 *		   NULL), when at most ADVICE_SPARSE_SHARE of the rows are, as
 *		   measured on a sample of the table (the planner has no statistics
 *		   on an expression yet: (custom -> 'customer') IS NOT NULL).
 *	ORDER BY keys of a LIMIT: descending ones DESC when the directions are
 *		   mixed (priority, created_at DESC: no scan direction serves that
 *		   otherwise); for the search also a variant without the equality
 *		   columns that take several values (an IN list, an OR), after which
 *		   a btree index cannot return the rows in that order.
 *	Every predicate is one the planner proves from the quals the candidate
 *		   was built from (predicate_implied_by, as check_index_predicates
 *		   does): an IS NOT NULL follows from a strict operator on the key.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>

#include "access/htup_details.h"
#include "access/sysattr.h"
#include "catalog/namespace.h"
#include "access/genam.h"
#include "access/table.h"
#include "catalog/pg_am.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"

#include "advice/advice_internal.h"

#define ADVICE_STATUS_DISTINCT	16	/* at most this many values: a "status" */
#define ADVICE_INCLUDE_MAX		3	/* INCLUDE columns at most */
#define ADVICE_INCLUDE_WIDTH	48	/* their average width, bytes, at most */
#define ADVICE_SPARSE_SHARE		0.75	/* an IS NOT NULL variant holds at
										 * most this share of the rows */
#define ADVICE_SAMPLE_ROWS		30000	/* rows sampled to measure that share */

static char *advice_pred_sql(AdviceCandidate *c);

/* Number of distinct values of a column, from pg_statistic; 0 if unknown. */
static double
advice_ndistinct(Oid relid, AttrNumber attnum)
{
	HeapTuple	tup;
	double		d;

	if (attnum <= 0)
		return 0;
	tup = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(relid),
						  Int16GetDatum(attnum), BoolGetDatum(false));
	if (!HeapTupleIsValid(tup))
		return 0;
	d = ((Form_pg_statistic) GETSTRUCT(tup))->stadistinct;
	ReleaseSysCache(tup);
	return d < 0 ? -d * AdviceRelTuples(relid) : d;
}

/* quals without a second qual on the same key */
static List *
advice_unique_keys(List *quals, List *skip)
{
	List	   *result = NIL;
	ListCell   *lc;
	ListCell   *lc2;

	foreach(lc, quals)
	{
		AdviceQual *q = lfirst(lc);
		bool		dup = false;

		foreach(lc2, list_concat_copy(result, skip))
			dup = dup || AdviceSameKey(q, lfirst(lc2));
		if (!dup)
			result = lappend(result, q);
	}
	return result;
}

/* Was q always compared to the same constant in every recorded execution? */
static bool
advice_constant_always(AdviceContext *ctx, Oid relid, AdviceQual *q)
{
	ListCell   *lc;
	bool		seen = false;

	foreach(lc, ctx->quals)
	{
		AdviceQualStats *s = lfirst(lc);

		if (s->key.relid != relid || s->key.attnum != q->attnum ||
			s->key.opno != q->opno || s->key.role == ADVICE_ROLE_INDEXCOND ||
			s->key.role == ADVICE_ROLE_WINDOW)
			continue;
		if (s->const_varies)
			return false;
		seen = true;
	}
	return seen;
}

/* Should q become the predicate of a partial index? */
static bool
advice_is_predicate(AdviceContext *ctx, Oid relid, AdviceQual *q)
{
	if (q->attnum <= 0 || !q->is_const)
		return false;
	if (q->kind == ADVICE_KIND_EQ &&
		(!IsA(q->clause, OpExpr) ||
		 advice_ndistinct(relid, q->attnum) > ADVICE_STATUS_DISTINCT))
		return false;
	if (q->kind != ADVICE_KIND_EQ && q->kind != ADVICE_KIND_BOOL)
		return false;
	return advice_constant_always(ctx, relid, q);
}

static Oid	advice_sort_relid;

/* Most distinct values first; columns before expressions; then attnum. */
static int
advice_selectivity_cmp(const ListCell *a, const ListCell *b)
{
	AdviceQual *qa = lfirst(a);
	AdviceQual *qb = lfirst(b);
	double		da = advice_ndistinct(advice_sort_relid, qa->attnum);
	double		db = advice_ndistinct(advice_sort_relid, qb->attnum);

	if (da != db)
		return da > db ? -1 : 1;
	return qa->attnum - qb->attnum;
}

/* A candidate sharing c's table and evidence, with its own key list. */
static AdviceCandidate *
advice_variant(AdviceCandidate *c, List *keys, List *pred, char *replaces)
{
	AdviceCandidate *v = palloc(sizeof(AdviceCandidate));

	memcpy(v, c, sizeof(AdviceCandidate));
	v->keys = keys;
	v->pred = pred;
	v->replaces = replaces;
	return v;
}

/* The quals of list that an index key can serve (not IS NOT TRUE). */
static List *
advice_key_quals(List *quals)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, quals)
	{
		if (!((AdviceQual *) lfirst(lc))->pred_only)
			result = lappend(result, lfirst(lc));
	}
	return result;
}

/*
 * The keys of keys that fix one value (not an IN list or = ANY): only
 * those, before the ORDER BY keys, let a btree index return the rows in
 * that order (an IN list on a later column makes it read each value's
 * rows apart, unordered).
 */
static List *
advice_single_value_keys(List *keys)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, keys)
	{
		AdviceQual *q = lfirst(lc);

		if (!IsA(q->clause, ScalarArrayOpExpr) &&
			!(q->kind == ADVICE_KIND_EQ && is_orclause(q->clause)))
			result = lappend(result, q);
	}
	return result;
}

/*
 * The btree variants of c over its equality quals eq and range quals range,
 * extending the existing index whose columns prefix are (replaces, or NULL):
 * one per range column, or with the sort keys.  Without an index to extend,
 * the equality quals advice_is_predicate accepts become the predicate.
 */
static List *
advice_btree_keyed(AdviceContext *ctx, AdviceCandidate *c, List *eq, List *range,
				   List *prefix, char *replaces)
{
	List	   *pred = NIL;
	List	   *keys = NIL;
	List	   *variants = NIL;
	ListCell   *lc;

	foreach(lc, eq)
	{
		AdviceQual *q = lfirst(lc);

		if (list_member_ptr(prefix, q))
			continue;
		if (replaces == NULL && advice_is_predicate(ctx, c->relid, q))
			pred = lappend(pred, q);
		else if (!q->pred_only)
			keys = lappend(keys, q);
	}
	advice_sort_relid = c->relid;
	list_sort(keys, advice_selectivity_cmp);
	keys = list_concat(list_copy(prefix), keys);
	foreach(lc, range)
		variants = lappend(variants,
						   advice_variant(c, lappend(list_copy(keys), lfirst(lc)), pred, replaces));
	if (range == NIL && c->sort != NIL)
		variants = lappend(variants,
						   advice_variant(c, list_concat(list_copy(keys),
														 advice_unique_keys(c->sort, keys)),
										  pred, replaces));
	if (range == NIL && c->sort != NIL && advice_search &&
		list_length(advice_single_value_keys(keys)) < list_length(keys))
	{
		List	   *single = advice_single_value_keys(keys);

		variants = lappend(variants,
						   advice_variant(c, list_concat(list_copy(single),
														 advice_unique_keys(c->sort, single)),
										  pred, replaces));
	}
	if (range == NIL && keys != NIL)
		variants = lappend(variants, advice_variant(c, keys, pred, replaces));
	return variants;
}

/*
 * The btree variants of c.  When c extends an existing index, the search
 * also gets, in *smaller, the partial variants a new index would have
 * instead: an expert's (tenant_id, due_date) WHERE NOT is_archived beside
 * (tenant_id, is_archived, due_date) extending the foreign key's index; the
 * search weighs their bytes.
 */
static List *
advice_btree_variants(AdviceContext *ctx, AdviceCandidate *c, List **smaller)
{
	List	   *eq = advice_unique_keys(c->eq, NIL);
	List	   *range = advice_unique_keys(c->range, eq);
	List	   *prefix;
	char	   *replaces = AdviceBtreePrefix(c->relid, advice_key_quals(eq), &prefix);
	List	   *variants = advice_btree_keyed(ctx, c, eq, range, prefix, replaces);
	ListCell   *lc;

	*smaller = NIL;
	if (replaces == NULL || !advice_search)
		return variants;
	foreach(lc, eq)
	{
		if (advice_is_predicate(ctx, c->relid, lfirst(lc)))
		{
			*smaller = advice_btree_keyed(ctx, c, eq, range, NIL, NULL);
			break;
		}
	}
	return variants;
}

/*
 * Does every statement c was found in imply c's predicate, as the planner
 * proves it (predicate_implied_by, as check_index_predicates does) from
 * the quals c was built from?  Else the planner could never use the index.
 */
static bool
advice_pred_implied(AdviceCandidate *c)
{
	List	   *pred = NIL;
	List	   *clauses = NIL;
	ListCell   *lc;

	foreach(lc, c->pred)
		pred = lappend(pred, ((AdviceQual *) lfirst(lc))->clause);
	foreach(lc, list_concat_copy(c->eq, c->range))
		clauses = lappend(clauses, ((AdviceQual *) lfirst(lc))->clause);
	return predicate_implied_by(pred, clauses, false);
}

/* May key q be NULL: a column without NOT NULL, or an expression? */
static bool
advice_nullable(AdviceCandidate *c, AdviceQual *q)
{
	HeapTuple	tup;
	bool		notnull;

	if (q->kind != ADVICE_KIND_EQ && q->kind != ADVICE_KIND_RANGE)
		return false;
	if (q->attnum <= 0)
		return true;
	tup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(c->relid), Int16GetDatum(q->attnum));
	if (!HeapTupleIsValid(tup))
		return false;
	notnull = ((Form_pg_attribute) GETSTRUCT(tup))->attnotnull;
	ReleaseSysCache(tup);
	return !notnull;
}

typedef struct ShareRun
{
	Oid			relid;
	const char *notnull_sql;
	const char *pred_sql;
	double		notnull_share;	/* -1: not measured */
	double		pred_share;
} ShareRun;

/*
 * Measure, on a sample of about ADVICE_SAMPLE_ROWS rows of the table
 * (TABLESAMPLE SYSTEM, REPEATABLE: the same rows each time), the share of
 * rows that pass run's two conditions (inside AdviceTry).  The planner has
 * no statistics on an expression no index has yet, and estimates IS NOT
 * NULL of it at 99.5%; what ANALYZE would find is what the size needs.
 */
static void
advice_sample_share(void *arg)
{
	ShareRun   *run = arg;
	double		pct = Min(100.0, 100.0 * ADVICE_SAMPLE_ROWS / AdviceRelTuples(run->relid));
	char	   *sql;
	bool		isnull;
	int64		rows;

	sql = psprintf("SELECT count(*) FILTER (WHERE %s), count(*) FILTER (WHERE %s), count(*)"
				   " FROM ONLY %s TABLESAMPLE SYSTEM (%g) REPEATABLE (0)",
				   run->notnull_sql, run->pred_sql,
				   quote_qualified_identifier(get_namespace_name(get_rel_namespace(run->relid)),
											  get_rel_name(run->relid)),
				   pct);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute(sql, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not sample relation %u", run->relid);
	rows = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull));
	if (rows > 0)
	{
		run->notnull_share =
			DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull)) /
			(double) rows;
		run->pred_share =
			DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull)) /
			(double) rows;
	}
	SPI_finish();
}

/*
 * The variant of btree variant v that holds only the rows whose nullable
 * keys are not NULL (WHERE due_date IS NOT NULL), when every statement it
 * serves implies that (a strict operator on the key: due_date < ..., (custom
 * -> 'customer') = ...) and at most ADVICE_SPARSE_SHARE of the rows pass;
 * else NULL.  Its size is that of the measured share of the table.
 */
static AdviceCandidate *
advice_sparse_variant(AdviceCandidate *v)
{
	List	   *notnull = NIL;
	AdviceCandidate *sv;
	ShareRun	run = {v->relid, NULL, NULL, -1, -1};
	ListCell   *lc;

	foreach(lc, v->keys)
	{
		AdviceQual *q = lfirst(lc);
		AdviceQual *n;
		NullTest   *nt;

		if (!advice_nullable(v, q))
			continue;
		nt = makeNode(NullTest);
		nt->arg = copyObject(q->key);
		nt->nulltesttype = IS_NOT_NULL;
		nt->argisrow = false;
		nt->location = -1;
		n = palloc0(sizeof(AdviceQual));
		n->kind = ADVICE_KIND_NULL;
		n->attnum = q->attnum;
		n->key = q->key;
		n->clause = (Expr *) nt;
		notnull = lappend(notnull, n);
	}
	if (notnull == NIL)
		return NULL;
	sv = advice_variant(v, v->keys, list_concat_copy(v->pred, notnull), NULL);
	sv->replaces = NULL;
	if (!advice_pred_implied(sv))
		return NULL;
	sv->pred = notnull;
	run.notnull_sql = advice_pred_sql(sv);
	sv->pred = list_concat_copy(v->pred, notnull);
	run.pred_sql = advice_pred_sql(sv);
	if (!AdviceTry(advice_sample_share, &run) || run.notnull_share < 0 ||
		run.notnull_share > ADVICE_SPARSE_SHARE)
		return NULL;
	AdviceCandidateDdl(sv);
	sv->windex = WhatifParseIndexDdl(sv->ddl);
	sv->windex->pred_share = run.pred_share;
	WhatifEstimateSizeFromCatalog(sv->windex);
	return sv;
}

/* Remove the column of each qual in quals from the set cols. */
static Bitmapset *
advice_without_columns(Bitmapset *cols, List *quals)
{
	ListCell   *lc;

	foreach(lc, quals)
	{
		AdviceQual *q = lfirst(lc);

		if (q->attnum > 0)
			cols = bms_del_member(cols, q->attnum - FirstLowInvalidHeapAttributeNumber);
	}
	return cols;
}

/*
 * The variant of v with the INCLUDE columns an index-only scan needs, or
 * NULL: none needed, an expression or whole row needed, or too many or too
 * wide.
 */
static AdviceCandidate *
advice_include_variant(AdviceCandidate *v)
{
	Bitmapset  *need = bms_union(v->output,
								 advice_without_columns(bms_copy(v->filtered), v->pred));
	List	   *include = NIL;
	int32		width = 0;
	int			x = -1;
	AdviceCandidate *iv;

	if (!v->columns_known)
		return NULL;
	need = advice_without_columns(need, v->keys);
	while ((x = bms_next_member(need, x)) >= 0)
	{
		AttrNumber	attnum = x + FirstLowInvalidHeapAttributeNumber;

		if (attnum <= 0)
			return NULL;
		width += Max(get_attavgwidth(v->relid, attnum), 1);
		include = lappend_int(include, attnum);
	}
	if (include == NIL || list_length(include) > ADVICE_INCLUDE_MAX ||
		width > ADVICE_INCLUDE_WIDTH)
		return NULL;
	iv = advice_variant(v, v->keys, v->pred, v->replaces);
	iv->include = include;
	return iv;
}

/* The operators used on a GIN key, here and in every recorded statement. */
static List *
advice_gin_opnos(AdviceContext *ctx, AdviceCandidate *c, AdviceQual *key)
{
	char	   *text = AdviceKeyText(key->key, 1, c->relid);
	List	   *opnos = NIL;
	ListCell   *lc;

	foreach(lc, c->ginquals)
		opnos = list_append_unique_oid(opnos, ((AdviceQual *) lfirst(lc))->opno);
	foreach(lc, ctx->quals)
	{
		AdviceQualStats *s = lfirst(lc);

		if (s->key.relid == c->relid && s->kind == ADVICE_KIND_GIN &&
			s->key.attnum == key->attnum && strcmp(s->expr, text) == 0)
			opnos = list_append_unique_oid(opnos, s->key.opno);
	}
	return opnos;
}

/*
 * The schema-qualified name of pg_trgm's operator class name of access
 * method am, in whatever schema the extension was created in, or NULL when
 * pg_trgm is not installed.  (Not through the search_path: the advice's
 * functions run with their own.)
 */
static const char *
advice_trgm_opclass(Oid am, const char *name)
{
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData keys[2];
	HeapTuple	tup;
	const char *result = NULL;

	if (!OidIsValid(get_extension_oid("pg_trgm", true)))
		return NULL;
	ScanKeyInit(&keys[0], Anum_pg_opclass_opcmethod, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(am));
	ScanKeyInit(&keys[1], Anum_pg_opclass_opcname, BTEqualStrategyNumber,
				F_NAMEEQ, CStringGetDatum(name));
	rel = table_open(OperatorClassRelationId, AccessShareLock);
	scan = systable_beginscan(rel, OpclassAmNameNspIndexId, true, NULL, 2, keys);
	if (HeapTupleIsValid(tup = systable_getnext(scan)))
		result = quote_qualified_identifier(get_namespace_name(((Form_pg_opclass) GETSTRUCT(tup))->opcnamespace),
											name);
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return result;
}

/* Can jsonb_path_ops serve every operator in opnos? */
static bool
advice_path_ops_serve(List *opnos)
{
	Oid			opclass = get_opclass_oid(GIN_AM_OID,
										  list_make1(makeString("jsonb_path_ops")), true);
	Oid			family = OidIsValid(opclass) ? get_opclass_family(opclass) : InvalidOid;
	ListCell   *lc;

	foreach(lc, opnos)
	{
		if (!OidIsValid(family) || !op_in_opfamily(lfirst_oid(lc), family))
			return false;
	}
	return true;
}

/*
 * The search's forms of btree variants variants: each, restricted to
 * non-NULL keys, with INCLUDE columns, and both; the smaller partial
 * alternatives to extending an index, each and restricted to non-NULL keys
 * (they stand for a narrower index than the extension: no INCLUDE).
 */
static List *
advice_search_forms(List *variants, List *smaller)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, list_concat_copy(variants, smaller))
	{
		AdviceCandidate *iv = NULL;
		AdviceCandidate *sv = advice_sparse_variant(lfirst(lc));

		if (foreach_current_index(lc) < list_length(variants))
			iv = advice_include_variant(lfirst(lc));
		result = lappend(result, lfirst(lc));
		if (sv != NULL)
			result = lappend(result, sv);
		if (iv != NULL)
		{
			result = lappend(result, iv);
			if ((sv = advice_sparse_variant(iv)) != NULL)
				result = lappend(result, sv);
		}
	}
	return result;
}

/*
 * The variants of candidate c worth verifying, each with its DDL and its
 * hypothetical index; none when an existing index already serves it.
 */
List *
AdviceCandidateVariants(AdviceContext *ctx, AdviceCandidate *c)
{
	List	   *variants = NIL;
	List	   *smaller = NIL;
	List	   *result = NIL;
	ListCell   *lc;

	if (c->gin)
	{
		AdviceQual *key = linitial(c->ginquals);
		List	   *opnos = advice_gin_opnos(ctx, c, key);
		AdviceCandidate *v = advice_variant(c, list_make1(key), NIL, NULL);

		if (AdviceGinServed(c->relid, key, opnos))
			return NIL;
		if (exprType((Node *) key->key) == JSONBOID)
			v->opclass = advice_path_ops_serve(opnos) ? "jsonb_path_ops" : "jsonb_ops";
		else if (key->opclass != NULL &&
				 (v->opclass = advice_trgm_opclass(GIN_AM_OID, key->opclass)) == NULL)
			return NIL;			/* gin_trgm_ops, and pg_trgm is not installed */
		variants = list_make1(v);
	}
	else if (AdviceUniqueServed(c->relid, c->eq))
		return NIL;				/* a primary key lookup is served */
	else
		variants = advice_btree_variants(ctx, c, &smaller);
	if (!c->gin && advice_search)
		variants = advice_search_forms(variants, smaller);
	foreach(lc, variants)
	{
		AdviceCandidate *v = lfirst(lc);

		if ((!v->gin && AdviceBtreeServed(v->relid, v->keys, v->pred != NIL)) ||
			(v->pred != NIL && !advice_pred_implied(v)))
			continue;
		if (v->windex == NULL)
		{
			AdviceCandidateDdl(v);
			v->windex = WhatifParseIndexDdl(v->ddl);
		}
		result = lappend(result, v);
	}
	return result;
}

/* Append a part of an index name: its ASCII letters and digits, lower-cased, in runs joined by "_". */
static void
advice_name_part(StringInfo name, const char *text)
{
	const char *p;
	bool		sep = true;

	for (p = text; *p; p++)
	{
		if (IS_HIGHBIT_SET(*p) == 0 && isalnum((unsigned char) *p))
		{
			if (sep && name->len > 0)
				appendStringInfoChar(name, '_');
			appendStringInfoChar(name, pg_ascii_tolower((unsigned char) *p));
			sep = false;
		}
		else if (strncmp(p, "::", 2) == 0)
			break;
		else
			sep = true;
	}
}

/*
 * Append "_<suffix>", first cutting name so that the whole fits in
 * NAMEDATALEN - 1 bytes (the suffix says what the index is: keep it).
 */
static void
advice_name_cut(StringInfo name, const char *suffix)
{
	int			room = NAMEDATALEN - 2 - (int) strlen(suffix);

	if (name->len > room)
		name->data[name->len = room] = '\0';
	while (name->len > 0 && name->data[name->len - 1] == '_')
		name->data[--name->len] = '\0';
	advice_name_part(name, suffix);
}

/* Is q an ORDER BY key in descending order (a "greater than" operator)? */
static bool
advice_sort_desc(AdviceQual *q)
{
	Oid			opfamily;
	Oid			opcintype;
	CompareType cmp;

	return q->kind == ADVICE_KIND_SORT &&
		get_ordering_op_properties(q->opno, &opfamily, &opcintype, &cmp) &&
		cmp == COMPARE_GT;
}

/*
 * Do c's ORDER BY keys go both ways (ORDER BY priority, created_at DESC)?
 * Then the index must store the descending ones descending; in one
 * direction, a scan backwards serves either.
 */
static bool
advice_sort_mixed(AdviceCandidate *c)
{
	bool		asc = false;
	bool		desc = false;
	ListCell   *lc;

	foreach(lc, c->keys)
	{
		AdviceQual *q = lfirst(lc);

		if (q->kind != ADVICE_KIND_SORT)
			continue;
		if (advice_sort_desc(q))
			desc = true;
		else
			asc = true;
	}
	return asc && desc;
}

/* The SQL of key column q: a quoted column name or a parenthesised expression. */
static char *
advice_key_sql(AdviceCandidate *c, AdviceQual *q)
{
	char	   *sql;

	if (q->attnum > 0)
		sql = (char *) quote_identifier(get_attname(c->relid, q->attnum, false));
	else
		sql = psprintf("(%s)", AdviceKeyText(q->key, 1, c->relid));
	if (!c->gin && q->opclass != NULL)
		sql = psprintf("%s %s", sql, q->opclass);
	if (!c->gin && advice_sort_desc(q) && advice_sort_mixed(c))
		sql = psprintf("%s DESC", sql);
	return sql;
}

static char *
advice_pred_sql(AdviceCandidate *c)
{
	List	   *clauses = NIL;
	ListCell   *lc;

	foreach(lc, c->pred)
		clauses = lappend(clauses, ((AdviceQual *) lfirst(lc))->clause);
	return AdviceKeyText(clauses == NIL ? NULL :
						 list_length(clauses) == 1 ? linitial(clauses) :
						 make_andclause(clauses), 1, c->relid);
}

/* Set c->name and c->ddl: CREATE INDEX CONCURRENTLY IF NOT EXISTS ... */
void
AdviceCandidateDdl(AdviceCandidate *c)
{
	StringInfoData name;
	StringInfoData ddl;
	ListCell   *lc;
	char	   *relname = get_rel_name(c->relid);

	initStringInfo(&name);
	advice_name_part(&name, relname);
	foreach(lc, c->keys)
		advice_name_part(&name, AdviceKeyText(((AdviceQual *) lfirst(lc))->key, 1, c->relid));
	advice_name_cut(&name, c->gin ? "gin_idx" : (c->pred ? "partial_idx" : "idx"));
	c->name = name.data;

	initStringInfo(&ddl);
	appendStringInfo(&ddl, "CREATE INDEX CONCURRENTLY IF NOT EXISTS %s ON %s USING %s (",
					 quote_identifier(c->name),
					 quote_qualified_identifier(get_namespace_name(get_rel_namespace(c->relid)),
												relname),
					 c->gin ? "gin" : "btree");
	foreach(lc, c->keys)
		appendStringInfo(&ddl, "%s%s", lc == list_head(c->keys) ? "" : ", ",
						 advice_key_sql(c, lfirst(lc)));
	if (c->opclass != NULL)
		appendStringInfo(&ddl, " %s", c->opclass);
	appendStringInfoChar(&ddl, ')');
	foreach(lc, c->include)
		appendStringInfo(&ddl, "%s%s", lc == list_head(c->include) ? " INCLUDE (" : ", ",
						 quote_identifier(get_attname(c->relid, lfirst_int(lc), false)));
	if (c->include != NIL)
		appendStringInfoChar(&ddl, ')');
	if (c->pred != NIL)
		appendStringInfo(&ddl, " WHERE %s", advice_pred_sql(c));
	c->ddl = ddl.data;
}
