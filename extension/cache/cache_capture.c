/*-------------------------------------------------------------------------
 *
 * cache_capture.c
 *		sfcache.capture(), the trigger that sfcache.track() puts on a
 *		table: for each row written, the hash of each tracked column's
 *		value, old and new, handed to the transaction's write set
 *		(cache_inval_writeset.c) as a tag to bump at commit.
 *
 * Values hash with the column type's default hash opclass, in the
 * column's collation: equal values hash equal, which is what lets a
 * reader that compared the column with a constant (cache_tags.c) name
 * the same tag. A value that cannot be hashed so (no default hash
 * opclass, a nondeterministic collation, a column the trigger names that
 * the table no longer has) makes the write count for the whole relation.
 * Null values are no tag: no equality with a constant selects them.
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
 * Note the tag of one column of one row version. False when the value
 * cannot be hashed the way readers hash their constants.
 */
static bool
capture_value(Relation rel, TupleTableSlot *slot, const char *attname)
{
	AttrNumber	attnum = column_number(slot->tts_tupleDescriptor, attname);
	Form_pg_attribute att;
	TypeCacheEntry *typentry;
	Datum		value;
	bool		isnull;
	uint32		hash;

	if (attnum == InvalidAttrNumber)
		return false;
	att = TupleDescAttr(slot->tts_tupleDescriptor, attnum - 1);
	if (OidIsValid(att->attcollation) && !get_collation_isdeterministic(att->attcollation))
		return false;
	typentry = lookup_type_cache(att->atttypid, TYPECACHE_HASH_PROC_FINFO);
	if (!OidIsValid(typentry->hash_proc))
		return false;

	value = slot_getattr(slot, attnum, &isnull);
	if (isnull)
		return true;
	hash = DatumGetUInt32(FunctionCall1Coll(&typentry->hash_proc_finfo,
											att->attcollation, value));
	CacheNoteCapturedRow(RelationGetRelid(rel), attname, hash);
	return true;
}

Datum
sfcache_capture_0_3(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	Trigger    *trig;
	Relation	rel;
	bool		ok = true;

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

	trig = trigdata->tg_trigger;
	rel = trigdata->tg_relation;
	for (int a = 0; a < trig->tgnargs && ok; a++)
	{
		const char *attname = trig->tgargs[a];

		/* the old version of an UPDATE or DELETE, the new one of an INSERT */
		ok = capture_value(rel, trigdata->tg_trigslot, attname);
		if (ok && TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event))
			ok = capture_value(rel, trigdata->tg_newslot, attname);
	}
	if (!ok)
		CacheNoteUncapturedRow(RelationGetRelid(rel));
	return PointerGetDatum(NULL);
}
