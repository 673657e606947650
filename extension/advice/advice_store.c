/*-------------------------------------------------------------------------
 *
 * advice_store.c
 *		Owns the shared-memory record of the index advice: three fixed-size
 *		hash tables, sized from sfcache.advice_max at server start.
 *
 *	quals		per (database, role, relation, column or expression,
 *				operator, role of the qual): calls, rows scanned, removed
 *				and returned, time, up to ADVICE_QUERYIDS query ids, and
 *				whether the constant compared to ever changed (only its hash
 *				is kept; the constant itself is not).
 *	statements	per (database, role, query id): calls, and the text of one
 *				sampled execution with its search_path, so that the advice
 *				can re-plan it with and without hypothetical indexes.  Only
 *				SELECTs without external parameters are kept, at most
 *				ADVICE_TEXT_LEN bytes; the text is never shown by a view.
 *	tables		per (database, relation): writes seen and since when.
 *
 * Sizes: sfcache.advice_max quals, a quarter as many statements and tables.
 * When a table is full the least useful tenth of its entries is evicted
 * (fewest rows scanned, fewest calls, fewest writes): recording never fails.
 * The entries of a database go with it: at the commit of DROP DATABASE
 * (AdviceStoreForgetDatabase), and at the next start if the drop was
 * replayed on a standby (advice_persist.c).
 *
 * Note about locking issues: lock 0 of the "sfcache_advice" tranche
 * protects the quals and statements tables, lock 1 the tables table.
 * Lookups and updates take the lock exclusively (only sampled statements
 * and writes come here); copying out for the views takes it shared.
 * Evicting is done under the exclusive lock by the backend that needs room.
 * AdviceStoreForEach and AdviceStoreRestore take no lock: advice_persist.c
 * calls them in the postmaster, before any backend starts and after every
 * one has exited.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_authid.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/acl.h"
#include "utils/hsearch.h"
#include "utils/timestamp.h"

#include "advice/advice_internal.h"

#define ADVICE_TRANCHE		"sfcache_advice"
#define ADVICE_EVICT_SHARE	0.10

typedef struct AdviceQualEntry
{
	AdviceQualKey key;			/* hash key: must be first */
	AdviceQualStats stats;
	uint32		const_hash;		/* first constant seen */
	bool		const_seen;
} AdviceQualEntry;

typedef struct AdviceStmtKey
{
	Oid			dbid;
	Oid			userid;
	uint64		queryid;
} AdviceStmtKey;

typedef struct AdviceStmtEntry
{
	AdviceStmtKey key;			/* hash key: must be first */
	int64		calls;
	char		search_path[ADVICE_PATH_LEN];
	char		query[ADVICE_TEXT_LEN];
} AdviceStmtEntry;

typedef struct AdviceTableKey
{
	Oid			dbid;
	Oid			relid;
} AdviceTableKey;

typedef struct AdviceTableEntry
{
	AdviceTableKey key;			/* hash key: must be first */
	AdviceTableStats stats;
} AdviceTableEntry;

/* Every entry starts with its database (AdviceStoreEntryDatabase). */
StaticAssertDecl(offsetof(AdviceQualEntry, key.dbid) == 0 &&
				 offsetof(AdviceStmtEntry, key.dbid) == 0 &&
				 offsetof(AdviceTableEntry, key.dbid) == 0,
				 "advice entries start with their database");

static LWLock *advice_lock = NULL;	/* quals and statements */
static LWLock *advice_table_lock = NULL;	/* tables */
static HTAB *advice_quals = NULL;
static HTAB *advice_stmts = NULL;
static HTAB *advice_tables = NULL;

static long
advice_small_max(void)
{
	return Max(advice_max / 4, 16);
}

/* Pure: the three hash tables. */
static Size
advice_shmem_size(void)
{
	Size		size = 0;

	size = add_size(size, hash_estimate_size(advice_max, sizeof(AdviceQualEntry)));
	size = add_size(size, hash_estimate_size(advice_small_max(), sizeof(AdviceStmtEntry)));
	size = add_size(size, hash_estimate_size(advice_small_max(), sizeof(AdviceTableEntry)));
	return size;
}


static HTAB *
advice_hash(const char *name, long max, Size keysize, Size entrysize)
{
	HASHCTL		info;

	info.keysize = keysize;
	info.entrysize = entrysize;
	return ShmemInitHash(name, max, &info, HASH_ELEM | HASH_BLOBS);
}

/* From shmem_startup_hook, caller must hold AddinShmemInitLock. */
static void
advice_shmem_init(void)
{
	LWLockPadded *locks = GetNamedLWLockTranche(ADVICE_TRANCHE);

	advice_lock = &locks[0].lock;
	advice_table_lock = &locks[1].lock;
	advice_quals = advice_hash("sfcache advice quals", advice_max,
							   sizeof(AdviceQualKey), sizeof(AdviceQualEntry));
	advice_stmts = advice_hash("sfcache advice statements", advice_small_max(),
							   sizeof(AdviceStmtKey), sizeof(AdviceStmtEntry));
	advice_tables = advice_hash("sfcache advice tables", advice_small_max(),
								sizeof(AdviceTableKey), sizeof(AdviceTableEntry));
}

/* The advice's part of shared memory, with its two locks. */
const SfcShmemPart AdviceShmemPart = {
	ADVICE_TRANCHE, 2, advice_shmem_size, advice_shmem_init
};

typedef double (*AdviceUsefulness) (void *entry);

typedef struct AdviceVictim
{
	void	   *entry;
	double		usefulness;
} AdviceVictim;

static int
advice_victim_cmp(const void *a, const void *b)
{
	double		ua = ((const AdviceVictim *) a)->usefulness;
	double		ub = ((const AdviceVictim *) b)->usefulness;

	return ua < ub ? -1 : (ua > ub ? 1 : 0);
}

/*
 * Remove the least useful tenth of htab's entries.
 * Caller must hold the table's lock exclusively.
 */
static void
advice_evict(HTAB *htab, AdviceUsefulness usefulness)
{
	long		n = hash_get_num_entries(htab);
	AdviceVictim *victims = palloc(sizeof(AdviceVictim) * Max(n, 1));
	HASH_SEQ_STATUS seq;
	void	   *entry;
	long		i = 0;
	long		nvictims;

	hash_seq_init(&seq, htab);
	while ((entry = hash_seq_search(&seq)) != NULL && i < n)
	{
		victims[i].entry = entry;
		victims[i++].usefulness = usefulness(entry);
	}
	if (entry != NULL)
		hash_seq_term(&seq);
	qsort(victims, i, sizeof(AdviceVictim), advice_victim_cmp);
	nvictims = Max(1, (long) (i * ADVICE_EVICT_SHARE));
	for (n = 0; n < nvictims && n < i; n++)
		hash_search(htab, victims[n].entry, HASH_REMOVE, NULL);
	pfree(victims);
}

static double
advice_qual_usefulness(void *entry)
{
	AdviceQualStats *s = &((AdviceQualEntry *) entry)->stats;

	return (double) s->rows_scanned + s->calls;
}

static double
advice_stmt_usefulness(void *entry)
{
	return (double) ((AdviceStmtEntry *) entry)->calls;
}

static double
advice_table_usefulness(void *entry)
{
	return (double) ((AdviceTableEntry *) entry)->stats.writes;
}

/*
 * Find or create the entry for key, evicting if the table is full.
 * Caller must hold the table's lock exclusively.
 */
static void *
advice_enter(HTAB *htab, long max, const void *key, AdviceUsefulness usefulness,
			 bool *found)
{
	void	   *entry = hash_search(htab, key, HASH_FIND, found);

	if (entry != NULL)
		return entry;
	if (hash_get_num_entries(htab) >= max)
		advice_evict(htab, usefulness);
	return hash_search(htab, key, HASH_ENTER_NULL, found);
}

/* Add one observation to its entry.  Caller must hold advice_lock. */
static void
advice_add_observation(AdviceQualEntry *e, bool found,
					   const AdviceObservation *o, uint64 queryid)
{
	AdviceQualStats *s = &e->stats;
	int			i;

	if (!found)
	{
		memset(s, 0, sizeof(AdviceQualStats));
		s->key = o->key;
		s->kind = o->kind;
		strlcpy(s->expr, o->expr, ADVICE_EXPR_LEN);
		e->const_seen = false;
	}
	s->calls++;
	s->rows_scanned += o->rows_scanned;
	s->rows_removed += o->rows_removed;
	s->rows_returned += o->rows_returned;
	s->time_ms += o->time_ms;
	if (!o->is_const)
		s->const_varies = true;
	else if (!e->const_seen)
	{
		e->const_seen = true;
		e->const_hash = o->const_hash;
	}
	else if (e->const_hash != o->const_hash)
		s->const_varies = true;
	for (i = 0; i < s->nqueryids && s->queryids[i] != queryid; i++)
		;
	if (i == s->nqueryids && i < ADVICE_QUERYIDS && queryid != 0)
		s->queryids[s->nqueryids++] = queryid;
}

/* Record what one sampled statement execution observed. */
void
AdviceStoreObservations(AdviceObservation *obs, int n, uint64 queryid)
{
	int			i;

	if (advice_quals == NULL || n == 0)
		return;
	LWLockAcquire(advice_lock, LW_EXCLUSIVE);
	for (i = 0; i < n; i++)
	{
		bool		found;
		AdviceQualEntry *e = advice_enter(advice_quals, advice_max, &obs[i].key,
										  advice_qual_usefulness, &found);

		if (e != NULL)
			advice_add_observation(e, found, &obs[i], queryid);
	}
	LWLockRelease(advice_lock);
}

/* Count one execution of a statement; keep its first sampled text. */
void
AdviceStoreStatement(Oid userid, uint64 queryid, const char *search_path,
					 const char *text, int len)
{
	AdviceStmtKey key;
	AdviceStmtEntry *e;
	bool		found;

	if (advice_stmts == NULL || queryid == 0 || len >= ADVICE_TEXT_LEN)
		return;
	memset(&key, 0, sizeof(key));
	key.dbid = MyDatabaseId;
	key.userid = userid;
	key.queryid = queryid;
	LWLockAcquire(advice_lock, LW_EXCLUSIVE);
	e = advice_enter(advice_stmts, advice_small_max(), &key,
					 advice_stmt_usefulness, &found);
	if (e != NULL && !found)
	{
		e->calls = 0;
		strlcpy(e->search_path, search_path, ADVICE_PATH_LEN);
		memcpy(e->query, text, len);
		e->query[len] = '\0';
	}
	if (e != NULL)
		e->calls++;
	LWLockRelease(advice_lock);
}

/* The table entry of relid, created if need be. Caller holds advice_table_lock. */
static AdviceTableEntry *
advice_table_entry(Oid relid, TimestampTz now)
{
	AdviceTableKey key;
	AdviceTableEntry *e;
	bool		found;

	memset(&key, 0, sizeof(key));
	key.dbid = MyDatabaseId;
	key.relid = relid;
	e = advice_enter(advice_tables, advice_small_max(), &key,
					 advice_table_usefulness, &found);
	if (e != NULL && !found)
	{
		memset(&e->stats, 0, sizeof(AdviceTableStats));
		e->stats.relid = relid;
		e->stats.first_seen = now;
	}
	return e;
}

/* The time a table's activity is recorded at (sfcache.test_activity_age). */
static TimestampTz
activity_now(void)
{
	return GetCurrentTimestamp() - (TimestampTz) advice_test_activity_age_s * USECS_PER_SEC;
}

/*
 * Record a transaction's table activity, at its end, under one lock: its
 * writes (statements that wrote relids[i], INSERT, UPDATE, DELETE, MERGE,
 * COPY, TRUNCATE: writes[i] of them), and, when it committed, one
 * invalidation of each relation of invalidated (those whose cached results
 * its commit invalidated).
 */
void
AdviceStoreActivity(int n, const Oid *relids, const int *writes, List *invalidated)
{
	TimestampTz now;
	AdviceTableEntry *e;
	ListCell   *lc;

	if (advice_tables == NULL || (n == 0 && invalidated == NIL))
		return;
	now = activity_now();
	LWLockAcquire(advice_table_lock, LW_EXCLUSIVE);
	for (int i = 0; i < n; i++)
	{
		if ((e = advice_table_entry(relids[i], now)) == NULL)
			continue;
		e->stats.writes += writes[i];
		e->stats.last_write = now;
		/* a table written and invalidated: one visit */
		if (list_member_oid(invalidated, relids[i]))
		{
			e->stats.invalidations++;
			e->stats.last_invalidation = now;
		}
	}
	foreach(lc, invalidated)
	{
		Oid			relid = lfirst_oid(lc);
		bool		written = false;

		for (int i = 0; i < n && !written; i++)
			written = relids[i] == relid;
		if (!written && (e = advice_table_entry(relid, now)) != NULL)
		{
			e->stats.invalidations++;
			e->stats.last_invalidation = now;
		}
	}
	LWLockRelease(advice_table_lock);
}

/* Like may_see_role, with the catalog lookup done before any lock. */
static bool
advice_visible(Oid userid, bool see_all)
{
	return see_all || userid == GetUserId();
}

/* Copies of this database's quals the current user may see. */
List *
AdviceCopyQuals(void)
{
	HASH_SEQ_STATUS seq;
	AdviceQualEntry *e;
	List	   *result = NIL;

	bool		see_all = has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);

	if (advice_quals == NULL)
		return NIL;
	LWLockAcquire(advice_lock, LW_SHARED);
	hash_seq_init(&seq, advice_quals);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		if (e->key.dbid != MyDatabaseId || !advice_visible(e->key.userid, see_all))
			continue;
		result = lappend(result, memcpy(palloc(sizeof(AdviceQualStats)),
										&e->stats, sizeof(AdviceQualStats)));
	}
	LWLockRelease(advice_lock);
	return result;
}

/* Copies of this database's statements the current user may see. */
List *
AdviceCopyStatements(void)
{
	HASH_SEQ_STATUS seq;
	AdviceStmtEntry *e;
	List	   *result = NIL;

	bool		see_all = has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);

	if (advice_stmts == NULL)
		return NIL;
	LWLockAcquire(advice_lock, LW_SHARED);
	hash_seq_init(&seq, advice_stmts);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		AdviceStatement *s;

		if (e->key.dbid != MyDatabaseId || !advice_visible(e->key.userid, see_all))
			continue;
		s = palloc(sizeof(AdviceStatement));
		s->userid = e->key.userid;
		s->queryid = e->key.queryid;
		s->calls = e->calls;
		s->search_path = pstrdup(e->search_path);
		s->text = pstrdup(e->query);
		result = lappend(result, s);
	}
	LWLockRelease(advice_lock);
	return result;
}

/* Copies of this database's table write counters. */
List *
AdviceCopyTables(void)
{
	HASH_SEQ_STATUS seq;
	AdviceTableEntry *e;
	List	   *result = NIL;

	if (advice_tables == NULL)
		return NIL;
	LWLockAcquire(advice_table_lock, LW_SHARED);
	hash_seq_init(&seq, advice_tables);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		if (e->key.dbid == MyDatabaseId)
			result = lappend(result, memcpy(palloc(sizeof(AdviceTableStats)),
											&e->stats, sizeof(AdviceTableStats)));
	}
	LWLockRelease(advice_table_lock);
	return result;
}

static void
advice_clear(HTAB *htab)
{
	HASH_SEQ_STATUS seq;
	void	   *entry;

	hash_seq_init(&seq, htab);
	while ((entry = hash_seq_search(&seq)) != NULL)
		hash_search(htab, entry, HASH_REMOVE, NULL);
}

/* Remove htab's entries of database dbid (keys start with their dbid). */
static void
advice_clear_database(HTAB *htab, Oid dbid)
{
	HASH_SEQ_STATUS seq;
	void	   *entry;

	hash_seq_init(&seq, htab);
	while ((entry = hash_seq_search(&seq)) != NULL)
	{
		if (*(Oid *) entry == dbid)
			hash_search(htab, entry, HASH_REMOVE, NULL);
	}
}

/*
 * Forget what was recorded in database dbid, which DROP DATABASE has just
 * removed (core_hooks.c calls this at its commit).
 */
void
AdviceStoreForgetDatabase(Oid dbid)
{
	if (advice_quals == NULL)
		return;
	LWLockAcquire(advice_lock, LW_EXCLUSIVE);
	advice_clear_database(advice_quals, dbid);
	advice_clear_database(advice_stmts, dbid);
	LWLockRelease(advice_lock);
	LWLockAcquire(advice_table_lock, LW_EXCLUSIVE);
	advice_clear_database(advice_tables, dbid);
	LWLockRelease(advice_table_lock);
}

/* Forget everything recorded, in every database. */
void
AdviceReset(void)
{
	if (advice_quals == NULL)
		return;
	LWLockAcquire(advice_lock, LW_EXCLUSIVE);
	advice_clear(advice_quals);
	advice_clear(advice_stmts);
	LWLockRelease(advice_lock);
	LWLockAcquire(advice_table_lock, LW_EXCLUSIVE);
	advice_clear(advice_tables);
	LWLockRelease(advice_table_lock);
}

/* ---- saving and restoring the record (advice_persist.c) ---- */

static HTAB *
advice_table_of(AdviceRecordKind kind, long *max)
{
	*max = kind == ADVICE_RECORD_QUALS ? advice_max : advice_small_max();
	switch (kind)
	{
		case ADVICE_RECORD_QUALS:
			return advice_quals;
		case ADVICE_RECORD_STATEMENTS:
			return advice_stmts;
		case ADVICE_RECORD_TABLES:
			return advice_tables;
	}
	return NULL;
}

/* The size of one entry of a kind, as it is saved. */
Size
AdviceStoreEntrySize(AdviceRecordKind kind)
{
	switch (kind)
	{
		case ADVICE_RECORD_QUALS:
			return sizeof(AdviceQualEntry);
		case ADVICE_RECORD_STATEMENTS:
			return sizeof(AdviceStmtEntry);
		case ADVICE_RECORD_TABLES:
			return sizeof(AdviceTableEntry);
	}
	return 0;
}

/*
 * The database of a saved entry (AdviceStoreEntrySize(kind) bytes, maybe
 * unaligned): every kind's key starts with its dbid.
 */
Oid
AdviceStoreEntryDatabase(const void *saved)
{
	Oid			dbid;

	memcpy(&dbid, saved, sizeof(Oid));
	return dbid;
}

/*
 * Call fn on every entry of every kind until it returns false; false then.
 * No lock: only while no other process uses the record (postmaster exit).
 */
bool
AdviceStoreForEach(AdviceEntryFn fn, void *arg)
{
	for (int kind = 0; kind < ADVICE_RECORD_KINDS; kind++)
	{
		long		max;
		HTAB	   *htab = advice_table_of(kind, &max);
		HASH_SEQ_STATUS seq;
		void	   *entry;

		if (htab == NULL)
			return true;
		hash_seq_init(&seq, htab);
		while ((entry = hash_seq_search(&seq)) != NULL)
		{
			if (!fn(kind, entry, arg))
			{
				hash_seq_term(&seq);
				return false;
			}
		}
	}
	return true;
}

/*
 * Put back one saved entry (AdviceStoreEntrySize(kind) bytes, key first).
 * False when its table is full (sfcache.advice_max was lowered): the rest
 * is dropped. No lock: only before any backend starts.
 */
bool
AdviceStoreRestore(AdviceRecordKind kind, const void *saved)
{
	long		max;
	HTAB	   *htab = advice_table_of(kind, &max);
	bool		found;
	void	   *entry;

	if (htab == NULL || hash_get_num_entries(htab) >= max)
		return false;
	entry = hash_search(htab, saved, HASH_ENTER_NULL, &found);
	if (entry == NULL)
		return false;
	memcpy(entry, saved, AdviceStoreEntrySize(kind));
	return true;
}
