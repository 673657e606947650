/*-------------------------------------------------------------------------
 *
 * cache_catalog.c
 *		Code labelled IMMUTABLE whose result still comes from the catalogs:
 *		a statement that runs it is not cached (bypass "catalog lookup"),
 *		since no write to a relation it reads announces the change.
 *
 * Two classes (issue 19):
 *
 * 1. Built-in functions marked IMMUTABLE whose C implementation reads
 *	  catalog state that DDL changes. Derived from PostgreSQL 15.18: every
 *	  pg_proc row with provolatile 'i' and an OID below FirstNormalObjectId
 *	  (2,249 internal-language ones, 1,969 distinct C symbols; the 124 SQL
 *	  ones only compute on their arguments), with the call graph of
 *	  src/backend followed three calls deep from each symbol to
 *	  SearchSysCache*, table_open/relation_open, systable_beginscan,
 *	  get_rel_*, get_partition_*, RelationGetPartitionKey/Desc,
 *	  LookupTypeName, the ts caches and friends. What it finds, beyond
 *	  the type cache and collation look-ups that describe a type's or a
 *	  collation's fixed properties (array_eq, hash_range, texteq, ...):
 *		- pg_partition_root(regclass): the partition ancestors in
 *		  pg_inherits, which ATTACH and DETACH change without a write to
 *		  any relation the statement reads;
 *		- satisfies_hash_partition(oid, ...): opens the table and reads
 *		  its partition key, and errors once it is dropped;
 *		- pg_indexam_progress_phasename(oid, bigint): the access method's
 *		  handler from pg_am;
 *		- the text search functions taking a regconfig, regdictionary or
 *		  parser OID (to_tsvector, ts_headline, ts_lexize, ts_parse, ...):
 *		  their objects' DDL bumps the global generation (cache_inval_hooks.c),
 *		  so they depend on what they read and stay cacheable.
 *	  (pg_partition_tree, pg_partition_ancestors, pg_get_* and to_reg* are
 *	  STABLE or VOLATILE already, and bypass as such.)
 *
 * 2. The text of a value whose output function reads the catalogs:
 *	  regclass, regtype, regproc, regprocedure, regoper, regoperator,
 *	  regnamespace, regrole, regconfig, regdictionary, regcollation (names
 *	  looked up, qualified by search_path), aclitem (role names), enums
 *	  (labels), and user-defined types whose output function is not
 *	  IMMUTABLE; through arrays, composites, domains, ranges and
 *	  multiranges. Casts to text (CoerceViaIO) and the functions that print
 *	  their arguments (to_json, row_to_json, json(b)_build_*, format,
 *	  concat, array_to_string, quote_literal, ...) are STABLE and bypass
 *	  already, and so are built-in aggregates with a STABLE support
 *	  function (jsonb_object_agg: cache_code.c checks every aggregate's
 *	  support functions). What remains is what no function call shows:
 *	  XMLELEMENT and XMLFOREST, whose arguments are printed with their
 *	  output functions (map_sql_value_to_xml_value) inside an expression
 *	  node. The type's settings-dependent output (DateStyle, TimeZone, ...)
 *	  is in the key (cache_key_settings.c) and needs nothing here.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "cache/cache_internal.h"

/* Deep enough for any real nesting of arrays, records and domains. */
#define CACHE_TYPE_DEPTH 16

/* Class 1 (see the header comment). */
static bool
function_reads_catalogs(Oid funcid)
{
	switch (funcid)
	{
		case F_PG_PARTITION_ROOT:
		case F_SATISFIES_HASH_PARTITION:
		case F_PG_INDEXAM_PROGRESS_PHASENAME:
			return true;
		default:
			return false;
	}
}

static bool type_text_reads_catalogs(Oid typid, int depth);

/* A user-defined base type whose output function may read anything. */
static bool
user_output_is_mutable(Oid typid)
{
	Oid			out;
	bool		varlena;

	if (typid < FirstNormalObjectId)
		return false;
	getTypeOutputInfo(typid, &out, &varlena);
	return func_volatile(out) != PROVOLATILE_IMMUTABLE;
}

/* Any column of a composite type. */
static bool
composite_text_reads_catalogs(Oid typid, int depth)
{
	TupleDesc	desc = lookup_rowtype_tupdesc(typid, -1);
	bool		reads = false;

	for (int i = 0; i < desc->natts && !reads; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (!att->attisdropped)
			reads = type_text_reads_catalogs(att->atttypid, depth + 1);
	}
	ReleaseTupleDesc(desc);
	return reads;
}

/* Class 2: does the text of a value of this type come from the catalogs? */
static bool
type_text_reads_catalogs(Oid typid, int depth)
{
	Oid			elem;
	char		typtype;

	if (!OidIsValid(typid) || depth > CACHE_TYPE_DEPTH)
		return false;
	switch (typid)
	{
		case REGCLASSOID:
		case REGTYPEOID:
		case REGPROCOID:
		case REGPROCEDUREOID:
		case REGOPEROID:
		case REGOPERATOROID:
		case REGNAMESPACEOID:
		case REGROLEOID:
		case REGCONFIGOID:
		case REGDICTIONARYOID:
		case REGCOLLATIONOID:
		case ACLITEMOID:
			return true;
		case RECORDOID:
			/* fields known only at run time */
			return true;
		default:
			break;
	}
	if ((elem = get_element_type(typid)) != InvalidOid)
		return type_text_reads_catalogs(elem, depth + 1);
	typtype = get_typtype(typid);
	switch (typtype)
	{
		case TYPTYPE_ENUM:
			return true;
		case TYPTYPE_DOMAIN:
			return type_text_reads_catalogs(getBaseType(typid), depth + 1);
		case TYPTYPE_COMPOSITE:
			return composite_text_reads_catalogs(typid, depth);
		case TYPTYPE_RANGE:
			return type_text_reads_catalogs(get_range_subtype(typid), depth + 1);
		case TYPTYPE_MULTIRANGE:
			return type_text_reads_catalogs(get_multirange_range(typid), depth + 1);
		case TYPTYPE_BASE:
			return user_output_is_mutable(typid);
		default:
			return false;
	}
}

/* Does any expression of the list print a catalog-dependent text? */
static bool
any_text_reads_catalogs(List *exprs)
{
	ListCell   *lc;

	foreach(lc, exprs)
	{
		if (type_text_reads_catalogs(exprType(lfirst(lc)), 0))
			return true;
	}
	return false;
}

/*
 * The code one node runs, beyond its subnodes (the caller walks those):
 * true if its result may come from the catalogs (the header comment).
 * Called for every node of every statement planned: one switch. The
 * functions of class 1 are called as functions, or as a user-defined
 * operator's code (CacheNodeRunsMutableCode has set opfuncid by now);
 * none is a built-in operator's.
 */
bool
CacheNodeReadsCatalogs(Node *node)
{
	switch (nodeTag(node))
	{
		case T_FuncExpr:
			return function_reads_catalogs(((FuncExpr *) node)->funcid);
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			return ((OpExpr *) node)->opno >= FirstNormalObjectId &&
				function_reads_catalogs(((OpExpr *) node)->opfuncid);
		case T_ScalarArrayOpExpr:
			return ((ScalarArrayOpExpr *) node)->opno >= FirstNormalObjectId &&
				function_reads_catalogs(((ScalarArrayOpExpr *) node)->opfuncid);
		case T_XmlExpr:
			{
				XmlExpr    *xexpr = (XmlExpr *) node;

				if (xexpr->op != IS_XMLELEMENT && xexpr->op != IS_XMLFOREST)
					return false;
				return any_text_reads_catalogs(xexpr->named_args) ||
					any_text_reads_catalogs(xexpr->args);
			}
		default:
			return false;
	}
}
