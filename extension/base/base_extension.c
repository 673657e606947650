/*-------------------------------------------------------------------------
 *
 * base_extension.c
 *		Owns "is sfcache created in this database?": the result cache and
 *		the index advice act only where it is (SfcExtensionActive()), from
 *		the moment CREATE EXTENSION commits, and stop, for every session,
 *		when DROP EXTENSION commits. Elsewhere in the cluster they do
 *		nothing: no cache plan, no key, no counter.
 *
 * Each backend keeps the answer, read from pg_extension, with the epoch
 * of its database's slot in shared memory (a small array of atomics
 * indexed by a hash of the database: a collision only makes more backends
 * read pg_extension again). A transaction that created or dropped an
 * extension (object_access hook on pg_extension) moves its database's
 * epoch once its commit is visible (XACT_EVENT_COMMIT, before the client
 * is told), so every statement that starts after the client saw the
 * commit reads the catalog again. COMMIT PREPARED and ROLLBACK PREPARED
 * cannot tell what the prepared transaction did, so they move every slot.
 *
 * Invariants:
 * - The epoch is read before the catalog, and the catalog is read with a
 *   catalog snapshot taken after it (InvalidateCatalogSnapshot()): a
 *   backend that reads the moved epoch sees the commit that moved it.
 * - While its own transaction created or dropped an extension, a backend
 *   reads pg_extension at every check (its own catalog, savepoints
 *   included), and again after the transaction ends: a rolled-back DROP
 *   leaves the extension active, with nothing moved.
 * - A session whose database has the extension's SQL objects of another
 *   version than the loaded library (CREATE EXTENSION sfcache VERSION
 *   '0.1', or a library installed and the server restarted without ALTER
 *   EXTENSION sfcache UPDATE) gets one WARNING saying so; ALTER EXTENSION
 *   moves the epoch like CREATE and DROP, so the next statement reads the
 *   version again.
 * - When the answer changes, the backend's cached plans are reset
 *   (ResetPlanCache()): a generic plan made with the cache node is planned
 *   again without it, and the other way round. The node itself asks at
 *   each execution too (cache_scan.c), for the plan already running.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/parallel.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "commands/extension.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "port/atomics.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/plancache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "base/base.h"

#define SFC_EXTENSION_SLOTS 64

typedef struct ExtensionShared
{
	pg_atomic_uint64 epochs[SFC_EXTENSION_SLOTS];
} ExtensionShared;

static ExtensionShared *extension_shared = NULL;
static pg_atomic_uint64 *my_epoch = NULL;	/* MyDatabaseId's slot */

/* This backend's answer, valid while known and the epoch is known_epoch. */
static bool known = false;
static bool present = false;
static uint64 known_epoch = 0;
static bool reread = false;		/* read again at the next check */

/* This transaction created, dropped (or altered) an extension. */
static bool xact_created = false;
static bool xact_dropped = false;
static bool xact_dropped_self = false;	/* sfcache's own extension */
static bool xact_altered = false;

/* The version WARNING was given in this session. */
static bool version_warned = false;

static Size
extension_shmem_size(void)
{
	return MAXALIGN(sizeof(ExtensionShared));
}

/* Caller holds AddinShmemInitLock (base_shmem.c). */
static void
extension_shmem_init(void)
{
	bool		found;

	extension_shared = ShmemInitStruct("sfcache extension epochs",
									   sizeof(ExtensionShared), &found);
	if (!found)
		for (int i = 0; i < SFC_EXTENSION_SLOTS; i++)
			pg_atomic_init_u64(&extension_shared->epochs[i], 0);
}

static const SfcShmemPart extension_part = {
	NULL, 0, extension_shmem_size, extension_shmem_init
};

/* From _PG_init. */
void
SfcExtensionInit(void)
{
	SfcShmemRegister(&extension_part);
}

/*
 * Find MyDatabaseId's slot; false before there is one. Not inlined, nor is
 * extension_read_catalog(): SfcExtensionActive()'s usual answer then saves
 * and restores no registers.
 */
static pg_noinline bool
epoch_slot(void)
{
	if (extension_shared == NULL || !OidIsValid(MyDatabaseId))
		return false;
	my_epoch = &extension_shared->epochs[hash_uint32(MyDatabaseId) % SFC_EXTENSION_SLOTS];
	return true;
}

/*
 * The version of sfcache's SQL objects in this database; NULL when it is
 * not created. pg_extension has no syscache: a scan of its name index.
 */
static char *
extension_version(void)
{
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	char	   *version = NULL;

	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_extname, BTEqualStrategyNumber,
				F_NAMEEQ, CStringGetDatum("sfcache"));
	scan = systable_beginscan(rel, ExtensionNameIndexId, true, NULL, 1, &key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
	{
		bool		isnull;
		Datum		d = heap_getattr(tuple, Anum_pg_extension_extversion,
									 RelationGetDescr(rel), &isnull);

		version = isnull ? pstrdup("") : TextDatumGetCString(d);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return version;
}

/* Once a session: the SQL objects are not the loaded library's version. */
static void
warn_version(const char *version)
{
	/* a parallel worker is a new process: its leader warns for it */
	if (version_warned || IsParallelWorker() || strcmp(version, SFCACHE_VERSION) == 0)
		return;
	version_warned = true;
	ereport(WARNING,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("the sfcache extension in this database is version %s, but the loaded library is version %s",
					version, SFCACHE_VERSION),
			 errdetail("Functions and views of the older version may be missing or return other columns."),
			 errhint("Run ALTER EXTENSION sfcache UPDATE in this database.")));
}

/* Read pg_extension again; epoch was read before. */
static pg_noinline bool
extension_read_catalog(uint64 epoch)
{
	char	   *version;

	bool		was_known = known;
	bool		was_present = present;

	/* a catalog snapshot taken after the epoch was read */
	InvalidateCatalogSnapshot();
	version = extension_version();
	present = version != NULL;
	known = true;
	known_epoch = epoch;
	/* the transaction's own catalog may change again (savepoints) */
	reread = xact_created || xact_dropped || xact_altered;
	if (was_known && was_present != present)
		ResetPlanCache();
	if (present)
	{
		warn_version(version);
		pfree(version);
	}
	return present;
}

/*
 * Is sfcache created in this database? On the hit path: one atomic read
 * and two comparisons when nothing changed. Outside a valid transaction
 * (commit, abort) the last answer stands.
 */
bool
SfcExtensionActive(void)
{
	uint64		epoch;

	if (unlikely(my_epoch == NULL) && !epoch_slot())
		return false;
	epoch = pg_atomic_read_u64(my_epoch);
	if (likely(known && epoch == known_epoch && !reread))
		return present;
	if (!IsTransactionState())
		return known && present;
	return extension_read_catalog(epoch);
}

/* The last answer, without reading anything: for callers inside a commit. */
bool
SfcExtensionWasActive(void)
{
	return known && present;
}

/* Did the transaction ending now create or drop an extension? */
bool
SfcExtensionChangedInXact(bool *created)
{
	*created = xact_created;
	return xact_created || xact_dropped;
}

/* Did the transaction ending now drop sfcache itself in this database? */
bool
SfcExtensionDroppedInXact(void)
{
	return xact_dropped_self;
}

/* object_access (core_hooks.c): an extension created or dropped. */
void
SfcExtensionObjectAccess(ObjectAccessType access, Oid classId, Oid objectId)
{
	if (classId != ExtensionRelationId)
		return;
	if (access == OAT_POST_CREATE)
		xact_created = reread = true;
	else if (access == OAT_DROP)
	{
		xact_dropped = reread = true;
		/* before its row goes: the name still finds it */
		if (objectId == get_extension_oid("sfcache", true))
			xact_dropped_self = true;
	}
	else if (access == OAT_POST_ALTER)
		xact_altered = reread = true;
}

/* Move every slot: another transaction's catalog change became visible. */
static void
extension_bump_all(void)
{
	if (extension_shared == NULL)
		return;
	for (int i = 0; i < SFC_EXTENSION_SLOTS; i++)
		pg_atomic_fetch_add_u64(&extension_shared->epochs[i], 1);
}

/*
 * The transaction callback (core_hooks.c), after the subsystems saw the
 * event: at commit, move this database's epoch; at any end, forget.
 */
void
SfcExtensionXactEvent(XactEvent event)
{
	/*
	 * A DROP rolled back to a savepoint, or undone by a new CREATE, dropped
	 * nothing: asked while the catalogs can still be read.
	 */
	if (event == XACT_EVENT_PRE_COMMIT && xact_dropped_self &&
		OidIsValid(get_extension_oid("sfcache", true)))
		xact_dropped_self = false;
	if (event != XACT_EVENT_COMMIT && event != XACT_EVENT_ABORT &&
		event != XACT_EVENT_PREPARE && event != XACT_EVENT_PARALLEL_COMMIT &&
		event != XACT_EVENT_PARALLEL_ABORT)
		return;
	if (!xact_created && !xact_dropped && !xact_altered)
		return;
	if (event == XACT_EVENT_COMMIT && (my_epoch != NULL || epoch_slot()))
		pg_atomic_fetch_add_u64(my_epoch, 1);
	xact_created = xact_dropped = xact_dropped_self = xact_altered = false;
	reread = true;
}

/* ProcessUtility (core_hooks.c), after a command succeeded. */
void
SfcExtensionUtilityDone(Node *stmt)
{
	if (IsA(stmt, TransactionStmt) &&
		(((TransactionStmt *) stmt)->kind == TRANS_STMT_COMMIT_PREPARED ||
		 ((TransactionStmt *) stmt)->kind == TRANS_STMT_ROLLBACK_PREPARED))
	{
		extension_bump_all();
		reread = true;
	}
}
