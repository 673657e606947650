/*-------------------------------------------------------------------------
 *
 * cache_ancestors.c
 *		The inheritance and partition ancestors of a relation, for the
 *		writes cache_inval_writeset.c notes, without a pg_inherits scan
 *		per write.
 *
 * Each backend keeps the ancestors it looked up, tagged with a shared
 * inheritance epoch read before the lookup; an entry is used while the
 * epoch has not moved. A transaction that attaches or detaches a child
 * (cache_inval_hooks.c sees it through the InheritsRelationId object
 * access hook) moves the epoch before its commit becomes visible and again
 * after, like the generations. Why a writer never uses ancestors older than its
 * lock: attaching a child to a parent (ALTER TABLE ... INHERIT, ATTACH
 * PARTITION, CREATE TABLE ... PARTITION OF) locks the child
 * AccessExclusive, so it committed (and moved the epoch) before the
 * writer's RowExclusiveLock was granted, or waits for the writer. A
 * detached parent left in an entry only invalidates more.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/table.h"
#include "catalog/pg_inherits.h"
#include "port/atomics.h"
#include "storage/shmem.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "cache/cache_internal.h"

typedef struct AncestorsShared
{
	pg_atomic_uint64 epoch;
} AncestorsShared;

typedef struct AncestorsEntry
{
	Oid			relid;			/* hash key */
	uint64		epoch;			/* of the shared epoch when looked up */
	List	   *ancestors;		/* in CacheMemoryContext */
} AncestorsEntry;

static AncestorsShared *shared = NULL;
static HTAB *local = NULL;
static bool changed_in_xact = false;

static Size
ancestors_shmem_size(void)
{
	return MAXALIGN(sizeof(AncestorsShared));
}

/* Caller must hold AddinShmemInitLock. */
static void
ancestors_shmem_init(void)
{
	bool		found;

	shared = ShmemInitStruct("sfcache inheritance epoch", sizeof(AncestorsShared), &found);
	if (!found)
		pg_atomic_init_u64(&shared->epoch, 1);
}

const SfcShmemPart CacheAncestorsShmemPart = {
	NULL, 0, ancestors_shmem_size, ancestors_shmem_init
};

/* Every relation relid inherits from or is a partition of: a pg_inherits walk. */
static List *
scan_ancestors(Oid relid)
{
	List	   *ancestors = NIL;
	List	   *queue = list_make1_oid(relid);
	Relation	catalog = table_open(InheritsRelationId, AccessShareLock);

	while (queue != NIL)
	{
		ScanKeyData key;
		SysScanDesc scan;
		HeapTuple	tup;

		ScanKeyInit(&key, Anum_pg_inherits_inhrelid, BTEqualStrategyNumber,
					F_OIDEQ, ObjectIdGetDatum(linitial_oid(queue)));
		queue = list_delete_first(queue);
		scan = systable_beginscan(catalog, InheritsRelidSeqnoIndexId, true,
								  NULL, 1, &key);
		while (HeapTupleIsValid(tup = systable_getnext(scan)))
		{
			Oid			parent = ((Form_pg_inherits) GETSTRUCT(tup))->inhparent;

			if (!list_member_oid(ancestors, parent))
			{
				ancestors = lappend_oid(ancestors, parent);
				queue = lappend_oid(queue, parent);
			}
		}
		systable_endscan(scan);
	}
	table_close(catalog, AccessShareLock);
	return ancestors;
}

/*
 * The ancestors of a relation the caller has locked, as a new list in the
 * current memory context.
 */
List *
CacheRelationAncestors(Oid relid)
{
	uint64		epoch = pg_atomic_read_u64(&shared->epoch);
	AncestorsEntry *entry;
	bool		found;
	MemoryContext oldcxt;
	List	   *ancestors;

	if (local == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(AncestorsEntry);
		ctl.hcxt = CacheMemoryContext;
		local = hash_create("sfcache ancestors", 256, &ctl,
							HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	entry = hash_search(local, &relid, HASH_FIND, NULL);
	if (entry != NULL && entry->epoch == epoch)
		return list_copy(entry->ancestors);

	/* read the epoch before the scan: a change committed after it moves it */
	pg_memory_barrier();
	ancestors = scan_ancestors(relid);
	entry = hash_search(local, &relid, HASH_ENTER, &found);
	if (found)
		list_free(entry->ancestors);
	oldcxt = MemoryContextSwitchTo(CacheMemoryContext);
	entry->ancestors = list_copy(ancestors);
	MemoryContextSwitchTo(oldcxt);
	entry->epoch = epoch;
	return ancestors;
}

/* The current transaction attaches or detaches a child. */
void
CacheInheritanceChanged(void)
{
	changed_in_xact = true;
}

/*
 * Around the commit of a transaction that changed inheritance (before it
 * becomes visible, and after it or an abort): move the epoch.
 */
void
CacheInheritanceXactBump(bool end_of_xact)
{
	if (!changed_in_xact)
		return;
	CacheInheritanceEpochBump();
	if (end_of_xact)
		changed_in_xact = false;
}

/*
 * Move the epoch: also around COMMIT PREPARED, whose transaction's
 * changes are not known here.
 */
void
CacheInheritanceEpochBump(void)
{
	pg_atomic_fetch_add_u64(&shared->epoch, 1);
}
