/*-------------------------------------------------------------------------
 *
 * cache_capture_plan.c
 *		Capture per statement: when the plan of an INSERT, UPDATE or
 *		DELETE names the value of every tracked column for every row it
 *		can write, those values are noted at ExecutorStart and the capture
 *		trigger (cache_capture.c) is switched off for that statement, in
 *		the executor's own copy of the table's triggers. The trigger's
 *		cost is PostgreSQL's AFTER ROW machinery (the event queued, the row
 *		fetched again, the call), about 6,000 instructions a row; this
 *		costs a look at the plan per statement.
 *
 * The plan names every row's values when:
 *
 * - INSERT: the rows come from VALUES (a Result or a Values Scan) whose
 *   entry for the column is a constant or an external parameter: the
 *   value written, since no BEFORE ROW trigger may change it and the
 *   column is not generated;
 * - UPDATE and DELETE: the rows come from a scan of the table itself
 *   whose quals restrict the column by an equality with constants or
 *   parameters that names tags (cache_tags.c's rule for readers): each
 *   row written had one of the values, and a row changed by a concurrent
 *   transaction is written only if its new version passes the same quals
 *   again (EvalPlanQual); an UPDATE must not assign the column, nor a
 *   BEFORE ROW trigger change it.
 *
 * Any other plan (joins, INSERT ... SELECT, ON CONFLICT, MERGE, a
 * partitioned or inheritance target, a data-modifying WITH, parameters
 * of PL/pgSQL) leaves the trigger on, as do COPY FROM and logical
 * replication apply, which run no ExecutorStart. A table this
 * transaction already writes whole needs no values: the trigger is off
 * for any statement writing it, whatever its plan.
 *
 * The switch touches only the ResultRelInfo's TriggerDesc, which
 * InitResultRelInfo copied for this executor: the capture triggers are
 * disabled there, and the AFTER ROW flag of an event cleared when no
 * other trigger needs it (so an UPDATE's old row is not fetched for the
 * queue either). The relcache's descriptor and other statements are
 * untouched.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/sysattr.h"
#include "catalog/pg_trigger.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "nodes/execnodes.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/typcache.h"

#include "cache/cache_internal.h"

/* Tags noted by one statement at most; past this, the trigger captures. */
#define CAPTURE_PLAN_MAX_TAGS 64

/* The tags one statement's plan names, before they are noted. */
typedef struct PlanTags
{
	int			ntags;
	uint32		column_hash[CAPTURE_PLAN_MAX_TAGS];
	uint32		value_hash[CAPTURE_PLAN_MAX_TAGS];
} PlanTags;

static bool
add_tag(PlanTags *tags, const CacheTrackedColumn *col, uint32 value_hash)
{
	if (tags->ntags >= CAPTURE_PLAN_MAX_TAGS)
		return false;
	tags->column_hash[tags->ntags] = col->column_hash;
	tags->value_hash[tags->ntags] = value_hash;
	tags->ntags++;
	return true;
}

/*
 * The tag of a value the plan gives (a constant or an external parameter),
 * hashed with hashproc in the column's collation; a null names none.
 */
static bool
add_value(PlanTags *tags, const CacheTrackedColumn *col, Node *value, Oid hashproc,
		  ParamListInfo params)
{
	Datum		datum;
	bool		isnull;

	while (value && IsA(value, RelabelType))
		value = (Node *) ((RelabelType *) value)->arg;
	if (value == NULL || !CacheTagValue(value, params, &datum, &isnull))
		return false;
	if (isnull)
		return true;
	return add_tag(tags, col, DatumGetUInt32(OidFunctionCall1Coll(hashproc,
																  col->attcoll,
																  datum)));
}

/*
 * INSERT: the value of the column in each row of VALUES, hashed as the
 * trigger hashes the row's (the column type's default hash function).
 */
static bool
insert_tags(Plan *source, const CacheTrackedColumn *col, ParamListInfo params, PlanTags *tags)
{
	TargetEntry *tle = get_tle_by_resno(source->targetlist, col->attnum);
	Oid			hashproc = lookup_type_cache(col->atttype,
											 TYPECACHE_HASH_PROC)->hash_proc;
	Var		   *var;
	ListCell   *lc;

	if (tle == NULL || tle->resjunk || !OidIsValid(hashproc))
		return false;
	if (IsA(source, Result) && source->lefttree == NULL)
		return add_value(tags, col, (Node *) tle->expr, hashproc, params);
	if (!IsA(source, ValuesScan) || !IsA(tle->expr, Var))
		return false;
	var = (Var *) tle->expr;
	if (var->varno != ((Scan *) source)->scanrelid || var->varattno <= 0)
		return false;
	foreach(lc, ((ValuesScan *) source)->values_lists)
	{
		List	   *row = lfirst(lc);

		if (var->varattno > list_length(row) ||
			!add_value(tags, col, list_nth(row, var->varattno - 1), hashproc, params))
			return false;
	}
	return true;
}

/* The scan of the table (range table entry rti) an UPDATE or DELETE writes. */
static Plan *
target_scan(Plan *source, Index rti)
{
	/* a Result above the scan (a one-time filter, a projection) */
	if (IsA(source, Result) && source->lefttree != NULL && source->righttree == NULL)
		source = source->lefttree;
	if ((IsA(source, SeqScan) || IsA(source, IndexScan) ||
		 IsA(source, BitmapHeapScan) || IsA(source, TidScan)) &&
		((Scan *) source)->scanrelid == rti)
		return source;
	return NULL;
}

/* UPDATE, DELETE: a qual of the scan restricting the column. */
static bool
restricted_tags(Plan *scan, const CacheTrackedColumn *col, ParamListInfo params,
				PlanTags *tags)
{
	List	   *quals = scan->qual;
	ListCell   *lc;

	if (IsA(scan, IndexScan))
		quals = list_concat_copy(quals, ((IndexScan *) scan)->indexqualorig);
	else if (IsA(scan, BitmapHeapScan))
		quals = list_concat_copy(quals, ((BitmapHeapScan *) scan)->bitmapqualorig);
	foreach(lc, quals)
	{
		Node	   *values[CAPTURE_PLAN_MAX_TAGS];
		Oid			hashprocs[CAPTURE_PLAN_MAX_TAGS];
		int			n = CacheQualTagValues(lfirst(lc), ((Scan *) scan)->scanrelid,
										   col->attnum, col->atttype, col->attcoll,
										   values, hashprocs, CAPTURE_PLAN_MAX_TAGS);

		if (n < 0)
			continue;
		for (int i = 0; i < n; i++)
		{
			if (!add_value(tags, col, values[i], hashprocs[i], params))
				return false;
		}
		return true;
	}
	return false;
}

/*
 * The tags of one column for every row the statement can write, or false
 * when the plan does not name them.
 */
static bool
column_tags(QueryDesc *queryDesc, ResultRelInfo *rri, const CacheTrackedColumn *col,
			PlanTags *tags)
{
	ModifyTable *mt = (ModifyTable *) queryDesc->plannedstmt->planTree;
	Plan	   *source = outerPlan(mt);
	Plan	   *scan;

	if (col->generated)
		return false;
	if (mt->operation == CMD_INSERT)
		return insert_tags(source, col, queryDesc->params, tags);
	/* a column not generated is updated only where the UPDATE assigns it */
	if (mt->operation == CMD_UPDATE &&
		bms_is_member(col->attnum - FirstLowInvalidHeapAttributeNumber,
					  ExecGetUpdatedCols(rri, queryDesc->estate)))
		return false;
	scan = target_scan(source, rri->ri_RangeTableIndex);
	return scan != NULL && restricted_tags(scan, col, queryDesc->params, tags);
}

/*
 * The tags of every tracked column, for every row the statement can
 * write; false when one is not named by the plan.
 */
static bool
statement_tags(QueryDesc *queryDesc, ResultRelInfo *rri, PlanTags *tags)
{
	CacheTrackedColumn columns[CACHE_MAX_RESOLVED_COLUMNS];
	int			ncolumns = CacheTrackedColumnsResolved(RelationGetRelid(rri->ri_RelationDesc),
													   columns);

	if (ncolumns < 0)
		return false;
	for (int c = 0; c < ncolumns; c++)
	{
		if (!column_tags(queryDesc, rri, &columns[c], tags))
			return false;
	}
	return true;
}

/*
 * Switch the capture triggers off in the executor's copy of the table's
 * triggers; an event's AFTER ROW flag stays set only for another trigger.
 */
static void
capture_trigger_off(TriggerDesc *trigdesc)
{
	bool		on_insert = false;
	bool		on_update = false;
	bool		on_delete = false;

	for (int i = 0; i < trigdesc->numtriggers; i++)
	{
		Trigger    *trig = &trigdesc->triggers[i];

		if (CacheTriggerCapturesEveryRow(trig))
			trig->tgenabled = TRIGGER_DISABLED;
		else if (TRIGGER_FOR_ROW(trig->tgtype) && TRIGGER_FOR_AFTER(trig->tgtype))
		{
			on_insert = on_insert || TRIGGER_FOR_INSERT(trig->tgtype);
			on_update = on_update || TRIGGER_FOR_UPDATE(trig->tgtype);
			on_delete = on_delete || TRIGGER_FOR_DELETE(trig->tgtype);
		}
	}
	trigdesc->trig_insert_after_row = trigdesc->trig_insert_after_row && on_insert;
	trigdesc->trig_update_after_row = trigdesc->trig_update_after_row && on_update;
	trigdesc->trig_delete_after_row = trigdesc->trig_delete_after_row && on_delete;
}

/* Could a BEFORE ROW trigger change the row the statement writes? */
static bool
before_row_triggers(TriggerDesc *trigdesc, CmdType operation)
{
	return (operation == CMD_INSERT && trigdesc->trig_insert_before_row) ||
		(operation == CMD_UPDATE && trigdesc->trig_update_before_row);
}

/*
 * ExecutorStart (core_hooks.c), after the executor started: capture the
 * rows of a one-table INSERT, UPDATE or DELETE from its plan, when it
 * names them (see the header comment).
 */
void
CacheCaptureStatement(QueryDesc *queryDesc, int eflags)
{
	PlannedStmt *stmt = queryDesc->plannedstmt;
	ModifyTable *mt;
	ResultRelInfo *rri;
	PlanTags	tags;
	bool		whole;
	Oid			relid;

	if ((eflags & EXEC_FLAG_EXPLAIN_ONLY) || stmt->hasModifyingCTE ||
		!IsA(stmt->planTree, ModifyTable) || queryDesc->planstate == NULL)
		return;
	mt = (ModifyTable *) stmt->planTree;
	if (list_length(mt->resultRelations) != 1 || mt->rootRelation != 0 ||
		mt->onConflictAction != ONCONFLICT_NONE ||
		(mt->operation != CMD_INSERT && mt->operation != CMD_UPDATE &&
		 mt->operation != CMD_DELETE))
		return;
	rri = ((ModifyTableState *) queryDesc->planstate)->resultRelInfo;
	if (rri->ri_TrigDesc == NULL)
		return;
	relid = RelationGetRelid(rri->ri_RelationDesc);
	if (!CacheCapturesRowsOf(relid, &whole))
		return;
	if (!whole)
	{
		tags.ntags = 0;
		if (before_row_triggers(rri->ri_TrigDesc, mt->operation) ||
			!statement_tags(queryDesc, rri, &tags))
			return;
		for (int i = 0; i < tags.ntags; i++)
			CacheNoteCapturedRow(relid, tags.column_hash[i], tags.value_hash[i]);
	}
	capture_trigger_off(rri->ri_TrigDesc);
}
