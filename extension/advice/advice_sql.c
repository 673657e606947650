/*-------------------------------------------------------------------------
 *
 * advice_sql.c
 *		SQL-callable functions behind sfcache.index_advice,
 *		sfcache.advice_quals and sfcache.table_activity, and
 *		sfcache.index_advice_search(), sfcache.index_advice_work(),
 *		sfcache.window_advice and sfcache.advice_reset().
 *
 * sfcache.index_advice_search(max_size, max_indexes) runs the
 * configuration search (advice_search.c) within the budgets (NULL: none);
 * the view sfcache.index_advice is it without budgets.  Index names are
 * made unique among the rows (_2, _3, ... on a clash).  The work of this
 * session's last search is kept for sfcache.index_advice_work().
 *
 * What a view shows is limited to the current database, and to the
 * current role's statements unless it has pg_read_all_stats (as
 * pg_stat_statements does); sfcache.table_activity has no per-role data.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"
#include "utils/tuplestore.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "nodes/value.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "advice/advice_internal.h"

SFC_FUNCTION_INFO_V1(sfcache_index_advice_0_1);
SFC_FUNCTION_INFO_V1(sfcache_index_advice_0_3);
SFC_FUNCTION_INFO_V1(sfcache_index_advice_work_0_3);
SFC_FUNCTION_INFO_V1(sfcache_advice_quals_0_1);
SFC_FUNCTION_INFO_V1(sfcache_table_activity_0_1);
SFC_FUNCTION_INFO_V1(sfcache_table_activity_0_4);
SFC_FUNCTION_INFO_V1(sfcache_advice_reset_0_1);
SFC_FUNCTION_INFO_V1(sfcache_window_advice_0_4);

#define ADVICE_EVIDENCE_QUERYIDS 8
#define ADVICE_DDL_PREFIX "CREATE INDEX CONCURRENTLY IF NOT EXISTS "

/* The work of this session's last search (sfcache.index_advice_work()). */
static AdviceSearchWork advice_last_work;
static bool advice_have_work = false;

static const char *const advice_role_names[] = {
	"seq scan", "filter", "index cond", "order by", "window"
};

/* A bigint[] of query ids. */
static Datum
advice_queryid_array(const uint64 *ids, int n)
{
	Datum	   *elems = palloc(sizeof(Datum) * Max(n, 1));
	int			i;

	for (i = 0; i < n; i++)
		elems[i] = Int64GetDatum((int64) ids[i]);
	return PointerGetDatum(construct_array(elems, n, INT8OID, 8, true, TYPALIGN_DOUBLE));
}

/* Is recorded qual s about one of c's key columns? */
static bool
advice_is_evidence(AdviceCandidate *c, AdviceQualStats *s)
{
	ListCell   *lc;

	if (s->key.relid != c->relid ||
		(s->key.role != ADVICE_ROLE_SEQSCAN && s->key.role != ADVICE_ROLE_FILTER))
		return false;
	foreach(lc, c->keys)
	{
		AdviceQual *q = lfirst(lc);

		if (q->attnum == s->key.attnum &&
			(q->attnum != 0 || strcmp(AdviceKeyText(q->key, 1, c->relid), s->expr) == 0))
			return true;
	}
	return false;
}

typedef struct Evidence
{
	AdviceQualStats *main;		/* the qual that scanned the most rows */
	uint64		queryids[ADVICE_EVIDENCE_QUERYIDS];
	int			nqueryids;
} Evidence;

static void
advice_evidence(AdviceContext *ctx, AdviceCandidate *c, Evidence *ev)
{
	ListCell   *lc;
	int			i;
	int			j;

	memset(ev, 0, sizeof(Evidence));
	foreach(lc, ctx->quals)
	{
		AdviceQualStats *s = lfirst(lc);

		if (!advice_is_evidence(c, s))
			continue;
		if (ev->main == NULL || s->rows_scanned > ev->main->rows_scanned)
			ev->main = s;
		for (i = 0; i < s->nqueryids; i++)
		{
			for (j = 0; j < ev->nqueryids && ev->queryids[j] != s->queryids[i]; j++)
				;
			if (j == ev->nqueryids && j < ADVICE_EVIDENCE_QUERYIDS)
				ev->queryids[ev->nqueryids++] = s->queryids[i];
		}
	}
}

/* The query ids of the statements c serves, or of its evidence. */
static Datum
advice_served_queryids(AdviceCandidate *c, Evidence *ev, int64 *calls)
{
	uint64	   *ids;
	ListCell   *lc;
	int			n = 0;

	if (c->served == NIL)
	{
		*calls = ev->main ? ev->main->calls : 0;
		return advice_queryid_array(ev->queryids, ev->nqueryids);
	}
	*calls = 0;
	ids = palloc(sizeof(uint64) * list_length(c->served));
	foreach(lc, c->served)
	{
		AdvicePlanned *p = lfirst(lc);

		ids[n++] = p->stmt->queryid;
		*calls += p->stmt->calls;
	}
	return advice_queryid_array(ids, n);
}

/* One row of sfcache.index_advice: the first 11 columns for 0.1's function. */
static void
advice_put_candidate(ReturnSetInfo *rsinfo, AdviceContext *ctx, AdviceCandidate *c,
					 int ncolumns)
{
	Datum		values[13];
	bool		nulls[13];
	Evidence	ev;
	int64		calls;

	memset(nulls, 0, sizeof(nulls));
	advice_evidence(ctx, c, &ev);
	values[0] = ObjectIdGetDatum(c->relid);
	values[1] = CStringGetTextDatum(c->name);
	values[2] = CStringGetTextDatum(c->ddl);
	values[3] = c->replaces ? CStringGetTextDatum(c->replaces) : (Datum) 0;
	nulls[3] = (c->replaces == NULL);
	values[7] = advice_served_queryids(c, &ev, &calls);
	values[4] = Int64GetDatum(calls);
	values[5] = Int64GetDatum(ev.main ? ev.main->rows_scanned : 0);
	values[6] = Int64GetDatum(ev.main ? ev.main->rows_returned : 0);
	values[8] = Float8GetDatum(c->cost_before);
	values[9] = Float8GetDatum(c->cost_after);
	values[10] = Int64GetDatum(WhatifSizeBytes(c->windex));
	values[11] = Float8GetDatum(c->served != NIL ? c->marginal :
								c->cost_before - c->cost_after);
	values[12] = Float8GetDatum(c->upkeep);
	Assert(ncolumns <= 13);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * Is name taken: by one of names (the rows before), or by a relation of
 * c's schema (CREATE INDEX ... IF NOT EXISTS would skip the index)?
 */
static bool
advice_name_taken(AdviceCandidate *c, List *names, char *name)
{
	return list_member(names, makeString(name)) ||
		OidIsValid(get_relname_relid(name, get_rel_namespace(c->relid)));
}

/*
 * Give c the name base, or base_2, base_3, ... if taken. The one source
 * of the names sfcache-advisor writes (advisor/naming.c).
 */
static void
advice_unique_name(AdviceCandidate *c, List **names)
{
	char	   *base = c->name;
	char	   *name = base;
	const char *old_quoted = quote_identifier(base);
	int			i = 1;

	while (advice_name_taken(c, *names, name))
	{
		char		suffix[16];
		int			len;

		snprintf(suffix, sizeof(suffix), "_%d", ++i);
		len = Min((int) strlen(base), NAMEDATALEN - 1 - (int) strlen(suffix));
		name = psprintf("%.*s%s", len, base, suffix);
	}
	*names = lappend(*names, makeString(name));
	if (name == base || strncmp(c->ddl, ADVICE_DDL_PREFIX, strlen(ADVICE_DDL_PREFIX)) != 0)
		return;
	c->ddl = psprintf("%s%s%s", ADVICE_DDL_PREFIX, quote_identifier(name),
					  c->ddl + strlen(ADVICE_DDL_PREFIX) + strlen(old_quoted));
	c->name = name;
}

/* The suggested indexes, by the search within limits or per statement. */
static List *
advice_compute(AdviceContext *ctx, const AdviceSearchLimits *limits)
{
	List	   *result;
	List	   *names = NIL;
	ListCell   *lc;

	memset(ctx, 0, sizeof(AdviceContext));
	ctx->quals = AdviceCopyQuals();
	AdviceBuildCandidates(ctx);
	if (advice_search)
	{
		result = AdviceSearch(ctx, limits, &advice_last_work);
		advice_have_work = true;
	}
	else
		result = AdviceVerify(ctx);
	foreach(lc, result)
		advice_unique_name(lfirst(lc), &names);
	return result;
}

/* sfcache 0.1-0.2's sfcache.index_advice_raw(): the search, no budgets. */
Datum
sfcache_index_advice_0_1(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	AdviceSearchLimits limits = {-1, -1};
	AdviceContext ctx;
	ListCell   *lc;

	InitMaterializedSRF(fcinfo, 0);
	foreach(lc, advice_compute(&ctx, &limits))
		advice_put_candidate(rsinfo, &ctx, lfirst(lc), 11);
	return (Datum) 0;
}

/*
 * sfcache.index_advice_search(max_size bigint, max_indexes int): the
 * configuration within the budgets (NULL: none), with each index's
 * marginal benefit and upkeep.
 */
Datum
sfcache_index_advice_0_3(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	AdviceSearchLimits limits = {-1, -1};
	AdviceContext ctx;
	ListCell   *lc;

	if (!PG_ARGISNULL(0))
		limits.max_size = PG_GETARG_INT64(0);
	if (!PG_ARGISNULL(1))
		limits.max_indexes = PG_GETARG_INT32(1);
	if ((!PG_ARGISNULL(0) && limits.max_size < 0) ||
		(!PG_ARGISNULL(1) && limits.max_indexes < 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("index advice budgets must not be negative"),
				 errhint("Pass NULL for no budget.")));
	InitMaterializedSRF(fcinfo, 0);
	foreach(lc, advice_compute(&ctx, &limits))
		advice_put_candidate(rsinfo, &ctx, lfirst(lc), 13);
	return (Datum) 0;
}

/* sfcache.index_advice_work(): what this session's last search did. */
Datum
sfcache_index_advice_work_0_3(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[8];
	bool		nulls[8] = {false, false, false, false, false, false, false, false};
	AdviceSearchWork *w = &advice_last_work;

	if (!advice_have_work)
		PG_RETURN_NULL();
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Int32GetDatum(w->statements);
	values[1] = Int32GetDatum(w->candidates);
	values[2] = Int64GetDatum(w->plannings);
	values[3] = Int64GetDatum(w->max_plannings);
	values[4] = BoolGetDatum(w->truncated);
	values[5] = Int32GetDatum(w->chosen);
	values[6] = Float8GetDatum(w->cost_before);
	values[7] = Float8GetDatum(w->cost_after);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* The recorded quals, as they are in shared memory. */
Datum
sfcache_advice_quals_0_1(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ListCell   *lc;

	InitMaterializedSRF(fcinfo, 0);
	foreach(lc, AdviceCopyQuals())
	{
		AdviceQualStats *s = lfirst(lc);
		Datum		values[13];
		bool		nulls[13];
		char		kind[2] = {s->kind, '\0'};

		memset(nulls, 0, sizeof(nulls));
		values[0] = ObjectIdGetDatum(s->key.relid);
		values[1] = ObjectIdGetDatum(s->key.userid);
		values[2] = CStringGetTextDatum(s->expr);
		values[3] = ObjectIdGetDatum(s->key.opno);
		nulls[3] = !OidIsValid(s->key.opno);
		values[4] = CStringGetTextDatum(advice_role_names[s->key.role]);
		values[5] = CStringGetTextDatum(kind);
		values[6] = Int64GetDatum(s->calls);
		values[7] = Int64GetDatum(s->rows_scanned);
		values[8] = Int64GetDatum(s->rows_removed);
		values[9] = Int64GetDatum(s->rows_returned);
		values[10] = Float8GetDatum(s->time_ms);
		values[11] = advice_queryid_array(s->queryids, s->nqueryids);
		values[12] = BoolGetDatum(s->const_varies);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * Writes per table of this database, as counted by the hooks: 0.1's
 * columns (for a session still using 0.1's SQL objects).
 */
Datum
sfcache_table_activity_0_1(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ListCell   *lc;

	InitMaterializedSRF(fcinfo, 0);
	foreach(lc, AdviceCopyTables())
	{
		AdviceTableStats *t = lfirst(lc);
		Datum		values[5];
		bool		nulls[5] = {false, false, false, false, false};

		values[0] = ObjectIdGetDatum(t->relid);
		values[1] = Int64GetDatum(t->writes);
		values[2] = TimestampTzGetDatum(t->first_seen);
		values[3] = TimestampTzGetDatum(t->last_write);
		values[4] = Int64GetDatum(t->invalidations);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* Forget everything the index advice recorded. */
Datum
sfcache_advice_reset_0_1(PG_FUNCTION_ARGS)
{
	AdviceReset();
	PG_RETURN_VOID();
}

/*
 * 0.4: the same, with the time of the last invalidation, and NULL for a
 * time never seen (the view computes a rate only from writes spread over
 * a minute or more).
 */
Datum
sfcache_table_activity_0_4(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ListCell   *lc;

	InitMaterializedSRF(fcinfo, 0);
	foreach(lc, AdviceCopyTables())
	{
		AdviceTableStats *t = lfirst(lc);
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};

		values[0] = ObjectIdGetDatum(t->relid);
		values[1] = Int64GetDatum(t->writes);
		values[2] = TimestampTzGetDatum(t->first_seen);
		values[3] = TimestampTzGetDatum(t->last_write);
		nulls[3] = t->last_write == 0;
		values[4] = Int64GetDatum(t->invalidations);
		values[5] = TimestampTzGetDatum(t->last_invalidation);
		nulls[5] = t->last_invalidation == 0;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * sfcache.window_advice: per column whose result cache windows starved for
 * want of an index, the btree index on it and the evidence; names unique
 * among the rows and the schema's relations, as the index advice's.
 */
Datum
sfcache_window_advice_0_4(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	List	   *names = NIL;
	ListCell   *lc;

	InitMaterializedSRF(fcinfo, 0);
	foreach(lc, AdviceWindows())
	{
		AdviceWindow *w = lfirst(lc);
		Datum		values[10];
		bool		nulls[10] = {false, false, false, false, false, false, false, false, false, false};

		advice_unique_name(w->index, &names);
		values[0] = ObjectIdGetDatum(w->relid);
		values[1] = CStringGetTextDatum(w->column);
		values[2] = CStringGetTextDatum(w->index->name);
		values[3] = CStringGetTextDatum(w->index->ddl);
		values[4] = Int64GetDatum(w->starved);
		values[5] = advice_queryid_array(w->queryids, w->nqueryids);
		values[6] = Int64GetDatum(w->calls);
		values[7] = Int64GetDatum(w->rows_scanned);
		values[8] = Float8GetDatum(w->time_ms);
		values[9] = Int64GetDatum(WhatifSizeBytes(w->index->windex));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
