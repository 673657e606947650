/*-------------------------------------------------------------------------
 *
 * cache_capture.c
 *		sfcache.capture(), the trigger that sfcache.track() puts on a
 *		table: for each row written, the hash of each tracked column's
 *		value, old and new, handed to the transaction's write set
 *		(cache_inval_writeset.c) as a tag to bump at commit. A statement
 *		whose plan names those values is captured from it instead, with
 *		this trigger off for that statement (cache_capture_plan.c).
 *
 * Values hash with the column type's default hash opclass, in the
 * column's collation: equal values hash equal, which is what lets a
 * reader that compared the column with a constant (cache_tags.c) name
 * the same tag. A value that cannot be hashed so (no default hash
 * opclass, a nondeterministic collation, a column the trigger names that
 * the table no longer has) makes the write count for the whole relation.
 * Null values are no tag: no equality with a constant selects them.
 *
 * What each tracked column needs (its number, collation, hash function
 * and the hash of its name) is looked up at the trigger's first row of a
 * statement and kept in the trigger's FmgrInfo (fn_extra), which lives as
 * long as the statement's executor state: the table stays locked against
 * DDL for as long, so the lookups cannot go stale.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tupdesc.h"
#include "commands/trigger.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/rel.h"
#include "utils/typcache.h"

#include "cache/cache_internal.h"

SFC_FUNCTION_INFO_V1(sfcache_capture_0_3);

/* One tracked column, as the trigger hashes it. */
typedef struct CaptureColumn
{
	AttrNumber	attnum;
	Oid			collation;
	uint32		column_hash;	/* CacheTagColumnHash of its name */
	FmgrInfo	hash;			/* the type's default hash function */
} CaptureColumn;

/* One capture trigger of one table, for the rows of one statement. */
typedef struct CaptureColumns
{
	Oid			tgoid;
	Oid			relid;
	bool		hashable;		/* false: every row counts whole */
	int			ncolumns;
	CaptureColumn columns[FLEXIBLE_ARRAY_MEMBER];
} CaptureColumns;

/* The column named attname, or InvalidAttrNumber. */
static AttrNumber
column_number(TupleDesc tupdesc, const char *attname)
{
	for (int i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);

		if (!att->attisdropped && strcmp(NameStr(att->attname), attname) == 0)
			return att->attnum;
	}
	return InvalidAttrNumber;
}

/*
 * Look up how to hash column attname of tupdesc into col; false when its
 * values cannot be hashed the way readers hash their constants.
 */
static bool
resolve_column(TupleDesc tupdesc, const char *attname, CaptureColumn *col,
			   MemoryContext cxt)
{
	AttrNumber	attnum = column_number(tupdesc, attname);
	Form_pg_attribute att;
	TypeCacheEntry *typentry;

	if (attnum == InvalidAttrNumber)
		return false;
	att = TupleDescAttr(tupdesc, attnum - 1);
	if (OidIsValid(att->attcollation) && !get_collation_isdeterministic(att->attcollation))
		return false;
	typentry = lookup_type_cache(att->atttypid, TYPECACHE_HASH_PROC);
	if (!OidIsValid(typentry->hash_proc))
		return false;
	col->attnum = attnum;
	col->collation = att->attcollation;
	col->column_hash = CacheTagColumnHash(attname);
	fmgr_info_cxt(typentry->hash_proc, &col->hash, cxt);
	return true;
}

/* The columns of the trigger being called, looked up at its first row. */
static CaptureColumns *
capture_columns(FunctionCallInfo fcinfo, TriggerData *trigdata)
{
	FmgrInfo   *flinfo = fcinfo->flinfo;
	CaptureColumns *cc = flinfo->fn_extra;
	Trigger    *trig = trigdata->tg_trigger;
	Oid			relid = RelationGetRelid(trigdata->tg_relation);

	if (cc != NULL && cc->tgoid == trig->tgoid && cc->relid == relid)
		return cc;
	cc = MemoryContextAllocZero(flinfo->fn_mcxt,
								offsetof(CaptureColumns, columns) +
								trig->tgnargs * sizeof(CaptureColumn));
	cc->tgoid = trig->tgoid;
	cc->relid = relid;
	cc->hashable = true;
	cc->ncolumns = trig->tgnargs;
	for (int a = 0; a < trig->tgnargs && cc->hashable; a++)
		cc->hashable = resolve_column(RelationGetDescr(trigdata->tg_relation),
									  trig->tgargs[a], &cc->columns[a],
									  flinfo->fn_mcxt);
	flinfo->fn_extra = cc;
	return cc;
}

/* The hash of col's value in slot; false if it is null. */
static bool
value_hash(CaptureColumn *col, TupleTableSlot *slot, uint32 *hash)
{
	bool		isnull;
	Datum		value = slot_getattr(slot, col->attnum, &isnull);

	if (isnull)
		return false;
	*hash = DatumGetUInt32(FunctionCall1Coll(&col->hash, col->collation, value));
	return true;
}

Datum
sfcache_capture_0_3(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	CaptureColumns *cc;
	Oid			relid;
	bool		update;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("sfcache.capture() can only be called as a trigger"),
				 errhint("Use sfcache.track(table, columns) to track a table's columns.")));
	if (!TRIGGER_FIRED_AFTER(trigdata->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("sfcache.capture() must be an AFTER ... FOR EACH ROW trigger"),
				 errhint("Use sfcache.track(table, columns) to track a table's columns.")));

	cc = capture_columns(fcinfo, trigdata);
	relid = RelationGetRelid(trigdata->tg_relation);
	if (!cc->hashable)
	{
		CacheNoteUncapturedRow(relid);
		return PointerGetDatum(NULL);
	}
	update = TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event);
	for (int a = 0; a < cc->ncolumns; a++)
	{
		CaptureColumn *col = &cc->columns[a];
		uint32		old_hash = 0;
		uint32		new_hash;
		bool		old_notnull;

		/* the old version of an UPDATE or DELETE, the new one of an INSERT */
		old_notnull = value_hash(col, trigdata->tg_trigslot, &old_hash);
		if (old_notnull)
			CacheNoteCapturedRow(relid, col->column_hash, old_hash);
		/* an unchanged value names the same tag */
		if (update && value_hash(col, trigdata->tg_newslot, &new_hash) &&
			!(old_notnull && new_hash == old_hash))
			CacheNoteCapturedRow(relid, col->column_hash, new_hash);
	}
	return PointerGetDatum(NULL);
}
