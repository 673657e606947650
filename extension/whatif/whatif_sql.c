/*-------------------------------------------------------------------------
 *
 * whatif_sql.c
 *		SQL-callable functions of the hypothetical indexes:
 *		sfcache.whatif(), sfcache.hypothetical_index(),
 *		sfcache.hypothetical_indexes() and sfcache.hypothetical_reset().
 *
 * Each takes the caller's search_path as a defaulted argument (evaluated
 * before the function's own pinned search_path applies), so that the
 * statement and the index definitions resolve names as the caller would.
 * An estimate tells about the data it was made from, so the caller must be
 * allowed to read what the statement reads and the tables indexed.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"
#include "utils/tuplestore.h"

#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

#include "whatif/whatif_internal.h"

SFC_FUNCTION_INFO_V1(sfcache_whatif_0_1);
SFC_FUNCTION_INFO_V1(sfcache_hypothetical_index_0_1);
SFC_FUNCTION_INFO_V1(sfcache_hypothetical_indexes_0_1);
SFC_FUNCTION_INFO_V1(sfcache_hypothetical_reset_0_1);

/* One WhatifIndex per element of a text[] of CREATE INDEX statements. */
static List *
whatif_parse_array(ArrayType *ddls)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	int			i;
	List	   *indexes = NIL;

	deconstruct_array(ddls, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	for (i = 0; i < n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("index definition %d is null", i + 1),
					 errhint("Pass one CREATE INDEX statement per array element.")));
		indexes = lappend(indexes, WhatifParseIndexDdl(TextDatumGetCString(elems[i])));
		WhatifCheckIndexPrivileges(llast(indexes));
	}
	return indexes;
}

/* A text[] of the names of the indexes in the list. */
static Datum
whatif_names(List *indexes)
{
	Datum	   *names = palloc(sizeof(Datum) * Max(1, list_length(indexes)));
	ListCell   *lc;
	int			n = 0;

	foreach(lc, indexes)
		names[n++] = CStringGetTextDatum(((WhatifIndex *) lfirst(lc))->name);
	return PointerGetDatum(construct_array(names, n, TEXTOID, -1, false, TYPALIGN_INT));
}

/* Error if argument argno (from 0) of the SQL function fname is null. */
static void
whatif_check_not_null(FunctionCallInfo fcinfo, int argno, const char *argname,
					  const char *fname)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s passed to %s must not be null", argname, fname),
				 strcmp(argname, "search_path") == 0 ?
				 errhint("Leave the search_path argument out to use the caller's.") : 0));
}

/*
 * sfcache.whatif(statement, index_ddl[], search_path): the estimated cost of
 * statement without and with the hypothetical indexes, and which of them the
 * plan with them uses.  The caller must be allowed to read every relation
 * the statement reads and every table an index is on.
 */
Datum
sfcache_whatif_0_1(PG_FUNCTION_ARGS)
{
	char	   *sql;
	ArrayType  *ddls;
	char	   *search_path;
	TupleDesc	tupdesc;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	int			nestlevel;
	List	   *indexes;
	Query	   *query;
	PlannedStmt *before;
	PlannedStmt *after;

	whatif_check_not_null(fcinfo, 0, "statement", "sfcache.whatif()");
	whatif_check_not_null(fcinfo, 1, "index_ddl", "sfcache.whatif()");
	whatif_check_not_null(fcinfo, 2, "search_path", "sfcache.whatif()");
	sql = text_to_cstring(PG_GETARG_TEXT_PP(0));
	ddls = PG_GETARG_ARRAYTYPE_P(1);
	search_path = text_to_cstring(PG_GETARG_TEXT_PP(2));
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	WhatifUseSearchPath(search_path, &nestlevel);
	query = WhatifAnalyzeSelect(sql);
	WhatifCheckSelectPrivileges(query);
	indexes = whatif_parse_array(ddls);
	before = WhatifPlan(query, sql, NIL);
	after = WhatifPlan(query, sql, indexes);
	AtEOXact_GUC(true, nestlevel);

	values[0] = Float8GetDatum(before->planTree->total_cost);
	values[1] = Float8GetDatum(after->planTree->total_cost);
	values[2] = whatif_names(WhatifUsedIndexes(after, indexes));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * sfcache.hypothetical_index(ddl, search_path): keep one for this session,
 * on a table the caller may read.
 */
Datum
sfcache_hypothetical_index_0_1(PG_FUNCTION_ARGS)
{
	char	   *ddl;
	char	   *search_path;
	int			nestlevel;
	WhatifIndex *windex;

	whatif_check_not_null(fcinfo, 0, "index_ddl", "sfcache.hypothetical_index()");
	whatif_check_not_null(fcinfo, 1, "search_path", "sfcache.hypothetical_index()");
	ddl = text_to_cstring(PG_GETARG_TEXT_PP(0));
	search_path = text_to_cstring(PG_GETARG_TEXT_PP(1));
	WhatifUseSearchPath(search_path, &nestlevel);
	windex = WhatifParseIndexDdl(ddl);
	AtEOXact_GUC(true, nestlevel);
	WhatifCheckIndexPrivileges(windex);
	WhatifAddSessionIndex(windex);
	PG_RETURN_TEXT_P(cstring_to_text(windex->name));
}

/* sfcache.hypothetical_indexes(): this session's hypothetical indexes. */
Datum
sfcache_hypothetical_indexes_0_1(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ListCell   *lc;

	InitMaterializedSRF(fcinfo, 0);
	foreach(lc, WhatifSessionIndexes())
	{
		WhatifIndex *windex = lfirst(lc);
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		values[0] = CStringGetTextDatum(windex->name);
		values[1] = ObjectIdGetDatum(windex->relid);
		values[2] = CStringGetTextDatum(get_am_name(windex->amoid));
		values[3] = Int64GetDatum(WhatifSizeBytes(windex));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* sfcache.hypothetical_reset(): forget this session's hypothetical indexes. */
Datum
sfcache_hypothetical_reset_0_1(PG_FUNCTION_ARGS)
{
	WhatifResetSession();
	PG_RETURN_VOID();
}
