/*-------------------------------------------------------------------------
 *
 * cache_inval.c
 *		Exact invalidation on commit: per-relation generation counters in
 *		shared memory, the writes a transaction makes (seen from the
 *		ExecutorStart, ProcessUtility and object access hooks that
 *		core_hooks.c dispatches here), the transaction callback that bumps
 *		the counters around its commit, and the registry of callbacks told
 *		of each relation a commit invalidated.
 *
 * The protocol (doc/DESIGN.md, "Invalidation"): each relation maps to a slot
 * of a fixed array of atomics, indexed by a hash of (database, relation);
 * a collision only invalidates more. A writer bumps the generation of
 * every relation it modified, with their partition ancestors and
 * descendants, once before its commit becomes visible (PRE_COMMIT, also
 * raising the slot's in-flight count) and once after (COMMIT or ABORT,
 * lowering it). A leader reads the generations, then the in-flight counts,
 * then takes its snapshot; it refuses to store if a commit was in flight
 * and stores only if no generation moved by the time it publishes. Entries
 * are served only while all their generations are current.
 *
 * Writes are seen through ExecutorStart (INSERT, UPDATE, DELETE, MERGE,
 * from clients, SPI, triggers and foreign-key actions alike), the utility
 * hook (COPY FROM, REFRESH MATERIALIZED VIEW, TRUNCATE, ALTER TABLE,
 * COMMIT PREPARED) and the object access hook (any other ALTER or DROP of a
 * relation, and a child attached to or detached from a parent). A write
 * to a relation counts for its ancestors too, inheritance parents and
 * partitioned tables alike, since a read of a parent reads its children.
 * TRUNCATE, COMMIT PREPARED, a change to a function, type, domain,
 * operator, collation, text search object, policy or rule, GRANT or
 * REVOKE on a function and a change of role membership bump a global
 * generation that every entry depends on: they are rare, and which entries
 * they affect is not known to this hook. So does every commit of a
 * logical replication worker: on a subscriber the apply worker writes
 * tables without the executor's hooks.
 *
 * Locking: none. The counters are atomics; readers and writers order their
 * accesses with full barriers (pg_atomic_fetch_add_* is one).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/table.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/index.h"
#include "catalog/namespace.h"
#include "catalog/objectaccess.h"
#include "catalog/partition.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_amproc.h"
#include "catalog/pg_class.h"
#include "catalog/pg_cast.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_conversion.h"
#include "catalog/pg_enum.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_policy.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_rewrite.h"
#include "catalog/pg_transform.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_ts_config.h"
#include "catalog/pg_ts_dict.h"
#include "catalog/pg_ts_parser.h"
#include "catalog/pg_ts_template.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/bitmapset.h"
#include "parser/parsetree.h"
#include "port/atomics.h"
#include "replication/logicalworker.h"
#include "storage/lmgr.h"
#include "storage/shmem.h"
#include "tcop/utility.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "cache/cache.h"

/*
 * The counters, one array: for each relation slot an "any row" counter,
 * bumped by every write to a relation of that slot, and a "whole relation"
 * counter, bumped only by writes whose rows were not captured; then the
 * tag counters, bumped per (relation, tracked column, value) of each row a
 * capture trigger saw. An entry that depends on a relation as a whole
 * watches its "any row" counter; one that depends only on some values of
 * a tracked column watches its "whole relation" counter and those tags.
 */
#define SFC_REL_SLOTS SFC_GEN_SLOTS
#define SFC_TAG_SLOTS 65536
#define ANY_ROW_COUNTER(slot) (slot)
#define WHOLE_COUNTER(slot) (SFC_REL_SLOTS + (slot))
#define TAG_COUNTER(tag) (2 * SFC_REL_SLOTS + (tag))
#define SFC_COUNTERS (2 * SFC_REL_SLOTS + SFC_TAG_SLOTS)

typedef struct GenCounter
{
	pg_atomic_uint64 gen;
	pg_atomic_uint32 inflight;
} GenCounter;

typedef struct InvalShared
{
	pg_atomic_uint64 global_gen;
	pg_atomic_uint32 global_inflight;
	GenCounter	counters[SFC_COUNTERS];
} InvalShared;

static InvalShared *inval = NULL;

/*
 * What the current transaction wrote; kept in TopMemoryContext.
 * written_relids: every relation written (own-write bypass, callbacks);
 * whole_relids: those written without their rows captured; captured:
 * those whose rows were captured, with their ancestors (CapturedRelation).
 */
static List *written_relids = NIL;
static List *whole_relids = NIL;
static List *captured = NIL;
static CounterSet written_counters = {NULL};
static int	written_tags = 0;
static bool tags_overflowed = false;
static bool written_global = false;
static bool bumped_pre_commit = false;

/* A relation whose rows this transaction captured, and what that touches. */
typedef struct CapturedRelation
{
	Oid			relid;
	List	   *with_ancestors; /* relid first, then its ancestors */
} CapturedRelation;

/* Relations whose plans changed (no rows): in written_counters, not written_relids. */
static List *plan_changed_relids = NIL;

#define MAX_COMMIT_CALLBACKS 2

/* Told of each commit that invalidated something (the Redis bus). */
static CacheCommitCallback commit_callbacks[MAX_COMMIT_CALLBACKS];
static int	n_commit_callbacks = 0;
static bool commit_announced = false;

#define MAX_INVALIDATION_CALLBACKS 4

/* Told of each relation a committed transaction wrote. */
static CacheInvalidationCallback invalidation_callbacks[MAX_INVALIDATION_CALLBACKS];
static int	n_invalidation_callbacks = 0;

/* The generation slot of a relation of any database. */
uint32
CacheGenSlotFor(Oid dbid, Oid relid)
{
	return hash_combine(hash_uint32(dbid), hash_uint32(relid)) % SFC_GEN_SLOTS;
}

static uint32
slot_for(Oid relid)
{
	return CacheGenSlotFor(MyDatabaseId, relid);
}

/* The counter an entry watches when it depends on every row of a relation. */
uint32
CacheAnyRowCounter(Oid relid)
{
	return ANY_ROW_COUNTER(slot_for(relid));
}

/* The counter of a relation's writes whose rows were not captured. */
uint32
CacheWholeRelationCounter(Oid relid)
{
	return WHOLE_COUNTER(slot_for(relid));
}

/*
 * The counter of the rows of relid whose column attname has a value
 * hashing (with the column type's default hash opclass) to valuehash.
 */
uint32
CacheTagCounter(Oid relid, const char *attname, uint32 valuehash)
{
	uint32		h = hash_combine(hash_uint32(MyDatabaseId), hash_uint32(relid));

	h = hash_combine(h, hash_bytes((const unsigned char *) attname, strlen(attname)));
	h = hash_combine(h, valuehash);
	return TAG_COUNTER(h % SFC_TAG_SLOTS);
}

/* Pure: the generation and in-flight counters. */
static Size
inval_shmem_size(void)
{
	return MAXALIGN(sizeof(InvalShared));
}

/* Caller must hold AddinShmemInitLock. */
static void
inval_shmem_init(void)
{
	bool		found;

	inval = ShmemInitStruct("sfcache generations", sizeof(InvalShared), &found);
	if (!found)
	{
		pg_atomic_init_u64(&inval->global_gen, 1);
		pg_atomic_init_u32(&inval->global_inflight, 0);
		for (int i = 0; i < SFC_COUNTERS; i++)
		{
			pg_atomic_init_u64(&inval->counters[i].gen, 1);
			pg_atomic_init_u32(&inval->counters[i].inflight, 0);
		}
	}
}

/* The generations' part of shared memory (no locks: atomics). */
const SfcShmemPart CacheInvalShmemPart = {
	NULL, 0, inval_shmem_size, inval_shmem_init
};

/* From an Init: call callback for each relation a committed transaction wrote. */
void
CacheRegisterInvalidationCallback(CacheInvalidationCallback callback)
{
	if (n_invalidation_callbacks >= MAX_INVALIDATION_CALLBACKS)
		elog(ERROR, "too many sfcache invalidation callbacks");
	invalidation_callbacks[n_invalidation_callbacks++] = callback;
}

/*
 * From an Init: call callback at the start of each commit that invalidates
 * something (before its commit record), at its end (with its relations and
 * commit LSN) or at its abort. It must only copy into shared memory.
 */
void
CacheRegisterCommitCallback(CacheCommitCallback callback)
{
	if (n_commit_callbacks >= MAX_COMMIT_CALLBACKS)
		elog(ERROR, "too many sfcache commit callbacks");
	commit_callbacks[n_commit_callbacks++] = callback;
}

/* ---- reading side ---- */

/*
 * Read the given counters (CacheDependencyCounters), before the caller
 * takes the snapshot it executes with. Returns false when a commit
 * touching one of them (or a global one) is in flight: such a result must
 * not be stored.
 */
bool
CacheGenSnapshotTake(const uint32 *counters, int ncounters, GenSnapshot *snap)
{
	bool		quiet = true;

	Assert(ncounters <= SFC_MAX_COUNTERS);
	snap->nslots = 0;
	for (int c = 0; c < ncounters; c++)
	{
		int			i;

		for (i = 0; i < snap->nslots && snap->slots[i] != counters[c]; i++)
			;
		if (i == snap->nslots)
			snap->slots[snap->nslots++] = counters[c];
	}

	snap->global_gen = pg_atomic_read_u64(&inval->global_gen);
	for (int i = 0; i < snap->nslots; i++)
		snap->gens[i] = pg_atomic_read_u64(&inval->counters[snap->slots[i]].gen);

	/* The in-flight counts must be read after the generations. */
	pg_memory_barrier();

	if (pg_atomic_read_u32(&inval->global_inflight) != 0)
		quiet = false;
	for (int i = 0; i < snap->nslots && quiet; i++)
		if (pg_atomic_read_u32(&inval->counters[snap->slots[i]].inflight) != 0)
			quiet = false;

	/* ... and before the snapshot the caller takes next. */
	pg_memory_barrier();
	return quiet;
}

/* True if no generation has moved from the values given. */
bool
CacheGensAreCurrent(uint64 global_gen, int nslots, const uint32 *slots, const uint64 *gens)
{
	pg_memory_barrier();
	if (pg_atomic_read_u64(&inval->global_gen) != global_gen)
		return false;
	for (int i = 0; i < nslots; i++)
		if (pg_atomic_read_u64(&inval->counters[slots[i]].gen) != gens[i])
			return false;
	return true;
}

/* True if no counter of the snapshot has moved since it was taken. */
bool
CacheGenSnapshotIsCurrent(const GenSnapshot *snap)
{
	return CacheGensAreCurrent(snap->global_gen, snap->nslots, snap->slots, snap->gens);
}

/* True if the current transaction has written any of the relations. */
bool
CacheTransactionWroteAny(List *relids)
{
	ListCell   *lc;

	if (written_global)
		return true;
	if (written_relids == NIL)
		return false;
	foreach(lc, relids)
	{
		if (list_member_oid(written_relids, lfirst_oid(lc)))
			return true;
	}
	return false;
}

/* ---- writing side ---- */

/*
 * The relation, its ancestors (inheritance parents and partitioned tables
 * alike: a read of a parent reads its children) and its descendants.
 */
static List *
relations_affected_by_write(Oid relid)
{
	List	   *rels = list_make1_oid(relid);

	rels = list_concat(rels, CacheRelationAncestors(relid));
	if (has_subclass(relid))
		rels = list_concat_unique_oid(rels, find_all_inheritors(relid, NoLock, NULL));
	return rels;
}

/* Add to what the current transaction wrote (kept in TopMemoryContext). */
static void
note_written_relation(Oid relid)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(TopMemoryContext);

	if (!list_member_oid(written_relids, relid))
		written_relids = lappend_oid(written_relids, relid);
	MemoryContextSwitchTo(oldcxt);
}

static bool
note_counter(uint32 counter)
{
	return CounterSetAdd(&written_counters, counter);
}

static void
note_whole_relation(Oid relid)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(TopMemoryContext);

	if (!list_member_oid(whole_relids, relid))
		whole_relids = lappend_oid(whole_relids, relid);
	MemoryContextSwitchTo(oldcxt);
	note_counter(CacheWholeRelationCounter(relid));
}

/*
 * Remember that the current transaction writes this relation in a way
 * whose rows are not captured (DDL, REFRESH, a table with no active
 * capture trigger...): results over it and its ancestors and descendants
 * are dropped whatever values they depend on. Once is enough: a change to
 * the hierarchy it belongs to is noted by itself (CacheObjectAccess), with
 * the parent it names.
 */
static void
note_write(Oid relid)
{
	List	   *rels;
	ListCell   *lc;

	if (!OidIsValid(relid) || list_member_oid(whole_relids, relid))
		return;
	rels = relations_affected_by_write(relid);
	foreach(lc, rels)
	{
		Oid			rel = lfirst_oid(lc);

		note_written_relation(rel);
		note_counter(CacheAnyRowCounter(rel));
		note_whole_relation(rel);
	}
	list_free(rels);
}

/* Is every column of need among those of have (lists of C strings)? */
static bool
columns_cover(List *have, List *need)
{
	ListCell   *lc;

	foreach(lc, need)
	{
		ListCell   *lh;
		bool		found = false;

		foreach(lh, have)
		{
			if (strcmp(lfirst(lh), lfirst(lc)) == 0)
				found = true;
		}
		if (!found)
			return false;
	}
	return true;
}

static CapturedRelation *
find_captured(Oid relid)
{
	ListCell   *lc;

	foreach(lc, captured)
	{
		CapturedRelation *c = lfirst(lc);

		if (c->relid == relid)
			return c;
	}
	return NULL;
}

/*
 * A statement (INSERT, UPDATE, DELETE, MERGE, COPY FROM) writes rows of
 * this relation. If every table its rows can land in (the relation and
 * its descendants) has an active capture trigger (cache_tracked.c), each
 * row's tracked values are captured (CacheNoteCapturedRow): results that
 * depend only on other values stay valid. Otherwise, or for an ancestor
 * whose tracked columns a target does not capture, or a plain inheritance
 * parent (tracking one does not lock its children), the write counts for
 * the whole relation.
 *
 * Why this is safe against tracking that changes mid-transaction: creating,
 * dropping, enabling or disabling a trigger takes ShareRowExclusiveLock on
 * its table (and on every partition, for a partitioned table's cloned
 * triggers), which waits for this writer's RowExclusiveLock: the set of
 * tracked columns a reader plans with cannot change between this writer's
 * capture and its commit. Trigger DDL within this transaction counts as a
 * write of the whole relation (CacheObjectAccess).
 */
/*
 * The tables a write of relid can put rows in (relid and its descendants)
 * and the tracked columns of each holding rows; false if one of those is
 * not captured.
 */
static bool
capture_targets(Oid relid, List **targets, List **target_columns)
{
	ListCell   *lc;

	*targets = list_make1_oid(relid);
	*target_columns = NIL;
	if (has_subclass(relid))
		*targets = list_concat_unique_oid(*targets, find_all_inheritors(relid, NoLock, NULL));
	foreach(lc, *targets)
	{
		Oid			t = lfirst_oid(lc);
		List	   *cols;

		if (get_rel_relkind(t) == RELKIND_PARTITIONED_TABLE)
			continue;			/* holds no rows */
		cols = get_rel_relkind(t) == RELKIND_RELATION ? CacheTrackedColumnsOf(t) : NIL;
		if (cols == NIL)
			return false;
		*target_columns = lappend(*target_columns, cols);
	}
	return true;
}

/*
 * Does a captured write to targets count for the whole of x, one of them or
 * an ancestor? A partitioned table does unless every target tracks its
 * columns; a plain inheritance parent always does (the capture of a
 * child's rows names only partitioned ancestors), and so do a view or a
 * foreign table.
 */
static bool
captured_write_is_whole(Oid x, List *targets, List *target_columns)
{
	char		relkind = get_rel_relkind(x);

	if (relkind == RELKIND_PARTITIONED_TABLE)
	{
		List	   *need = CacheTrackedColumnsOf(x);
		ListCell   *lt;

		foreach(lt, target_columns)
		{
			if (!columns_cover(lfirst(lt), need))
				return true;
		}
		return false;
	}
	return relkind != RELKIND_RELATION || !list_member_oid(targets, x) || has_subclass(x);
}

/* Remember a target whose rows the capture trigger will report. */
static void
remember_captured(Oid t)
{
	List	   *with_ancestors = list_make1_oid(t);
	MemoryContext oldcxt;
	CapturedRelation *c;

	/* get_partition_ancestors() scans pg_inherits even for a non-partition */
	if (get_rel_relispartition(t))
		with_ancestors = list_concat(with_ancestors, get_partition_ancestors(t));
	oldcxt = MemoryContextSwitchTo(TopMemoryContext);
	c = palloc(sizeof(CapturedRelation));
	c->relid = t;
	c->with_ancestors = list_copy(with_ancestors);
	captured = lappend(captured, c);
	MemoryContextSwitchTo(oldcxt);
}

static void
note_row_write(Oid relid)
{
	List	   *targets;
	List	   *target_columns;
	ListCell   *lc;

	if (!OidIsValid(relid) || list_member_oid(whole_relids, relid) ||
		find_captured(relid) != NULL)
		return;

	/*
	 * An untracked table is written whole without looking further: only a
	 * tracked hierarchy pays for locking and reading its members.
	 */
	if (CacheTrackedColumnsOf(relid) == NIL ||
		!capture_targets(relid, &targets, &target_columns))
	{
		note_write(relid);
		return;
	}

	foreach(lc, list_concat_unique_oid(list_copy(targets), CacheRelationAncestors(relid)))
	{
		Oid			x = lfirst_oid(lc);

		note_written_relation(x);
		note_counter(CacheAnyRowCounter(x));
		if (captured_write_is_whole(x, targets, target_columns))
			note_whole_relation(x);
	}
	foreach(lc, targets)
	{
		Oid			t = lfirst_oid(lc);

		if (get_rel_relkind(t) == RELKIND_RELATION && find_captured(t) == NULL)
			remember_captured(t);
	}
}

/*
 * The capture trigger (cache_capture.c) saw a row of rel whose tracked
 * column attname has a value hashing to valuehash (the old or the new
 * version of the row). Bumped at commit for the relation and its
 * partitioned ancestors. A row of a relation no statement of this
 * transaction announced (a path that does not go through ExecutorStart or
 * COPY), and every row once the transaction has captured more than
 * sfcache.max_tags_per_transaction values, counts for the whole relation.
 */
void
CacheNoteCapturedRow(Oid relid, const char *attname, uint32 valuehash)
{
	CapturedRelation *c = find_captured(relid);
	ListCell   *lc;

	if (c == NULL || tags_overflowed)
	{
		CacheNoteUncapturedRow(relid);
		return;
	}
	foreach(lc, c->with_ancestors)
	{
		uint32		counter = CacheTagCounter(lfirst_oid(lc), attname, valuehash);

		if (note_counter(counter))
			written_tags++;
	}

	if (written_tags > sfc_max_tags_per_transaction)
	{
		/* bounded memory and commit work: everything captured goes whole */
		tags_overflowed = true;
		foreach(lc, captured)
			note_write(((CapturedRelation *) lfirst(lc))->relid);
	}
}

/* A row of relid whose tracked values cannot be captured: the whole relation. */
void
CacheNoteUncapturedRow(Oid relid)
{
	note_write(relid);
}

/*
 * A change that leaves every row as it was but lets the planner choose
 * another plan (statistics, an index): without ORDER BY, the plan decides
 * the order of the rows, so results over the relation and its ancestors
 * are dropped at commit, whatever values they depend on. Not a write:
 * neither an own write for the transaction's later reads nor a write
 * counted in sfcache.table_activity.
 */
static void
note_plan_change(Oid relid)
{
	List	   *rels;
	ListCell   *lc;

	if (!OidIsValid(relid))
		return;
	rels = relations_affected_by_write(relid);
	foreach(lc, rels)
	{
		MemoryContext oldcxt;

		note_counter(CacheAnyRowCounter(lfirst_oid(lc)));
		note_counter(CacheWholeRelationCounter(lfirst_oid(lc)));
		oldcxt = MemoryContextSwitchTo(TopMemoryContext);
		plan_changed_relids = list_append_unique_oid(plan_changed_relids,
													 lfirst_oid(lc));
		MemoryContextSwitchTo(oldcxt);
	}
	list_free(rels);
}

static void
note_write_global(void)
{
	written_global = true;
}

/* Bump now, outside any transaction protocol: for sfcache.invalidate(). */
void
CacheInvalidateRelationNow(Oid relid)
{
	List	   *rels = relations_affected_by_write(relid);
	ListCell   *lc;

	foreach(lc, rels)
	{
		pg_atomic_fetch_add_u64(&inval->counters[CacheAnyRowCounter(lfirst_oid(lc))].gen, 1);
		pg_atomic_fetch_add_u64(&inval->counters[CacheWholeRelationCounter(lfirst_oid(lc))].gen, 1);
	}
	list_free(rels);
}

/*
 * Bump the given relations of any database, as another node's commit
 * reported them (already with their ancestors and descendants).
 */
void
CacheInvalidateRelationsOf(Oid dbid, int nrelids, const Oid *relids)
{
	for (int i = 0; i < nrelids; i++)
	{
		uint32		slot = CacheGenSlotFor(dbid, relids[i]);

		/* tags do not travel: results over any value of the relation drop */
		pg_atomic_fetch_add_u64(&inval->counters[ANY_ROW_COUNTER(slot)].gen, 1);
		pg_atomic_fetch_add_u64(&inval->counters[WHOLE_COUNTER(slot)].gen, 1);
	}
}

void
CacheInvalidateAllNow(void)
{
	pg_atomic_fetch_add_u64(&inval->global_gen, 1);
}

/* Before the commit becomes visible: mark in flight and invalidate. */
static void
bump_before_commit(void)
{
	int			pos = -1;
	uint32		c;

	while (CounterSetNext(&written_counters, &pos, &c))
	{
		pg_atomic_fetch_add_u32(&inval->counters[c].inflight, 1);
		pg_atomic_fetch_add_u64(&inval->counters[c].gen, 1);
	}
	if (written_global)
	{
		pg_atomic_fetch_add_u32(&inval->global_inflight, 1);
		pg_atomic_fetch_add_u64(&inval->global_gen, 1);
	}
	bumped_pre_commit = true;
}

/* After the commit became visible (or the transaction aborted). */
static void
bump_after_commit(void)
{
	int			pos = -1;
	uint32		c;

	while (CounterSetNext(&written_counters, &pos, &c))
	{
		pg_atomic_fetch_add_u64(&inval->counters[c].gen, 1);
		pg_atomic_fetch_sub_u32(&inval->counters[c].inflight, 1);
	}
	if (written_global)
	{
		pg_atomic_fetch_add_u64(&inval->global_gen, 1);
		pg_atomic_fetch_sub_u32(&inval->global_inflight, 1);
	}
}

/* Tell the registered callbacks which relations a commit invalidated. */
static void
report_invalidations(void)
{
	ListCell   *lc;

	foreach(lc, written_relids)
	{
		for (int i = 0; i < n_invalidation_callbacks; i++)
			invalidation_callbacks[i] (lfirst_oid(lc));
	}
}

/* Tell the commit callbacks a commit (or its abort) begins or ended. */
static void
announce_commit(CacheCommitPhase phase)
{
	CacheCommitInfo info = {0};
	List	   *rels = NIL;

	if (n_commit_callbacks == 0)
		return;
	if (phase == CACHE_COMMIT_BEGIN)
		commit_announced = true;
	else if (!commit_announced)
		return;
	if (phase == CACHE_COMMIT_DONE)
	{
		/* a commit without a transaction id (COMMIT PREPARED) has no record */
		info.commit_lsn = TransactionIdIsValid(GetTopTransactionIdIfAny()) ?
			XactLastCommitEnd : GetXLogInsertRecPtr();
		rels = list_concat_unique_oid(list_copy(written_relids), plan_changed_relids);
		info.everything = written_global;
		info.nrelids = list_length(rels);
		info.relids = rels ? &linitial_oid(rels) : NULL;
	}
	info.dbid = MyDatabaseId;
	for (int i = 0; i < n_commit_callbacks; i++)
		commit_callbacks[i] (phase, &info);
	list_free(rels);
}

static void
forget_writes(void)
{
	ListCell   *lc;

	list_free(plan_changed_relids);
	plan_changed_relids = NIL;
	commit_announced = false;
	list_free(written_relids);
	written_relids = NIL;
	list_free(whole_relids);
	whole_relids = NIL;
	foreach(lc, captured)
		list_free(((CapturedRelation *) lfirst(lc))->with_ancestors);
	list_free_deep(captured);
	captured = NIL;
	CounterSetReset(&written_counters);
	written_tags = 0;
	tags_overflowed = false;
	written_global = false;
	bumped_pre_commit = false;
}

/* The transaction callback (core_hooks.c): the two bumps around a commit. */
void
CacheXactEvent(XactEvent event)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			CacheInheritanceXactBump(false);
			if (IsLogicalWorker())
				note_write_global();
			if (CounterSetCount(&written_counters) > 0 || written_global)
			{
				announce_commit(CACHE_COMMIT_BEGIN);
				bump_before_commit();
				SfcTestHoldOnAdvisoryLock(sfc_test_hold_commit_lock);
			}
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PREPARE:
			CacheInheritanceXactBump(true);
			if (bumped_pre_commit)
			{
				bump_after_commit();
				if (event == XACT_EVENT_COMMIT)
					report_invalidations();
			}
			announce_commit(event == XACT_EVENT_COMMIT ?
							CACHE_COMMIT_DONE : CACHE_COMMIT_ABORTED);
			forget_writes();
			break;
		default:
			break;
	}
}

/* ---- where writes are seen ---- */

/* ExecutorStart (core_hooks.c): note the relations the statement writes. */
void
CacheExecutorStart(QueryDesc *queryDesc, int eflags)
{
	PlannedStmt *stmt = queryDesc->plannedstmt;

	/*
	 * A cached plan is not planned again unless something invalidates it:
	 * this is where a client's statement learns that sfcache was created or
	 * dropped in its database since the plan was made (core_extension.c then
	 * resets the plan cache, for its next execution).
	 */
	if (sfc_nesting_level == 0)
		(void) SfcExtensionActive();
	if (!(eflags & EXEC_FLAG_EXPLAIN_ONLY) &&
		(stmt->commandType != CMD_SELECT || stmt->hasModifyingCTE))
	{
		Bitmapset  *targets = SfcResultRelationRelids(stmt);
		int			rti = -1;

		while ((rti = bms_next_member(targets, rti)) >= 0)
			note_row_write(rt_fetch(rti, stmt->rtable)->relid);
	}
}

static Oid
relid_of(RangeVar *rv)
{
	return rv ? RangeVarGetRelid(rv, NoLock, true) : InvalidOid;
}

/* Note the writes a utility statement makes, before it runs. */
static void
note_utility_writes(Node *stmt)
{
	switch (nodeTag(stmt))
	{
		case T_CopyStmt:
			if (((CopyStmt *) stmt)->is_from)
				note_row_write(relid_of(((CopyStmt *) stmt)->relation));
			break;
		case T_RefreshMatViewStmt:
			note_write(relid_of(((RefreshMatViewStmt *) stmt)->relation));
			break;
		case T_IndexStmt:
			/* no row changes, but plans and the order they return rows in do */
			note_plan_change(relid_of(((IndexStmt *) stmt)->relation));
			break;
		case T_AlterTableStmt:
			note_write(relid_of(((AlterTableStmt *) stmt)->relation));
			/* a composite type's values are in results, not in its relation */
			if (((AlterTableStmt *) stmt)->objtype == OBJECT_TYPE)
				note_write_global();
			break;
		case T_GrantStmt:
			{
				ObjectType	type = ((GrantStmt *) stmt)->objtype;

				/* a hit checks EXECUTE itself; this drops what was computed */
				if (type == OBJECT_FUNCTION || type == OBJECT_PROCEDURE ||
					type == OBJECT_ROUTINE)
					note_write_global();
			}
			break;
		case T_AlterDomainStmt:
			/* its constraints are added and dropped with no hook on the type */
			note_write_global();
			break;
		case T_GrantRoleStmt:
		case T_AlterRoleStmt:
			/* membership and BYPASSRLS change what row security lets through */
			note_write_global();
			break;
		case T_TruncateStmt:
			{
				ListCell   *lc;

				/* the global bump covers CASCADE; the tables are counted */
				foreach(lc, ((TruncateStmt *) stmt)->relations)
					note_write(relid_of(lfirst_node(RangeVar, lc)));
				note_write_global();
			}
			break;
		default:
			break;
	}
}

/*
 * VACUUM and ANALYZE change no row, but the statistics they leave choose
 * other plans, and without ORDER BY the plan decides the order of the rows:
 * results over the tables they processed are dropped. Noted after the
 * command, in the transaction it leaves open (VACUUM commits its own).
 */
static void
note_statistics_change(VacuumStmt *stmt)
{
	ListCell   *lc;

	if (!IsTransactionState())
		return;
	if (stmt->rels == NIL)
		note_write_global();
	foreach(lc, stmt->rels)
		note_plan_change(relid_of(lfirst_node(VacuumRelation, lc)->relation));
}

/*
 * ProcessUtility (core_hooks.c), before the command: note the writes it
 * makes. COMMIT PREPARED makes another transaction's writes visible, and
 * which relations it wrote is not known here: it is a global write in
 * flight until CacheUtilityWritesEnd(true). Returns whether it was one.
 */
bool
CacheUtilityWritesBegin(Node *stmt)
{
	note_utility_writes(stmt);
	if (!IsA(stmt, TransactionStmt) ||
		((TransactionStmt *) stmt)->kind != TRANS_STMT_COMMIT_PREPARED)
		return false;
	/* announced before its record, published as global at this commit */
	announce_commit(CACHE_COMMIT_BEGIN);
	note_write_global();
	pg_atomic_fetch_add_u32(&inval->global_inflight, 1);
	pg_atomic_fetch_add_u64(&inval->global_gen, 1);
	CacheInheritanceEpochBump();
	return true;
}

/* ProcessUtility, after the command, whether it succeeded or failed. */
void
CacheUtilityWritesEnd(bool commit_prepared)
{
	if (!commit_prepared)
		return;
	CacheInheritanceEpochBump();
	pg_atomic_fetch_add_u64(&inval->global_gen, 1);
	pg_atomic_fetch_sub_u32(&inval->global_inflight, 1);
}

/* ProcessUtility, after the command succeeded. */
void
CacheUtilityDone(Node *stmt)
{
	if (IsA(stmt, VacuumStmt))
		note_statistics_change((VacuumStmt *) stmt);
}

/*
 * Catalogs whose objects change what a statement computes without the
 * statement naming them as relations: types and domains (constraints,
 * enum labels), operators and their families, collations, conversions,
 * text search objects, transforms, policies and rules. Results do not
 * record which of these they depend on, so a change to one invalidates
 * everything, at commit. Creating one changes no existing result (only
 * statements parsed later can use it), and dropping one drops or blocks
 * what depends on it, except for the kinds that take effect without being
 * named: an operator family member, a policy, a rule, a cast.
 */
static bool
changes_results(ObjectAccessType access, Oid classId)
{
	switch (classId)
	{
		case ProcedureRelationId:
		case AccessMethodOperatorRelationId:
		case AccessMethodProcedureRelationId:
		case PolicyRelationId:
		case RewriteRelationId:
		case CastRelationId:
			return access == OAT_POST_CREATE || access == OAT_POST_ALTER ||
				access == OAT_DROP;
		case TypeRelationId:
		case EnumRelationId:
		case OperatorRelationId:
		case OperatorClassRelationId:
		case OperatorFamilyRelationId:
		case CollationRelationId:
		case ConversionRelationId:
		case TSConfigRelationId:
		case TSDictionaryRelationId:
		case TSParserRelationId:
		case TSTemplateRelationId:
		case TransformRelationId:
			return access == OAT_POST_ALTER;
		default:
			return false;
	}
}

/* The table of a trigger being created, altered or dropped. */
static Oid
trigger_relation(Oid trigoid)
{
	Relation	catalog = table_open(TriggerRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			relid = InvalidOid;

	ScanKeyInit(&key, Anum_pg_trigger_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(trigoid));
	scan = systable_beginscan(catalog, TriggerOidIndexId, true, SnapshotSelf, 1, &key);
	if (HeapTupleIsValid(tup = systable_getnext(scan)))
		relid = ((Form_pg_trigger) GETSTRUCT(tup))->tgrelid;
	systable_endscan(scan);
	table_close(catalog, AccessShareLock);
	return relid;
}

/* The object access hook (core_hooks.c), after the previous one. */
void
CacheObjectAccess(ObjectAccessType access, Oid classId, Oid objectId,
				  int subId, void *arg)
{
	if (!IsTransactionState())
		return;
	if (classId == RelationRelationId &&
		(access == OAT_POST_ALTER || access == OAT_DROP))
	{
		note_write(objectId);
		/* a dropped index changes its table's plans (see CREATE INDEX) */
		if (access == OAT_DROP && get_rel_relkind(objectId) == RELKIND_INDEX)
			note_plan_change(IndexGetRelation(objectId, true));
	}

	/*
	 * A child attached to or detached from a parent (CREATE TABLE ...
	 * INHERITS or PARTITION OF, ALTER TABLE ... [NO] INHERIT, ATTACH and
	 * DETACH PARTITION): the parent is named here, since the catalog this
	 * command changes may not show it yet or any more.
	 */
	if (classId == InheritsRelationId && access == OAT_POST_ALTER)
	{
		CacheInheritanceChanged();
		note_write(objectId);
		if (arg != NULL)
			note_write(((ObjectAccessPostAlter *) arg)->auxiliary_id);
	}

	/*
	 * A trigger created, altered or dropped may start or stop the capture of
	 * a table's rows: this transaction's later writes of it must not count on
	 * an earlier decision (note_row_write).
	 */
	if (classId == TriggerRelationId)
		note_write(trigger_relation(objectId));

	if (changes_results(access, classId))
		note_write_global();
}
