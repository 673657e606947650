/*-------------------------------------------------------------------------
 *
 * advice_sql.c
 *		SQL-callable functions behind sfcache.index_advice,
 *		sfcache.advice_quals and sfcache.table_activity, and
 *		sfcache.advice_reset().
 *
 * What a view shows is limited to the current database, and to the
 * current role's statements unless it has pg_read_all_stats (as
 * pg_stat_statements does); sfcache.table_activity has no per-role data.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "advice/advice.h"

SFC_FUNCTION_INFO_V1(sfcache_index_advice_0_1);
SFC_FUNCTION_INFO_V1(sfcache_advice_quals_0_1);
SFC_FUNCTION_INFO_V1(sfcache_table_activity_0_1);
SFC_FUNCTION_INFO_V1(sfcache_advice_reset_0_1);

#define ADVICE_EVIDENCE_QUERYIDS 8

static const char *const advice_role_names[] = {
	"seq scan", "filter", "index cond", "order by"
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

/* One row of sfcache.index_advice. */
static void
advice_put_candidate(ReturnSetInfo *rsinfo, AdviceContext *ctx, AdviceCandidate *c)
{
	Datum		values[11];
	bool		nulls[11];
	Evidence	ev;

	memset(nulls, 0, sizeof(nulls));
	advice_evidence(ctx, c, &ev);
	values[0] = ObjectIdGetDatum(c->relid);
	values[1] = CStringGetTextDatum(c->name);
	values[2] = CStringGetTextDatum(c->ddl);
	values[3] = c->replaces ? CStringGetTextDatum(c->replaces) : (Datum) 0;
	nulls[3] = (c->replaces == NULL);
	values[4] = Int64GetDatum(ev.main ? ev.main->calls : 0);
	values[5] = Int64GetDatum(ev.main ? ev.main->rows_scanned : 0);
	values[6] = Int64GetDatum(ev.main ? ev.main->rows_returned : 0);
	values[7] = advice_queryid_array(ev.queryids, ev.nqueryids);
	values[8] = Float8GetDatum(c->cost_before);
	values[9] = Float8GetDatum(c->cost_after);
	values[10] = Int64GetDatum(WhatifSizeBytes(c->windex));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* Suggested indexes, verified with hypothetical indexes. */
Datum
sfcache_index_advice_0_1(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	AdviceContext ctx;
	ListCell   *lc;

	InitMaterializedSRF(fcinfo, 0);
	memset(&ctx, 0, sizeof(ctx));
	ctx.quals = AdviceCopyQuals();
	AdviceBuildCandidates(&ctx);
	foreach(lc, AdviceVerify(&ctx))
		advice_put_candidate(rsinfo, &ctx, lfirst(lc));
	return (Datum) 0;
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

/* Writes per table of this database, as counted by the hooks. */
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
