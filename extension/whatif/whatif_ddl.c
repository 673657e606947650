/*-------------------------------------------------------------------------
 *
 * whatif_ddl.c
 *		Turns one CREATE INDEX statement into a WhatifIndex, with
 *		PostgreSQL's own parser (raw_parser, transformIndexStmt) and its
 *		own operator class resolution: never by hand.
 *
 * Supported: btree (several columns, expressions, ASC/DESC, NULLS
 * FIRST/LAST, a WHERE predicate, UNIQUE, INCLUDE columns) and gin (any
 * operator class, e.g. jsonb_ops, jsonb_path_ops, array_ops).  WITH (...)
 * options are refused, other access methods too.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "catalog/catalog.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "commands/defrem.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_utilcmd.h"
#include "parser/parser.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "whatif/whatif_internal.h"

static int	whatif_counter = 0;

/* The single IndexStmt that ddl holds, or a clear error. */
static IndexStmt *
whatif_raw_index_stmt(const char *ddl)
{
	List	   *raw = raw_parser(ddl, RAW_PARSE_DEFAULT);
	Node	   *stmt;

	if (list_length(raw) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("index definition must be exactly one statement"),
				 errdetail("Found %d statements in \"%s\".", list_length(raw), ddl),
				 errhint("Pass one CREATE INDEX statement per array element.")));
	stmt = linitial_node(RawStmt, raw)->stmt;
	if (!IsA(stmt, IndexStmt))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("index definition is not a CREATE INDEX statement: \"%s\"", ddl),
				 errhint("Write it as CREATE INDEX ... ON table USING btree|gin (...).")));
	return (IndexStmt *) stmt;
}

/* Lock and check the indexed table; return its OID. */
static Oid
whatif_table(IndexStmt *stmt)
{
	Oid			relid = RangeVarGetRelid(stmt->relation, AccessShareLock, false);
	char		relkind = get_rel_relkind(relid);

	if (relkind != RELKIND_RELATION && relkind != RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table or materialized view",
						stmt->relation->relname),
				 errdetail("Hypothetical indexes can only be defined on tables and materialized views.")));
	return relid;
}

/* The access method: only btree and gin are costed by sfcache. */
static Oid
whatif_access_method(IndexStmt *stmt)
{
	Oid			amoid = get_index_am_oid(stmt->accessMethod, false);

	if (amoid != BTREE_AM_OID && amoid != GIN_AM_OID)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("access method \"%s\" is not supported for hypothetical indexes",
						stmt->accessMethod),
				 errhint("Use btree or gin.")));
	if (stmt->options != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("WITH options are not supported for hypothetical indexes")));
	if (stmt->indexIncludingParams != NIL && amoid != BTREE_AM_OID)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("access method \"%s\" does not support included columns",
						stmt->accessMethod)));
	return amoid;
}

/* Fill key column i of windex from one transformed IndexElem. */
static void
whatif_key_column(WhatifIndex *windex, int i, IndexElem *elem, const char *amname)
{
	Oid			keytype;
	Oid			keycoll;
	Oid			opclass;

	if (elem->name != NULL)
	{
		AttrNumber	attnum = get_attnum(windex->relid, elem->name);
		int32		typmod;

		if (attnum == InvalidAttrNumber)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" does not exist", elem->name)));
		if (attnum < 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("index creation on system columns is not supported")));
		windex->indexkeys[i] = attnum;
		get_atttypetypmodcoll(windex->relid, attnum, &keytype, &typmod, &keycoll);
	}
	else
	{
		Node	   *expr = eval_const_expressions(NULL, elem->expr);

		fix_opfuncids(expr);
		if (contain_mutable_functions(expr))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("functions in index expression must be marked IMMUTABLE")));
		if (IsA(expr, Var) && ((Var *) expr)->varattno > 0)
			windex->indexkeys[i] = ((Var *) expr)->varattno;
		else
		{
			windex->indexkeys[i] = 0;
			windex->indexprs = lappend(windex->indexprs, expr);
		}
		keytype = exprType(expr);
		keycoll = exprCollation(expr);
	}
	if (elem->collation != NIL)
		keycoll = get_collation_oid(elem->collation, false);
	windex->collations[i] = keycoll;
	opclass = ResolveOpClass(elem->opclass, keytype, amname, windex->amoid);
	windex->opfamily[i] = get_opclass_family(opclass);
	windex->opcintype[i] = get_opclass_input_type(opclass);
	windex->reverse_sort[i] = (elem->ordering == SORTBY_DESC);
	windex->nulls_first[i] = elem->nulls_ordering == SORTBY_NULLS_DEFAULT ?
		windex->reverse_sort[i] : elem->nulls_ordering == SORTBY_NULLS_FIRST;
	if (windex->amoid != BTREE_AM_OID &&
		(elem->ordering != SORTBY_DEFAULT || elem->nulls_ordering != SORTBY_NULLS_DEFAULT))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("access method \"%s\" does not support ASC/DESC options", amname)));
}

/* Fill INCLUDE column i of windex: a plain column, no operator class. */
static void
whatif_include_column(WhatifIndex *windex, int i, IndexElem *elem)
{
	AttrNumber	attnum;

	if (elem->name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("expressions are not supported in included columns")));
	attnum = get_attnum(windex->relid, elem->name);
	if (attnum == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" does not exist", elem->name)));
	if (attnum < 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("index creation on system columns is not supported")));
	windex->indexkeys[i] = attnum;
}

/* The WHERE clause of a partial index, in the planner's implicit-AND form. */
static List *
whatif_predicate(Node *where)
{
	Node	   *pred;

	if (where == NULL)
		return NIL;
	pred = eval_const_expressions(NULL, where);
	pred = (Node *) canonicalize_qual((Expr *) pred, false);
	fix_opfuncids(pred);
	if (contain_mutable_functions(pred))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				 errmsg("functions in index predicate must be marked IMMUTABLE")));
	return make_ands_implicit((Expr *) pred);
}

/* A fresh OID that no relation has: the planner and EXPLAIN key on it. */
static Oid
whatif_new_oid(void)
{
	Relation	pg_class = table_open(RelationRelationId, AccessShareLock);
	Oid			oid = GetNewOidWithIndex(pg_class, ClassOidIndexId,
										 Anum_pg_class_oid);

	table_close(pg_class, AccessShareLock);
	return oid;
}

/*
 * Parse ddl (CREATE INDEX ...) into a WhatifIndex allocated in the current
 * memory context.  Errors name what is wrong: not CREATE INDEX, no such
 * table or column, unsupported access method or options.
 */
WhatifIndex *
WhatifParseIndexDdl(const char *ddl)
{
	ErrorContextCallback cb;
	IndexStmt  *stmt;
	WhatifIndex *windex = palloc0(sizeof(WhatifIndex));
	ListCell   *lc;
	int			i = 0;

	WhatifErrorPositionPush(&cb, ddl);
	stmt = whatif_raw_index_stmt(ddl);
	windex->relid = whatif_table(stmt);
	windex->amoid = whatif_access_method(stmt);
	stmt = transformIndexStmt(windex->relid, stmt, ddl);
	windex->nkeycolumns = list_length(stmt->indexParams);
	windex->ncolumns = windex->nkeycolumns + list_length(stmt->indexIncludingParams);
	if (windex->ncolumns > INDEX_MAX_KEYS)
		ereport(ERROR,
				(errcode(ERRCODE_TOO_MANY_COLUMNS),
				 errmsg("cannot use more than %d columns in an index", INDEX_MAX_KEYS)));
	foreach(lc, stmt->indexParams)
		whatif_key_column(windex, i++, lfirst_node(IndexElem, lc), stmt->accessMethod);
	foreach(lc, stmt->indexIncludingParams)
		whatif_include_column(windex, i++, lfirst_node(IndexElem, lc));
	windex->indpred = whatif_predicate(stmt->whereClause);
	windex->pred_share = -1;
	windex->unique = stmt->unique;
	if (stmt->idxname != NULL)
		strlcpy(windex->name, stmt->idxname, NAMEDATALEN);
	else
		snprintf(windex->name, NAMEDATALEN, "<hypothetical %d on %s>",
				 ++whatif_counter, get_rel_name(windex->relid));
	WhatifErrorPositionPop(&cb);
	windex->oid = whatif_new_oid();
	WhatifEstimateSizeFromCatalog(windex);
	return windex;
}
