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
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

#include "whatif.h"

PG_FUNCTION_INFO_V1(sfcache_whatif_0_1);
PG_FUNCTION_INFO_V1(sfcache_hypothetical_index_0_1);
PG_FUNCTION_INFO_V1(sfcache_hypothetical_indexes_0_1);
PG_FUNCTION_INFO_V1(sfcache_hypothetical_reset_0_1);

/* One HypoIndex per element of a text[] of CREATE INDEX statements. */
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
		names[n++] = CStringGetTextDatum(((HypoIndex *) lfirst(lc))->name);
	return PointerGetDatum(construct_array(names, n, TEXTOID, -1, false, TYPALIGN_INT));
}

/*
 * sfcache.whatif(statement, index_ddl[], search_path): the estimated cost of
 * statement without and with the hypothetical indexes, and which of them the
 * plan with them uses.
 */
Datum
sfcache_whatif_0_1(PG_FUNCTION_ARGS)
{
	char	   *sql = text_to_cstring(PG_GETARG_TEXT_PP(0));
	ArrayType  *ddls = PG_GETARG_ARRAYTYPE_P(1);
	char	   *search_path = text_to_cstring(PG_GETARG_TEXT_PP(2));
	TupleDesc	tupdesc;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	int			nestlevel;
	List	   *indexes;
	Query	   *query;
	PlannedStmt *before;
	PlannedStmt *after;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	WhatifUseSearchPath(search_path, &nestlevel);
	query = WhatifAnalyzeSelect(sql);
	indexes = whatif_parse_array(ddls);
	before = WhatifPlan(query, sql, NIL);
	after = WhatifPlan(query, sql, indexes);
	AtEOXact_GUC(true, nestlevel);

	values[0] = Float8GetDatum(before->planTree->total_cost);
	values[1] = Float8GetDatum(after->planTree->total_cost);
	values[2] = whatif_names(WhatifUsedIndexes(after, indexes));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* sfcache.hypothetical_index(ddl, search_path): keep one for this session. */
Datum
sfcache_hypothetical_index_0_1(PG_FUNCTION_ARGS)
{
	char	   *ddl = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *search_path = text_to_cstring(PG_GETARG_TEXT_PP(1));
	int			nestlevel;
	HypoIndex  *hypo;

	WhatifUseSearchPath(search_path, &nestlevel);
	hypo = WhatifParseIndexDdl(ddl);
	AtEOXact_GUC(true, nestlevel);
	WhatifAddSessionIndex(hypo);
	PG_RETURN_TEXT_P(cstring_to_text(hypo->name));
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
		HypoIndex  *hypo = lfirst(lc);
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		values[0] = CStringGetTextDatum(hypo->name);
		values[1] = ObjectIdGetDatum(hypo->relid);
		values[2] = CStringGetTextDatum(get_am_name(hypo->amoid));
		values[3] = Int64GetDatum(WhatifSizeBytes(hypo));
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
