/*-------------------------------------------------------------------------
 *
 * cache_relation_settings.c
 *		Per-relation cache settings (a TTL override, exclusion), stored in
 *		the table sfcache.relation_settings and cached in each backend.
 *
 * The table is small and read whole the first time a backend needs it and
 * again after it changes: a statement trigger on the table sends a relcache
 * invalidation for it, which every backend receives at its next statement.
 *
 * Security: every backend reads the table, whatever its role, in every
 * database, so the read must run no user code.  The table is found through
 * the extension's catalog entries (the extension's schema, and a relation
 * of that name that is a member of the extension), never by name through
 * search_path, and read with a heap scan, not SQL: no view, rule, row
 * security policy or function can take part, and the settings apply to
 * all roles alike.  A database where sfcache is not installed has no
 * settings (a schema called sfcache that someone created there is ignored).
 *
 * Serializable transactions: the settings are configuration, read under a
 * fresh snapshot whatever the transaction's own, so the read must not take
 * part in serializable snapshot isolation.  A heap scan under an MVCC
 * snapshot would take a predicate lock (SIReadLock) on the whole table and
 * check each tuple for rw-conflicts (predicate.c's SerializationNeededForRead
 * says yes to any MVCC scan of a user table), and a transaction could then
 * fail with a serialization error only because another one changed a TTL.
 * So the table is scanned under SnapshotAny, which predicate.c ignores, and
 * each tuple is tested against the fresh MVCC snapshot here, under the
 * buffer's share lock, as pgrowlocks does: the same rows as an MVCC scan,
 * without predicate locks.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/dependency.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "commands/trigger.h"
#include "fmgr.h"
#include "storage/bufmgr.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "cache/cache_internal.h"

/* Columns of sfcache.relation_settings, as the install script creates it. */
#define RS_NATTS		3
#define RS_ATT_RELID	0
#define RS_ATT_TTL		1
#define RS_ATT_EXCLUDED 2

typedef struct RelationSetting
{
	Oid			relid;
	int			ttl_s;			/* 0: none */
	bool		excluded;
} RelationSetting;

static HTAB *settings = NULL;
static bool settings_valid = false;
static Oid	settings_relid = InvalidOid;	/* InvalidOid: look it up again */

static void
settings_relcache_callback(Datum arg, Oid relid)
{
	if (relid == InvalidOid || relid == settings_relid)
		settings_valid = false;
}

static void
settings_namespace_callback(Datum arg, int cacheid, uint32 hashvalue)
{
	settings_relid = InvalidOid;
	settings_valid = false;
}

/*
 * The schema of extension extoid (PostgreSQL 15 keeps its own
 * get_extension_schema() static), or InvalidOid.
 */
static Oid
extension_schema(Oid extoid)
{
	Relation	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			nsp = InvalidOid;

	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(extoid));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
		nsp = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return nsp;
}

/*
 * The OID of the extension's own sfcache.relation_settings, or InvalidOid
 * where the extension is not installed.  Only catalogs are consulted: a
 * relation of that name that the extension did not create is not used.
 */
static Oid
lookup_settings_table(void)
{
	Oid			extoid = get_extension_oid("sfcache", true);
	Oid			nsp;
	Oid			relid;

	if (!OidIsValid(extoid))
		return InvalidOid;
	nsp = extension_schema(extoid);
	if (!OidIsValid(nsp))
		return InvalidOid;
	relid = get_relname_relid("relation_settings", nsp);
	if (!OidIsValid(relid) || get_rel_relkind(relid) != RELKIND_RELATION ||
		getExtensionOfObject(RelationRelationId, relid) != extoid)
		return InvalidOid;
	return relid;
}

/* Does rel have the columns this file reads, of the types it expects? */
static bool
settings_shape_ok(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);

	return desc->natts == RS_NATTS &&
		TupleDescAttr(desc, RS_ATT_RELID)->atttypid == REGCLASSOID &&
		TupleDescAttr(desc, RS_ATT_TTL)->atttypid == INT4OID &&
		TupleDescAttr(desc, RS_ATT_EXCLUDED)->atttypid == BOOLOID &&
		!TupleDescAttr(desc, RS_ATT_RELID)->attisdropped &&
		!TupleDescAttr(desc, RS_ATT_TTL)->attisdropped &&
		!TupleDescAttr(desc, RS_ATT_EXCLUDED)->attisdropped;
}

/*
 * Is tup, which the scan just returned from its current buffer, visible to
 * snapshot?  The buffer is pinned by the scan; the test needs it share-locked
 * (it may set hint bits).
 */
static bool
tuple_visible(TableScanDesc scan, HeapTuple tup, Snapshot snapshot)
{
	Buffer		buf = ((HeapScanDesc) scan)->rs_cbuf;
	bool		visible;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	visible = HeapTupleSatisfiesVisibility(tup, snapshot, buf);
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	return visible;
}

/*
 * Read every row of the settings table relid into the hash table: a heap
 * scan under SnapshotAny, keeping the rows a fresh MVCC snapshot sees (all
 * committed rows, whatever the role: row security does not apply to a scan
 * below the executor), and no predicate lock (see the header comment).
 */
static void
load_rows(Oid relid)
{
	Relation	rel = table_open(relid, AccessShareLock);
	Snapshot	snapshot;
	TableScanDesc scan;
	HeapTuple	tup;

	if (!settings_shape_ok(rel))
	{
		table_close(rel, AccessShareLock);
		ereport(WARNING,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table sfcache.relation_settings has unexpected columns"),
				 errdetail("Per-relation TTLs and exclusions are ignored."),
				 errhint("Reinstall the extension with DROP EXTENSION sfcache and CREATE EXTENSION sfcache.")));
		return;
	}
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	scan = table_beginscan(rel, SnapshotAny, 0, NULL, 0);
	while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		Datum		values[RS_NATTS];
		bool		nulls[RS_NATTS];
		Oid			setting_relid;
		RelationSetting *s;

		if (!tuple_visible(scan, tup, snapshot))
			continue;
		heap_deform_tuple(tup, RelationGetDescr(rel), values, nulls);
		if (nulls[RS_ATT_RELID])
			continue;
		setting_relid = DatumGetObjectId(values[RS_ATT_RELID]);
		s = hash_search(settings, &setting_relid, HASH_ENTER, NULL);
		s->ttl_s = nulls[RS_ATT_TTL] ? 0 : Max(0, DatumGetInt32(values[RS_ATT_TTL]));
		s->excluded = !nulls[RS_ATT_EXCLUDED] && DatumGetBool(values[RS_ATT_EXCLUDED]);
	}
	table_endscan(scan);
	UnregisterSnapshot(snapshot);
	table_close(rel, AccessShareLock);
}

/* (Re)read the settings table if it changed since the last read. */
static void
ensure_loaded(void)
{
	HASHCTL		info;

	if (settings_valid)
		return;
	if (settings != NULL)
		hash_destroy(settings);
	info.keysize = sizeof(Oid);
	info.entrysize = sizeof(RelationSetting);
	info.hcxt = TopMemoryContext;
	settings = hash_create("sfcache relation settings", 64, &info,
						   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	settings_relid = lookup_settings_table();
	settings_valid = true;
	if (!OidIsValid(settings_relid))
		return;
	PG_TRY();
	{
		load_rows(settings_relid);
	}
	PG_CATCH();
	{
		settings_valid = false;
		PG_RE_THROW();
	}
	PG_END_TRY();
}

static RelationSetting *
setting_for(Oid relid)
{
	ensure_loaded();
	return hash_search(settings, &relid, HASH_FIND, NULL);
}

bool
CacheRelationIsExcluded(Oid relid)
{
	RelationSetting *s = setting_for(relid);

	return s != NULL && s->excluded;
}

int
CacheRelationTtl(Oid relid)
{
	RelationSetting *s = setting_for(relid);

	return s != NULL ? s->ttl_s : 0;
}

void
CacheRelationSettingsInit(void)
{
	CacheRegisterRelcacheCallback(settings_relcache_callback, (Datum) 0);
	CacheRegisterSyscacheCallback(NAMESPACEOID, settings_namespace_callback, (Datum) 0);
}

SFC_FUNCTION_INFO_V1(sfcache_relation_settings_changed_0_1);

/* Statement trigger on sfcache.relation_settings: tell every backend. */
Datum
sfcache_relation_settings_changed_0_1(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function sfcache.relation_settings_changed() must be called as a trigger")));
	CacheInvalidateRelcacheByRelid(RelationGetRelid(trigdata->tg_relation));
	return PointerGetDatum(NULL);
}
