/*-------------------------------------------------------------------------
 *
 * cache_tracked.c
 *		Which columns of a table are tracked for invalidation by key
 *		values: those named by the table's active capture triggers.
 *
 * The registry is the catalog itself: sfcache.track() creates a trigger
 * running sfcache.capture() with the column names as arguments, so the
 * tracked columns are transactional, locked like any trigger, read
 * through the relcache, and dumped and restored with the table. A
 * trigger counts only if it sees every row written: AFTER, FOR EACH ROW,
 * on INSERT, UPDATE and DELETE, no column list, no WHEN condition, and
 * ENABLE ALWAYS (so session_replication_role = replica and logical
 * replication apply fire it too). Its function is recognised by being the
 * C function sfcache_capture_0_3: only a superuser can create a C
 * function, so no other role can pass another function off as it.
 *
 * Writers ask of every statement whether its table is tracked: for a
 * table with no children and no partitioned parent, the answer is kept
 * per backend (CacheTableAlone) until the table's relcache entry is
 * invalidated, which trigger DDL, a child inherited or attached
 * (SetRelationHasSubclass invalidates even when the flag stays set) and
 * any change to its pg_class row all do.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"
#include "utils/tuplestore.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_trigger.h"
#include "commands/trigger.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "cache/cache_internal.h"

#define CAPTURE_SYMBOL "sfcache_capture_0_3"

/* The capture function's OID once seen; forgotten when pg_proc changes. */
static Oid	capture_fn_oid = InvalidOid;
static bool callback_registered = false;

static void
forget_capture_function(Datum arg, int cacheid, uint32 hashvalue)
{
	capture_fn_oid = InvalidOid;
}

/* Is fnoid the C function of this library that captures rows? */
bool
CacheIsCaptureFunction(Oid fnoid)
{
	HeapTuple	tup;
	bool		result = false;

	if (OidIsValid(capture_fn_oid) && fnoid == capture_fn_oid)
		return true;
	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fnoid));
	if (!HeapTupleIsValid(tup))
		return false;
	if (((Form_pg_proc) GETSTRUCT(tup))->prolang == ClanguageId)
	{
		bool		isnull;
		Datum		src = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &isnull);

		result = !isnull && strcmp(TextDatumGetCString(src), CAPTURE_SYMBOL) == 0;
	}
	ReleaseSysCache(tup);
	if (result)
	{
		if (!callback_registered)
		{
			CacheRegisterSyscacheCallback(PROCOID, forget_capture_function, (Datum) 0);
			callback_registered = true;
		}
		capture_fn_oid = fnoid;
	}
	return result;
}

/* Does this trigger see every row written to its table? */
bool
CacheTriggerCapturesEveryRow(const Trigger *trig)
{
	return TRIGGER_FOR_ROW(trig->tgtype) && TRIGGER_FOR_AFTER(trig->tgtype) &&
		TRIGGER_FOR_INSERT(trig->tgtype) && TRIGGER_FOR_UPDATE(trig->tgtype) &&
		TRIGGER_FOR_DELETE(trig->tgtype) &&
		trig->tgenabled == TRIGGER_FIRES_ALWAYS &&
		trig->tgnattr == 0 && trig->tgqual == NULL &&
		CacheIsCaptureFunction(trig->tgfoid);
}

/*
 * The tracked columns of an open relation, as a list of palloc'd names
 * (NIL when no capture trigger is active).
 */
static List *
tracked_columns(Relation rel)
{
	TriggerDesc *trigdesc = rel->trigdesc;
	List	   *columns = NIL;

	if (trigdesc == NULL)
		return NIL;
	for (int i = 0; i < trigdesc->numtriggers; i++)
	{
		const Trigger *trig = &trigdesc->triggers[i];

		if (!CacheTriggerCapturesEveryRow(trig))
			continue;
		for (int a = 0; a < trig->tgnargs; a++)
			columns = lappend(columns, pstrdup(trig->tgargs[a]));
	}
	return columns;
}

/*
 * The same by OID. The lock is only for the relcache entry: what keeps
 * the tracked columns from changing is the writer's or reader's own lock
 * on the table it names in its statement.
 */
List *
CacheTrackedColumnsOf(Oid relid)
{
	Relation	rel = relation_open(relid, AccessShareLock);
	List	   *columns = tracked_columns(rel);

	relation_close(rel, NoLock);
	return columns;
}

/* What CacheTableAlone remembers of a relation. */
typedef struct AloneEntry
{
	Oid			relid;			/* hash key */
	bool		alone;			/* a table, no children, not a partition */
	bool		tracked;		/* an active capture trigger names columns */
	int			ncolumns;		/* its capture triggers' columns, or -1 */
	CacheTrackedColumn columns[CACHE_MAX_RESOLVED_COLUMNS];
} AloneEntry;

static HTAB *alone_memo = NULL;

static void
forget_alone(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS status;
	AloneEntry *entry;

	if (OidIsValid(relid))
	{
		hash_search(alone_memo, &relid, HASH_REMOVE, NULL);
		return;
	}
	hash_seq_init(&status, alone_memo);
	while ((entry = hash_seq_search(&status)) != NULL)
		hash_search(alone_memo, &entry->relid, HASH_REMOVE, NULL);
}

/*
 * The columns an open relation's active capture triggers name, one per
 * argument, as writers hash their values; -1 when one is missing or there
 * are more than CACHE_MAX_RESOLVED_COLUMNS.
 */
static int
resolve_columns(Relation rel, CacheTrackedColumn *columns)
{
	TriggerDesc *trigdesc = rel->trigdesc;
	TupleDesc	tupdesc = RelationGetDescr(rel);
	int			n = 0;

	for (int i = 0; trigdesc != NULL && i < trigdesc->numtriggers; i++)
	{
		const Trigger *trig = &trigdesc->triggers[i];

		if (!CacheTriggerCapturesEveryRow(trig))
			continue;
		for (int a = 0; a < trig->tgnargs; a++)
		{
			Form_pg_attribute att = NULL;

			for (int c = 0; c < tupdesc->natts && att == NULL; c++)
			{
				att = TupleDescAttr(tupdesc, c);
				if (att->attisdropped || strcmp(NameStr(att->attname), trig->tgargs[a]) != 0)
					att = NULL;
			}
			if (att == NULL || n >= CACHE_MAX_RESOLVED_COLUMNS)
				return -1;
			columns[n].attnum = att->attnum;
			columns[n].atttype = att->atttypid;
			columns[n].attcoll = att->attcollation;
			columns[n].generated = att->attgenerated != '\0';
			columns[n].column_hash = CacheTagColumnHash(trig->tgargs[a]);
			n++;
		}
	}
	return n;
}

/* relid's entry, made when missing (the caller has locked relid). */
static AloneEntry *
alone_entry(Oid relid)
{
	AloneEntry *entry;
	bool		found;

	if (alone_memo == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(AloneEntry);
		ctl.hcxt = CacheMemoryContext;
		alone_memo = hash_create("sfcache tracked tables", 64, &ctl,
								 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		CacheRegisterRelcacheCallback(forget_alone, (Datum) 0);
	}
	entry = hash_search(alone_memo, &relid, HASH_FIND, NULL);
	if (entry == NULL)
	{
		Relation	rel = relation_open(relid, AccessShareLock);
		List	   *columns = tracked_columns(rel);
		CacheTrackedColumn resolved[CACHE_MAX_RESOLVED_COLUMNS];
		int			nresolved = resolve_columns(rel, resolved);
		bool		alone;

		alone = rel->rd_rel->relkind == RELKIND_RELATION &&
			!rel->rd_rel->relhassubclass && !rel->rd_rel->relispartition;
		relation_close(rel, NoLock);
		/* opening it may have run the callback: enter after */
		entry = hash_search(alone_memo, &relid, HASH_ENTER, &found);
		entry->alone = alone;
		entry->tracked = columns != NIL;
		entry->ncolumns = nresolved;
		if (nresolved > 0)
			memcpy(entry->columns, resolved, nresolved * sizeof(CacheTrackedColumn));
		list_free_deep(columns);
	}
	return entry;
}

/*
 * Is relid a table (no partitioned table, view...) with no children and no
 * partitioned parent? Then *tracked says whether its capture triggers name
 * any column. An inheritance parent the caller checks itself
 * (CacheRelationAncestors). The caller has locked relid (a writer's
 * RowExclusiveLock; COPY FROM's AccessShareLock first): taking the lock
 * processed the invalidations of every change committed before it.
 */
bool
CacheTableAlone(Oid relid, bool *tracked)
{
	AloneEntry *entry = alone_entry(relid);

	*tracked = entry->tracked;
	return entry->alone;
}

/*
 * The columns relid's active capture triggers name, copied into columns
 * (CACHE_MAX_RESOLVED_COLUMNS of room), one per trigger argument, kept
 * from one statement to the next like CacheTableAlone's answer; -1 when
 * one of them is not a column or there are more. The caller has locked
 * relid.
 */
int
CacheTrackedColumnsResolved(Oid relid, CacheTrackedColumn *columns)
{
	AloneEntry *entry = alone_entry(relid);

	if (entry->ncolumns > 0)
		memcpy(columns, entry->columns, entry->ncolumns * sizeof(CacheTrackedColumn));
	return entry->ncolumns;
}

/* Is attname among columns (a list from tracked_columns)? */
bool
CacheColumnIsTracked(List *columns, const char *attname)
{
	ListCell   *lc;

	foreach(lc, columns)
	{
		if (strcmp(lfirst(lc), attname) == 0)
			return true;
	}
	return false;
}

/*
 * sfcache.capture_triggers(): every trigger of this database that runs
 * sfcache.capture(), one row per column it names, and whether it is
 * active (sees every row written), for the sfcache.tracked_columns view.
 */
SFC_FUNCTION_INFO_V1(sfcache_capture_triggers_0_3);

Datum
sfcache_capture_triggers_0_3(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	catalog;
	SysScanDesc scan;
	HeapTuple	tup;

	InitMaterializedSRF(fcinfo, 0);
	catalog = table_open(TriggerRelationId, AccessShareLock);
	scan = systable_beginscan(catalog, InvalidOid, false, NULL, 0, NULL);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_trigger tg = (Form_pg_trigger) GETSTRUCT(tup);
		Trigger		trig = {0};
		bool		isnull;
		Datum		args;
		char	   *p;

		if (!CacheIsCaptureFunction(tg->tgfoid))
			continue;
		trig.tgtype = tg->tgtype;
		trig.tgenabled = tg->tgenabled;
		trig.tgfoid = tg->tgfoid;
		trig.tgnattr = tg->tgattr.dim1;
		heap_getattr(tup, Anum_pg_trigger_tgqual, RelationGetDescr(catalog), &isnull);
		trig.tgqual = isnull ? NULL : "";
		args = heap_getattr(tup, Anum_pg_trigger_tgargs, RelationGetDescr(catalog), &isnull);
		p = isnull ? NULL : (char *) VARDATA_ANY(DatumGetByteaPP(args));
		for (int a = 0; a < tg->tgnargs && p != NULL; a++)
		{
			Datum		values[4];
			bool		nulls[4] = {false, false, false, false};
			NameData	column;

			namestrcpy(&column, p);
			values[0] = ObjectIdGetDatum(tg->tgrelid);
			values[1] = NameGetDatum(&tg->tgname);
			values[2] = NameGetDatum(&column);
			values[3] = BoolGetDatum(CacheTriggerCapturesEveryRow(&trig));
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			p += strlen(p) + 1;
		}
	}
	systable_endscan(scan);
	table_close(catalog, AccessShareLock);
	return (Datum) 0;
}

/*
 * sfcache.column_untrackable(rel, column): why a column's values cannot
 * name tags (the capture trigger would then count every write as one of
 * the whole table), or NULL when they can.
 */
SFC_FUNCTION_INFO_V1(sfcache_column_untrackable_0_3);

Datum
sfcache_column_untrackable_0_3(PG_FUNCTION_ARGS)
{
	char	   *why = CacheColumnUntrackable(PG_GETARG_OID(0),
											 NameStr(*PG_GETARG_NAME(1)));

	if (why == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(why));
}

/*
 * Why column attname of relid cannot be tracked, or NULL when it can (or
 * does not exist: the caller reports that).
 */
char *
CacheColumnUntrackable(Oid relid, const char *attname)
{
	AttrNumber	attnum = get_attnum(relid, attname);
	Oid			atttype;
	int32		typmod;
	Oid			attcoll;

	if (attnum <= 0)
		return NULL;
	get_atttypetypmodcoll(relid, attnum, &atttype, &typmod, &attcoll);
	if (!OidIsValid(lookup_type_cache(atttype, TYPECACHE_HASH_PROC)->hash_proc))
		return psprintf("type %s has no default hash operator class",
						format_type_be(atttype));
	if (OidIsValid(attcoll) && !get_collation_isdeterministic(attcoll))
		return psprintf("collation %s is not deterministic",
						get_collation_name(attcoll));
	return NULL;
}
