/*-------------------------------------------------------------------------
 *
 * cache_code.c
 *		Every piece of code a statement can run, for the two rules that
 *		depend on it: all of it must be IMMUTABLE (or named in
 *		sfcache.immutable_functions) for the statement to be cached, and a
 *		hit must check EXECUTE on the functions a real execution checks.
 *
 * A query tree shows function calls as FuncExpr, OpExpr and friends, which
 * check_functions_in_node() covers. It does not show:
 *	- an aggregate's support functions (CREATE AGGREGATE records the
 *	  aggregate itself as IMMUTABLE whatever its state function is, and
 *	  the built-in jsonb_object_agg is IMMUTABLE with STABLE ones);
 *	- the support functions of operator families that implement an
 *	  operator (btree comparison for sorts and merge joins, hash functions
 *	  for hash joins and hashed aggregation), also for ORDER BY, GROUP BY,
 *	  DISTINCT, window and set-operation clauses, whose SortGroupClause
 *	  nodes are not expressions;
 *	- the comparison and hashing of a type whose values are compared
 *	  field by field or element by element (records, arrays, ranges);
 *	- a domain's CHECK constraints, run by every cast to it;
 *	- a window frame's in_range support functions.
 * Built-in operators and types (OID below FirstNormalObjectId) are
 * IMMUTABLE where that matters, so only user-defined ones are looked up: a
 * statement over built-in types pays nothing more. Aggregates are looked up
 * whatever their OID (a query of pg_aggregate for every built-in one with a
 * support function not IMMUTABLE finds jsonb_object_agg, IMMUTABLE itself,
 * and json_agg, jsonb_agg and json_object_agg, which are STABLE).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_amproc.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "nodes/execnodes.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/catcache.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
#include "utils/varlena.h"

#include "cache/cache_internal.h"

static bool type_is_mutable(Oid typid, List **types);
static bool expr_is_mutable(Node *node, List **types);

/* Is the function named in sfcache.immutable_functions? */
static bool
allowed_by_setting(Oid funcid)
{
	char	   *names;
	List	   *list;
	ListCell   *lc;
	const char *name;
	const char *schema;
	bool		allowed = false;

	if (cache_immutable_functions == NULL || cache_immutable_functions[0] == '\0')
		return false;
	name = get_func_name(funcid);
	schema = get_namespace_name(get_func_namespace(funcid));
	if (name == NULL || schema == NULL)
		return false;
	names = pstrdup(cache_immutable_functions);
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

/* May a call of this function give another result for the same input? */
static bool
function_is_mutable(Oid funcid)
{
	return OidIsValid(funcid) &&
		func_volatile(funcid) != PROVOLATILE_IMMUTABLE &&
		!allowed_by_setting(funcid);
}

static bool
function_is_mutable_cb(Oid funcid, void *context)
{
	return function_is_mutable(funcid);
}

/*
 * The support functions of an aggregate, built-in ones too: a built-in
 * aggregate labelled IMMUTABLE may have STABLE ones (jsonb_object_agg's
 * transition and final functions print its arguments with their output
 * functions, which read the catalogs for regclass and friends).
 */
static bool
aggregate_is_mutable(Oid aggfnoid, List **types)
{
	HeapTuple	tup;
	Form_pg_aggregate agg;
	bool		mutable;

	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfnoid));
	if (!HeapTupleIsValid(tup))
		return false;			/* not an aggregate */
	agg = (Form_pg_aggregate) GETSTRUCT(tup);
	mutable = function_is_mutable(agg->aggtransfn) ||
		function_is_mutable(agg->aggfinalfn) ||
		function_is_mutable(agg->aggcombinefn) ||
		function_is_mutable(agg->aggserialfn) ||
		function_is_mutable(agg->aggdeserialfn) ||
		function_is_mutable(agg->aggmtransfn) ||
		function_is_mutable(agg->aggminvtransfn) ||
		function_is_mutable(agg->aggmfinalfn) ||
		type_is_mutable(agg->aggtranstype, types);
	ReleaseSysCache(tup);
	return mutable;
}

/* Every support function of the operator families that hold the operator. */
static bool
operator_families_are_mutable(Oid opno)
{
	CatCList   *amops = SearchSysCacheList1(AMOPOPID, ObjectIdGetDatum(opno));
	bool		mutable = false;

	for (int i = 0; i < amops->n_members && !mutable; i++)
	{
		Form_pg_amop amop = (Form_pg_amop) GETSTRUCT(&amops->members[i]->tuple);
		CatCList   *procs = SearchSysCacheList3(AMPROCNUM,
												ObjectIdGetDatum(amop->amopfamily),
												ObjectIdGetDatum(amop->amoplefttype),
												ObjectIdGetDatum(amop->amoprighttype));

		for (int j = 0; j < procs->n_members && !mutable; j++)
		{
			Form_pg_amproc amproc = (Form_pg_amproc) GETSTRUCT(&procs->members[j]->tuple);

			mutable = function_is_mutable(amproc->amproc);
		}
		ReleaseSysCacheList(procs);
	}
	ReleaseSysCacheList(amops);
	return mutable;
}

/* A user-defined operator: its function, its families, its input types. */
static bool
operator_is_mutable(Oid opno, List **types)
{
	HeapTuple	tup;
	Form_pg_operator op;
	bool		mutable;

	if (!OidIsValid(opno) || opno < FirstNormalObjectId)
		return false;
	tup = SearchSysCache1(OPEROID, ObjectIdGetDatum(opno));
	if (!HeapTupleIsValid(tup))
		return false;
	op = (Form_pg_operator) GETSTRUCT(tup);
	mutable = function_is_mutable(op->oprcode) ||
		type_is_mutable(op->oprleft, types) ||
		type_is_mutable(op->oprright, types);
	ReleaseSysCache(tup);
	return mutable || operator_families_are_mutable(opno);
}

/* A domain's base type and the expressions of its CHECK constraints. */
static bool
domain_is_mutable(Oid typid, Oid basetype, List **types)
{
	DomainConstraintRef *ref;
	ListCell   *lc;

	if (type_is_mutable(basetype, types))
		return true;
	/* in the context it registers a reset callback with, not on the stack */
	ref = palloc(sizeof(DomainConstraintRef));
	InitDomainConstraintRef(typid, ref, CurrentMemoryContext, false);
	foreach(lc, ref->constraints)
	{
		DomainConstraintState *con = lfirst(lc);

		if (con->check_expr != NULL && expr_is_mutable((Node *) con->check_expr, types))
			return true;
	}
	return false;
}

/* The columns of a composite type. */
static bool
composite_is_mutable(Oid typid, List **types)
{
	TupleDesc	desc = lookup_rowtype_tupdesc(typid, -1);
	bool		mutable = false;

	for (int i = 0; i < desc->natts && !mutable; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (!att->attisdropped)
			mutable = type_is_mutable(att->atttypid, types);
	}
	ReleaseTupleDesc(desc);
	return mutable;
}

/*
 * The code that compares, hashes and checks values of a user-defined type:
 * its default btree and hash support, and recursively that of its
 * elements, fields, range subtype and domain base type. Input and output
 * functions are not included: constants are converted when the statement
 * is parsed, stored rows are converted when they are sent, and a cast
 * that runs them (CoerceViaIO) is a function call of its own.
 */
static bool
type_is_mutable(Oid typid, List **types)
{
	TypeCacheEntry *tc;
	char		typtype;

	if (!OidIsValid(typid) || typid < FirstNormalObjectId ||
		list_member_oid(*types, typid))
		return false;
	/* checked once per statement; a type that contains itself stops here */
	*types = lappend_oid(*types, typid);

	typtype = get_typtype(typid);
	if (typtype == TYPTYPE_PSEUDO)
		return false;
	if (typtype == TYPTYPE_DOMAIN)
		return domain_is_mutable(typid, getBaseType(typid), types);

	tc = lookup_type_cache(typid, TYPECACHE_EQ_OPR | TYPECACHE_LT_OPR |
						   TYPECACHE_GT_OPR | TYPECACHE_CMP_PROC |
						   TYPECACHE_HASH_PROC | TYPECACHE_HASH_EXTENDED_PROC |
						   TYPECACHE_RANGE_INFO | TYPECACHE_MULTIRANGE_INFO);
	if (function_is_mutable(tc->cmp_proc) || function_is_mutable(tc->hash_proc) ||
		function_is_mutable(tc->hash_extended_proc) ||
		operator_is_mutable(tc->eq_opr, types) ||
		operator_is_mutable(tc->lt_opr, types) ||
		operator_is_mutable(tc->gt_opr, types))
		return true;
	if (typtype == TYPTYPE_COMPOSITE)
		return composite_is_mutable(typid, types);
	if (tc->rngelemtype != NULL &&
		(function_is_mutable(tc->rng_cmp_proc_finfo.fn_oid) ||
		 function_is_mutable(tc->rng_canonical_finfo.fn_oid) ||
		 function_is_mutable(tc->rng_subdiff_finfo.fn_oid) ||
		 type_is_mutable(tc->rngelemtype->type_id, types)))
		return true;
	if (tc->rngtype != NULL && type_is_mutable(tc->rngtype->type_id, types))
		return true;
	return type_is_mutable(get_element_type(typid), types);
}

/* A sort or grouping clause: its operators and their families. */
static bool
sort_group_is_mutable(SortGroupClause *sgc, List **types)
{
	return operator_is_mutable(sgc->eqop, types) ||
		operator_is_mutable(sgc->sortop, types);
}

/* Expression nodes whose value has a type (exprType() knows them). */
static bool
has_value_type(Node *node)
{
	switch (nodeTag(node))
	{
		case T_Var:
		case T_Const:
		case T_Param:
		case T_Aggref:
		case T_WindowFunc:
		case T_SubscriptingRef:
		case T_FuncExpr:
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
		case T_FieldSelect:
		case T_RelabelType:
		case T_CoerceViaIO:
		case T_ArrayCoerceExpr:
		case T_ConvertRowtypeExpr:
		case T_CollateExpr:
		case T_CaseExpr:
		case T_ArrayExpr:
		case T_RowExpr:
		case T_CoalesceExpr:
		case T_MinMaxExpr:
		case T_CoerceToDomain:
			return true;
		default:
			return false;
	}
}

/*
 * The code one node runs, beyond its subnodes (the caller walks those):
 * true if any of it may not be IMMUTABLE. types remembers the types
 * already looked at.
 */
bool
CacheNodeRunsMutableCode(Node *node, List **types)
{
	ListCell   *lc;

	if (check_functions_in_node(node, function_is_mutable_cb, NULL))
		return true;
	switch (nodeTag(node))
	{
		case T_Aggref:
			if (aggregate_is_mutable(((Aggref *) node)->aggfnoid, types))
				return true;
			break;
		case T_WindowFunc:
			if (aggregate_is_mutable(((WindowFunc *) node)->winfnoid, types))
				return true;
			break;
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			if (operator_is_mutable(((OpExpr *) node)->opno, types))
				return true;
			break;
		case T_ScalarArrayOpExpr:
			if (operator_is_mutable(((ScalarArrayOpExpr *) node)->opno, types))
				return true;
			break;
		case T_RowCompareExpr:
			foreach(lc, ((RowCompareExpr *) node)->opnos)
			{
				if (operator_is_mutable(lfirst_oid(lc), types))
					return true;
			}
			break;
		case T_SortGroupClause:
			return sort_group_is_mutable((SortGroupClause *) node, types);
		case T_WindowClause:
			return function_is_mutable(((WindowClause *) node)->startInRangeFunc) ||
				function_is_mutable(((WindowClause *) node)->endInRangeFunc);
		case T_SetOperationStmt:
			foreach(lc, ((SetOperationStmt *) node)->groupClauses)
			{
				if (sort_group_is_mutable(lfirst_node(SortGroupClause, lc), types))
					return true;
			}
			return false;
		default:
			break;
	}
	return has_value_type(node) && type_is_mutable(exprType(node), types);
}

static bool
expr_is_mutable_walker(Node *node, List **types)
{
	if (node == NULL)
		return false;
	if (CacheNodeRunsMutableCode(node, types) || CacheNodeReadsCatalogs(node))
		return true;
	return expression_tree_walker(node, expr_is_mutable_walker, types);
}

/* A whole expression (a domain constraint's), subnodes included. */
static bool
expr_is_mutable(Node *node, List **types)
{
	return expr_is_mutable_walker(node, types);
}

/* ---- EXECUTE privileges ---- */

/* The functions whose EXECUTE privilege the executor checks, as it does. */
static bool
collect_executed(Node *node, List **funcids)
{
	Oid			funcid = InvalidOid;

	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, collect_executed, funcids, 0);
	switch (nodeTag(node))
	{
		case T_FuncExpr:
			funcid = ((FuncExpr *) node)->funcid;
			break;
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			funcid = get_opcode(((OpExpr *) node)->opno);
			break;
		case T_ScalarArrayOpExpr:
			funcid = get_opcode(((ScalarArrayOpExpr *) node)->opno);
			break;
		case T_Aggref:
			funcid = ((Aggref *) node)->aggfnoid;
			break;
		case T_WindowFunc:
			funcid = ((WindowFunc *) node)->winfnoid;
			break;
		default:
			break;
	}
	if (OidIsValid(funcid))
		*funcids = list_append_unique_oid(*funcids, funcid);
	return expression_tree_walker(node, collect_executed, funcids);
}

List *
CacheFunctionsExecutedBy(Query *query)
{
	List	   *funcids = NIL;

	collect_executed((Node *) query, &funcids);
	return funcids;
}

/* Raise the error a real execution would if EXECUTE is missing on one. */
void
CacheCheckFunctionsExecutable(List *funcids)
{
	ListCell   *lc;
	Oid			userid = GetUserId();

	foreach(lc, funcids)
	{
		Oid			funcid = lfirst_oid(lc);
		AclResult	aclresult = object_aclcheck(ProcedureRelationId, funcid, userid,
												ACL_EXECUTE);

		if (aclresult != ACLCHECK_OK)
			aclcheck_error(aclresult,
						   get_func_prokind(funcid) == PROKIND_AGGREGATE ?
						   OBJECT_AGGREGATE : OBJECT_FUNCTION,
						   get_func_name(funcid));
		InvokeFunctionExecuteHook(funcid);
	}
}
