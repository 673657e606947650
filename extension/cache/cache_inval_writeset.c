/*-------------------------------------------------------------------------
 *
 * cache_inval_writeset.c
 *		The current transaction's write set: the relations it wrote (for
 *		its own later reads, CacheTransactionWroteAny, and for the commit's
 *		callbacks), the counters its commit must bump
 *		(cache_inval_counters.c) and the capture bookkeeping that lets a
 *		write of a tracked table bump only the tags of the values its rows
 *		held: which relations' rows the capture trigger (cache_capture.c)
 *		reports, with their ancestors, and how many tags were noted. What
 *		counts as a write is decided by cache_inval_hooks.c; the commit
 *		protocol (cache_inval_commit.c) reads the set and, at the
 *		transaction's end, forgets it.
 *
 * A write to a relation counts for its ancestors (inheritance parents and
 * partitioned tables alike: a read of a parent reads its children) and its
 * descendants.
 *
 * Locking: no shared state. The set is this backend's own, in
 * TopMemoryContext from the first write to the end of the transaction.
 * Descendants are listed with NoLock; reading the tracked columns of a
 * tracked hierarchy's members opens each with AccessShareLock, kept to the
 * end of the transaction (cache_tracked.c). Why tracking cannot change
 * under a captured write: see CacheNoteRowWrite.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "miscadmin.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "cache/cache_internal.h"

/*
 * What the current transaction wrote; kept in TopMemoryContext.
 * written_relids: every relation written (own-write bypass, callbacks);
 * whole_relids: those written without their rows captured; captured:
 * those whose rows were captured, with their ancestors (CapturedRelation).
 */
static List *written_relids = NIL;
static List *whole_relids = NIL;
static List *captured = NIL;
static CacheCounterSet written_counters = {NULL, 0, 0, NULL};
static int	written_tags = 0;
static bool tags_overflowed = false;

/*
 * The tags the commit bumps, as another node needs them (the Redis bus):
 * up to CACHE_MAX_COMMIT_TAGS; beyond, commit_tags_full, and the commit
 * reports its captured relations as written whole.
 */
static CacheTag commit_tags[CACHE_MAX_COMMIT_TAGS];
static int	n_commit_tags = 0;
static bool commit_tags_full = false;
static bool written_global = false;

/* A relation whose rows this transaction captured, and what that touches. */
typedef struct CapturedRelation
{
	Oid			relid;
	List	   *with_ancestors; /* relid first, then its ancestors */
} CapturedRelation;

/* Relations whose plans changed (no rows): in written_counters, not written_relids. */
static List *plan_changed_relids = NIL;

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

/* ---- noting writes (cache_inval_hooks.c, cache_capture.c) ---- */

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
	return CacheCounterSetAdd(&written_counters, counter);
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

/* One relation written, all its rows. */
static void
note_whole_write(Oid rel)
{
	note_written_relation(rel);
	note_counter(CacheAnyRowCounter(rel));
	note_whole_relation(rel);
}

/*
 * Remember that the current transaction writes this relation in a way
 * whose rows are not captured (DDL, REFRESH, a table with no active
 * capture trigger...): results over it and its ancestors and descendants
 * are dropped whatever values they depend on. Once is enough: a change to
 * the hierarchy it belongs to is noted by itself (CacheObjectAccess), with
 * the parent it names.
 */
void
CacheNoteRelationWrite(Oid relid)
{
	List	   *rels;
	ListCell   *lc;

	if (!OidIsValid(relid) || list_member_oid(whole_relids, relid))
		return;
	rels = relations_affected_by_write(relid);
	foreach(lc, rels)
		note_whole_write(lfirst_oid(lc));
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

/*
 * Remember a target whose rows the capture trigger will report;
 * partition: whether it may be a partition (look its ancestors up).
 */
static void
remember_captured(Oid t, bool partition)
{
	List	   *ancestors = NIL;
	MemoryContext oldcxt;
	CapturedRelation *c;

	/* get_partition_ancestors() scans pg_inherits even for a non-partition */
	if (partition && get_rel_relispartition(t))
		ancestors = get_partition_ancestors(t);
	oldcxt = MemoryContextSwitchTo(TopMemoryContext);
	c = palloc(sizeof(CapturedRelation));
	c->relid = t;
	c->with_ancestors = list_concat(list_make1_oid(t), ancestors);
	captured = lappend(captured, c);
	MemoryContextSwitchTo(oldcxt);
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
void
CacheNoteRowWrite(Oid relid)
{
	List	   *targets;
	List	   *target_columns;
	ListCell   *lc;
	bool		tracked;

	if (!OidIsValid(relid) || list_member_oid(whole_relids, relid) ||
		find_captured(relid) != NULL)
		return;

	/*
	 * A table with no children and no parent, the common case, is all its
	 * rows land in: what the general path below decides for it, without a
	 * catalog lookup.
	 */
	if (CacheTableAlone(relid, &tracked) && CacheRelationAncestors(relid) == NIL)
	{
		if (!tracked)
			note_whole_write(relid);
		else
		{
			note_written_relation(relid);
			note_counter(CacheAnyRowCounter(relid));
			remember_captured(relid, false);
		}
		return;
	}

	/*
	 * An untracked table is written whole without looking further: only a
	 * tracked hierarchy pays for locking and reading its members.
	 */
	if (CacheTrackedColumnsOf(relid) == NIL ||
		!capture_targets(relid, &targets, &target_columns))
	{
		CacheNoteRelationWrite(relid);
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
			remember_captured(t, true);
	}
}

/*
 * The capture trigger (cache_capture.c) saw a row of rel whose tracked
 * column (column_hash: CacheTagColumnHash of its name) has a value hashing
 * to valuehash (the old or the new version of the row). Bumped at commit for the relation and its
 * partitioned ancestors. A row of a relation no statement of this
 * transaction announced (a path that does not go through ExecutorStart or
 * COPY), and every row once the transaction has captured more than
 * sfcache.max_tags_per_transaction values, counts for the whole relation.
 */
void
CacheNoteCapturedRow(Oid relid, uint32 column_hash, uint32 valuehash)
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
		uint32		counter = CacheTagCounterOf(lfirst_oid(lc), column_hash, valuehash);

		if (!note_counter(counter))
			continue;
		written_tags++;
		if (n_commit_tags < CACHE_MAX_COMMIT_TAGS)
		{
			commit_tags[n_commit_tags].relid = lfirst_oid(lc);
			commit_tags[n_commit_tags].column_hash = column_hash;
			commit_tags[n_commit_tags].value_hash = valuehash;
			n_commit_tags++;
		}
		else
			commit_tags_full = true;
	}

	if (written_tags > cache_max_tags_per_transaction)
	{
		/* bounded memory and commit work: everything captured goes whole */
		tags_overflowed = true;
		foreach(lc, captured)
			CacheNoteRelationWrite(((CapturedRelation *) lfirst(lc))->relid);
	}
}

/*
 * Does the transaction need the values of the rows a statement writes of
 * relid? *whole: no, it writes the relation whole (and so its ancestors:
 * CacheNoteRelationWrite), whatever the rows; otherwise, true when a
 * statement announced it captured (CacheNoteRowWrite).
 */
bool
CacheCapturesRowsOf(Oid relid, bool *whole)
{
	*whole = list_member_oid(whole_relids, relid);
	return *whole || find_captured(relid) != NULL;
}

/* A row of relid whose tracked values cannot be captured: the whole relation. */
void
CacheNoteUncapturedRow(Oid relid)
{
	CacheNoteRelationWrite(relid);
}

/*
 * A change that leaves every row as it was but lets the planner choose
 * another plan (statistics, an index): without ORDER BY, the plan decides
 * the order of the rows, so results over the relation and its ancestors
 * are dropped at commit, whatever values they depend on. Not a write:
 * neither an own write for the transaction's later reads nor a write
 * counted in sfcache.table_activity.
 */
void
CacheNotePlanChange(Oid relid)
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

/* A write whose results are not known: at commit, every result is stale. */
void
CacheNoteGlobalWrite(void)
{
	written_global = true;
}

/*
 * Bump now, outside any transaction protocol, the relation and what a
 * write of it touches: for sfcache.invalidate().
 */
void
CacheInvalidateRelationNow(Oid relid)
{
	List	   *rels = relations_affected_by_write(relid);
	ListCell   *lc;

	foreach(lc, rels)
	{
		Oid			rel = lfirst_oid(lc);

		CacheInvalidateRelationsOf(MyDatabaseId, 1, &rel, InvalidXLogRecPtr);
	}
	list_free(rels);
}

/* ---- what the commit protocol reads (cache_inval_commit.c) ---- */

/* The counters the transaction's commit bumps. */
const CacheCounterSet *
CacheWrittenCounters(void)
{
	return &written_counters;
}

/* Does its commit bump the global generation too? */
bool
CacheWroteGlobal(void)
{
	return written_global;
}

/* Every relation it wrote, whole or by rows (not those whose plans changed). */
List *
CacheWrittenRelations(void)
{
	return written_relids;
}

/* The relations whose plans it changed, written or not. */
List *
CachePlanChangedRelations(void)
{
	return plan_changed_relids;
}

/* Those of CacheWrittenRelations() written whole (rows not all captured). */
List *
CacheWholeRelations(void)
{
	return whole_relids;
}

/*
 * The tags its commit bumps (a counter once), or NULL with *ntags = -1 when
 * they did not all fit: then its relations written by rows count whole.
 */
const CacheTag *
CacheWrittenTags(int *ntags)
{
	*ntags = commit_tags_full ? -1 : n_commit_tags;
	return commit_tags_full ? NULL : commit_tags;
}

/* Forget what the transaction wrote (not inlined: see CacheForgetWrites). */
static pg_noinline void
forget_writes(void)
{
	ListCell   *lc;

	list_free(plan_changed_relids);
	plan_changed_relids = NIL;
	list_free(written_relids);
	written_relids = NIL;
	list_free(whole_relids);
	whole_relids = NIL;
	foreach(lc, captured)
		list_free(((CapturedRelation *) lfirst(lc))->with_ancestors);
	list_free_deep(captured);
	captured = NIL;
	CacheCounterSetReset(&written_counters);
	written_tags = 0;
	tags_overflowed = false;
	n_commit_tags = 0;
	commit_tags_full = false;
	written_global = false;
}

/*
 * At the end of the transaction: forget what it wrote. Most transactions
 * wrote nothing tracked, and return here without saving a register.
 */
void
CacheForgetWrites(void)
{
	if (written_relids != NIL || whole_relids != NIL || captured != NIL ||
		plan_changed_relids != NIL || CacheCounterSetCount(&written_counters) > 0 ||
		written_counters.table != NULL || written_tags > 0 || tags_overflowed ||
		n_commit_tags > 0 || commit_tags_full || written_global)
		forget_writes();
}
