/*-------------------------------------------------------------------------
 *
 * cache_store.c
 *		The shared store of cached results: a fixed array of entry slots, a
 *		partitioned shared hash table from key to slot, a DSA area created
 *		in place for the result bytes, and CLOCK eviction; the LOG line at
 *		server start that says how large it is, and the rate-limited
 *		WARNING that it is too small.
 *
 * The store holds slots and results; it never changes an entry's state,
 * leader or waiters, which are singleflight's (cache_singleflight.c): a
 * leader claims the slot the store hands out and inserts under a key, and
 * singleflight frees the slot (CacheStoreRemove) at the end of its state
 * machine. When the store itself wants a slot back (eviction, flush), it
 * asks the owner singleflight registered (CacheStoreSetOwner) whether the
 * entry may go and to let it go, so the dependency runs one way.
 *
 * Too small: a result evicted while still valid less than
 * CACHE_EARLY_EVICTION_MS after it was stored was probably going to be read
 * again. Such evictions are counted, and the backend that evicts one
 * emits a WARNING (with the count since the last one) at most once per
 * CACHE_EVICTION_WARNING_MS in the whole cluster: a compare-and-swap on the
 * time of the last warning elects the backend that warns. The WARNING is
 * emitted after every lock is released.
 *
 * Note about locking: the hash table is split into CACHE_PARTITIONS
 * partitions, each with its own LWLock; an entry's fields are protected by
 * the lock of its key's partition. Lookups take it shared, changes of
 * state (singleflight's, and insertion and removal here) exclusive. No
 * code path waits for a second partition lock while holding one: eviction
 * only ever tries them conditionally, and results are allocated before the
 * entry's lock is taken. The free list is
 * protected by a spinlock. Each entry's condition variable belongs to the
 * slot, not to a key, so followers may sleep on it without a lock and
 * re-check their key when woken.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "cache/cache_internal.h"

#define CACHE_PARTITIONS 32		/* a power of two */
#define CACHE_EVICT_ROUNDS 2	/* sweeps of the clock before giving up */
#define CACHE_EARLY_EVICTION_MS	60000	/* "soon after being stored" */
#define CACHE_EVICTION_WARNING_MS 60000 /* at most one WARNING a minute */

/* What an eviction made room for: a free entry, or bytes. */
typedef enum EvictFor
{
	EVICT_FOR_ENTRY,
	EVICT_FOR_MEMORY
} EvictFor;

/* The generations a result depends on, stored in front of its tuples. */
typedef struct ResultHeader
{
	int32		nslots;
	uint64		global_gen;
	Size		windows_len;	/* validity windows (cache_window_bounds.c) */
	Size		tuples_len;
	Size		datarows_len;	/* 0: no DataRow form */
	uint64		exec_us;		/* the leader's execution time */
	/* uint64 gens[nslots], uint32 slots[nslots], then MAXALIGNed windows */
	/* then MAXALIGNed tuples */
	/* then, MAXALIGNed, the rows as DataRows (CachedResult) */
} ResultHeader;

typedef struct KeyMapEntry
{
	CacheKey	key;
	int32		slot;
} KeyMapEntry;

typedef struct StoreShared
{
	LWLockPadded *locks;
	int			dsa_tranche;
	slock_t		freelist_mutex;
	int32		freelist_head;
	pg_atomic_uint32 clock_hand;
	pg_atomic_uint64 bytes_used;
	pg_atomic_uint64 entries_used;
	pg_atomic_uint64 early_evictions;	/* since the last WARNING */
	pg_atomic_uint64 last_warned;	/* TimestampTz of the last WARNING */
} StoreShared;

static StoreShared *store = NULL;
static const CacheEntryOwner *owner = NULL;
static CacheEntry *entries = NULL;
static HTAB *keymap = NULL;
static void *dsa_place = NULL;
static dsa_area *area = NULL;

static Size
dsa_place_size(void)
{
	return MAXALIGN(Max((Size) cache_memory_mb * 1024 * 1024, dsa_minimum_size()));
}

static uint32
keymap_hash(const void *key, Size keysize)
{
	return (uint32) ((const CacheKey *) key)->lo;
}

/* Pure: the space of the store, the entries and the results' DSA area. */
static Size
store_shmem_size(void)
{
	Size		size = MAXALIGN(sizeof(StoreShared));

	size = add_size(size, mul_size(cache_max_entries, sizeof(CacheEntry)));
	size = add_size(size, hash_estimate_size(cache_max_entries, sizeof(KeyMapEntry)));
	size = add_size(size, dsa_place_size());
	return size;
}

static void
init_entries(void)
{
	for (int i = 0; i < cache_max_entries; i++)
	{
		CacheEntry *e = &entries[i];

		memset(e, 0, sizeof(CacheEntry));	/* CACHE_ENTRY_FREE */
		e->data = InvalidDsaPointer;
		e->next_free = (i + 1 < cache_max_entries) ? i + 1 : -1;
		pg_atomic_init_u32(&e->referenced, 0);
		ConditionVariableInit(&e->cv);
	}
}

/* The postmaster's LOG line when it creates the store: size and mode. */
static void
log_size(void)
{
	ereport(LOG,
			(errmsg("sfcache result cache: %d MB for results, at most %d entries, sfcache.cache = %s",
					cache_memory_mb, cache_max_entries,
					GetConfigOption("sfcache.cache", false, false)),
			 errdetail("sfcache.memory and sfcache.max_entries are set at server start; sfcache.cache can be changed per database, role or session.")));
}

/* Caller must hold AddinShmemInitLock. */
static void
store_shmem_init(void)
{
	HASHCTL		info;
	bool		found;

	store = ShmemInitStruct("sfcache store", sizeof(StoreShared), &found);
	entries = ShmemInitStruct("sfcache entries",
							  mul_size(cache_max_entries, sizeof(CacheEntry)), &found);
	dsa_place = ShmemInitStruct("sfcache results", dsa_place_size(), &found);
	if (!found)
	{
		dsa_area   *dsa;

		store->locks = GetNamedLWLockTranche("sfcache");
		store->dsa_tranche = LWLockNewTrancheId("sfcache results");
		SpinLockInit(&store->freelist_mutex);
		store->freelist_head = 0;
		pg_atomic_init_u32(&store->clock_hand, 0);
		pg_atomic_init_u64(&store->bytes_used, 0);
		pg_atomic_init_u64(&store->entries_used, 0);
		pg_atomic_init_u64(&store->early_evictions, 0);
		pg_atomic_init_u64(&store->last_warned, 0);
		init_entries();

		/* The whole budget lives in place: no DSM segment is ever created. */
		dsa = dsa_create_in_place(dsa_place, dsa_place_size(), store->dsa_tranche, NULL);
		dsa_set_size_limit(dsa, dsa_place_size());
		dsa_pin(dsa);
		dsa_detach(dsa);
		if (!IsUnderPostmaster)
			log_size();
	}

	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(CacheKey);
	info.entrysize = sizeof(KeyMapEntry);
	info.hash = keymap_hash;
	info.num_partitions = CACHE_PARTITIONS;
	keymap = ShmemInitHash("sfcache keys", cache_max_entries, &info,
						   HASH_ELEM | HASH_FUNCTION | HASH_PARTITION | HASH_FIXED_SIZE);
}

/* The store's part of shared memory, with one lock per partition. */
const SfcShmemPart CacheStoreShmemPart = {
	"sfcache", CACHE_PARTITIONS, store_shmem_size, store_shmem_init
};

static dsa_area *
store_area(void)
{
	if (area == NULL)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(TopMemoryContext);

		SfcLWLockRegisterTranche(store->dsa_tranche, "sfcache results");
		area = dsa_attach_in_place(dsa_place, NULL);
		dsa_pin_mapping(area);
		on_shmem_exit(dsa_on_shmem_exit_release_in_place, PointerGetDatum(dsa_place));
		MemoryContextSwitchTo(oldcxt);
	}
	return area;
}

/* From singleflight's Init: who decides whether an entry may be evicted. */
void
CacheStoreSetOwner(const CacheEntryOwner *entry_owner)
{
	owner = entry_owner;
}

uint32
CacheStoreHashKey(CacheKey key)
{
	return keymap_hash(&key, sizeof(key));
}

LWLock *
CacheStorePartitionLock(uint32 hashcode)
{
	return &store->locks[hashcode % CACHE_PARTITIONS].lock;
}

/* Caller must hold the key's partition lock. */
CacheEntry *
CacheStoreLookup(CacheKey key, uint32 hashcode)
{
	KeyMapEntry *m = hash_search_with_hash_value(keymap, &key, hashcode,
												 HASH_FIND, NULL);

	return m ? &entries[m->slot] : NULL;
}

/* ---- free list and eviction ---- */

static CacheEntry *
freelist_pop(void)
{
	CacheEntry *e = NULL;

	SpinLockAcquire(&store->freelist_mutex);
	if (store->freelist_head >= 0)
	{
		e = &entries[store->freelist_head];
		store->freelist_head = e->next_free;
	}
	SpinLockRelease(&store->freelist_mutex);
	return e;
}

static void
freelist_push(CacheEntry *e)
{
	SpinLockAcquire(&store->freelist_mutex);
	e->next_free = store->freelist_head;
	store->freelist_head = e - entries;
	SpinLockRelease(&store->freelist_mutex);
}

/*
 * Unmap an entry's key, free its result and put the slot back on the free
 * list, where another backend may take it at once: singleflight has made it
 * CACHE_ENTRY_FREE and woken its waiters before. Caller must hold the entry's
 * partition lock exclusively.
 */
void
CacheStoreRemove(CacheEntry *entry)
{
	hash_search_with_hash_value(keymap, &entry->key, entry->hashcode,
								HASH_REMOVE, NULL);
	if (DsaPointerIsValid(entry->data))
	{
		dsa_free(store_area(), entry->data);
		pg_atomic_fetch_sub_u64(&store->bytes_used, entry->size);
	}
	entry->data = InvalidDsaPointer;
	entry->size = 0;
	pg_atomic_fetch_sub_u64(&store->entries_used, 1);
	freelist_push(entry);
}

/*
 * At most once a minute in the cluster, WARN that valid results are evicted
 * soon after they were stored. No lock may be held.
 */
static void
warn_early_evictions(TimestampTz now, EvictFor why)
{
	uint64		last = pg_atomic_read_u64(&store->last_warned);
	uint64		n;

	if (last != 0 && !TimestampDifferenceExceeds((TimestampTz) last, now,
												 CACHE_EVICTION_WARNING_MS))
		return;
	if (!pg_atomic_compare_exchange_u64(&store->last_warned, &last, (uint64) now))
		return;					/* another backend warns */
	n = pg_atomic_exchange_u64(&store->early_evictions, 0);
	ereport(WARNING,
			(errmsg_plural("the sfcache result cache is too small: %llu valid result was evicted less than a minute after it was stored",
						   "the sfcache result cache is too small: %llu valid results were evicted less than a minute after they were stored",
						   n, (unsigned long long) n),
			 errdetail("The %s was full: sfcache.memory is %d MB, sfcache.max_entries is %d. This warning is given at most once a minute.",
					   why == EVICT_FOR_MEMORY ? "memory for results" : "table of entries",
					   cache_memory_mb, cache_max_entries),
			 why == EVICT_FOR_MEMORY ?
			 errhint("Raise sfcache.memory (server start); sfcache.stats shows bytes_used and evictions.") :
			 errhint("Raise sfcache.max_entries, and sfcache.memory if bytes_used in sfcache.stats is near it (server start).")));
}

/*
 * Evict e (an entry the owner lets go, whose partition lock is held
 * exclusively, which this releases); counts the eviction. Returns whether
 * it was early: still
 * valid and stored less than CACHE_EARLY_EVICTION_MS ago.
 */
static bool
evict_entry(CacheEntry *e, LWLock *lock, bool valid, TimestampTz now)
{
	uint64		queryid = e->queryid;
	bool		early;

	early = valid &&
		!TimestampDifferenceExceeds(e->stored_at, now, CACHE_EARLY_EVICTION_MS);

	owner->evict(e);
	LWLockRelease(lock);
	CacheStatsCount(CACHE_STAT_EVICTIONS, queryid);
	return early;
}

/*
 * Evict one entry, to make room for why; never waits for a lock. Returns
 * false if none could go.
 */
static bool
evict_one(EvictFor why)
{
	TimestampTz now = GetCurrentTimestamp();

	for (int step = 0; step < CACHE_EVICT_ROUNDS * cache_max_entries; step++)
	{
		uint32		i = pg_atomic_fetch_add_u32(&store->clock_hand, 1) % cache_max_entries;
		CacheEntry *e = &entries[i];
		uint32		hashcode = e->hashcode;
		LWLock	   *lock = CacheStorePartitionLock(hashcode);
		CacheStat	stale;
		bool		valid;

		/* only an entry with a result can go (a hint: checked under the lock) */
		if (!DsaPointerIsValid(e->data))
			continue;
		if (!LWLockConditionalAcquire(lock, LW_EXCLUSIVE))
			continue;
		/* the slot may have changed hands before we got the lock */
		if (e->hashcode % CACHE_PARTITIONS == hashcode % CACHE_PARTITIONS &&
			owner->evictable(e))
		{
			valid = CacheStoreEntryIsCurrent(e, now, &stale);
			/* stale: at once; else on the clock's second pass */
			if (!valid || pg_atomic_exchange_u32(&e->referenced, 0) == 0)
			{
				if (evict_entry(e, lock, valid, now))
				{
					pg_atomic_fetch_add_u64(&store->early_evictions, 1);
					warn_early_evictions(now, why);
				}
				return true;
			}
		}
		LWLockRelease(lock);
	}
	return false;
}

/* A free entry, evicting one if needed; NULL if none can be had. */
CacheEntry *
CacheStoreAllocate(void)
{
	CacheEntry *e;

	while ((e = freelist_pop()) == NULL)
		if (!evict_one(EVICT_FOR_ENTRY))
			return NULL;
	return e;
}

void
CacheStoreReleaseUnused(CacheEntry *entry)
{
	freelist_push(entry);
}

/*
 * Map key to entry, a slot from CacheStoreAllocate, with no result yet;
 * false if the hash table is full. The caller (singleflight) then makes it
 * computing. Caller must hold the key's partition lock exclusively.
 */
bool
CacheStoreInsert(CacheEntry *entry, CacheKey key, uint32 hashcode)
{
	KeyMapEntry *m;
	bool		found;

	m = hash_search_with_hash_value(keymap, &key, hashcode, HASH_ENTER_NULL, &found);
	if (m == NULL)
		return false;
	Assert(!found);
	m->slot = entry - entries;
	entry->key = key;
	entry->hashcode = hashcode;
	entry->dbid = MyDatabaseId;
	entry->data = InvalidDsaPointer;
	entry->size = 0;
	pg_atomic_write_u32(&entry->referenced, 1);
	pg_atomic_fetch_add_u64(&store->entries_used, 1);
	return true;
}

/* ---- results ---- */

static uint64 *
header_gens(ResultHeader *h)
{
	return (uint64 *) ((char *) h + MAXALIGN(sizeof(ResultHeader)));
}

static uint32 *
header_slots(ResultHeader *h)
{
	return (uint32 *) (header_gens(h) + h->nslots);
}

static char *
header_windows(ResultHeader *h)
{
	return (char *) h + MAXALIGN(MAXALIGN(sizeof(ResultHeader)) +
								 h->nslots * (sizeof(uint64) + sizeof(uint32)));
}

static char *
header_tuples(ResultHeader *h)
{
	return header_windows(h) + MAXALIGN(h->windows_len);
}

/*
 * Copy a result and the generations it depends on into shared memory,
 * evicting other entries to make room. No lock may be held: eviction takes
 * partition locks. Returns InvalidDsaPointer when there is no room.
 */
dsa_pointer
CacheStoreWriteResult(const CacheGenSnapshot *gens, const StringInfoData *windows,
					  const CachedResult *result, Size *size)
{
	dsa_area   *a = store_area();
	dsa_pointer dp;
	ResultHeader *h;
	Size		windows_len = windows ? windows->len : 0;

	*size = MAXALIGN(MAXALIGN(sizeof(ResultHeader)) +
					 gens->nslots * (sizeof(uint64) + sizeof(uint32))) +
		MAXALIGN(windows_len) + MAXALIGN(result->len) + result->datarows_len;
	while ((dp = dsa_allocate_extended(a, *size, DSA_ALLOC_NO_OOM)) == InvalidDsaPointer)
		if (!evict_one(EVICT_FOR_MEMORY))
			return InvalidDsaPointer;

	h = dsa_get_address(a, dp);
	h->nslots = gens->nslots;
	h->global_gen = gens->global_gen;
	h->windows_len = windows_len;
	h->tuples_len = result->len;
	h->datarows_len = result->datarows_len;
	h->exec_us = result->exec_us;
	memcpy(header_gens(h), gens->gens, gens->nslots * sizeof(uint64));
	memcpy(header_slots(h), gens->slots, gens->nslots * sizeof(uint32));
	if (windows_len > 0)
		memcpy(header_windows(h), windows->data, windows_len);
	memcpy(header_tuples(h), result->data, result->len);
	if (result->datarows_len > 0)
		memcpy(header_tuples(h) + MAXALIGN(result->len), result->datarows,
			   result->datarows_len);
	return dp;
}

void
CacheStoreFreeResult(dsa_pointer dp)
{
	dsa_free(store_area(), dp);
}

/* Caller must hold the entry's partition lock exclusively. */
void
CacheStoreAttachResult(CacheEntry *entry, dsa_pointer dp, Size size)
{
	entry->data = dp;
	entry->size = size;
	entry->stored_at = GetCurrentTimestamp();
	pg_atomic_fetch_add_u64(&store->bytes_used, size);
}

/*
 * May a ready entry be served? Not once its TTL has passed, nor once a
 * relation it read has changed. Caller must hold the entry's partition lock.
 */
bool
CacheStoreEntryIsCurrent(CacheEntry *entry, TimestampTz now, CacheStat *why_not)
{
	ResultHeader *h;

	Assert(DsaPointerIsValid(entry->data));
	if (now >= entry->expires_at)
	{
		*why_not = CACHE_STAT_EXPIRATIONS;
		return false;
	}
	h = dsa_get_address(store_area(), entry->data);
	if (!CacheGensAreCurrent(h->global_gen, h->nslots, header_slots(h), header_gens(h)))
	{
		*why_not = CACHE_STAT_INVALIDATIONS;
		return false;
	}
	return true;
}

/* A ready entry's validity windows, in place. Caller holds its lock. */
const char *
CacheStoreEntryWindows(CacheEntry *entry, Size *len)
{
	ResultHeader *h = dsa_get_address(store_area(), entry->data);

	*len = h->windows_len;
	return header_windows(h);
}

/*
 * Copy a ready entry's rows into local memory: its DataRows when the
 * caller wants them and the entry has them, and its tuples unless the
 * DataRows were copied and the caller does not want both. Caller holds
 * its lock.
 */
void
CacheStoreCopyResult(CacheEntry *entry, CachedResult *out)
{
	ResultHeader *h = dsa_get_address(store_area(), entry->data);

	out->data = out->datarows = NULL;
	out->len = out->datarows_len = 0;
	out->exec_us = h->exec_us;
	if (out->want_datarows && h->datarows_len > 0)
	{
		out->datarows_len = h->datarows_len;
		out->datarows = palloc(out->datarows_len);
		memcpy(out->datarows, header_tuples(h) + MAXALIGN(h->tuples_len),
			   out->datarows_len);
		if (!out->want_both)
			return;
	}
	out->len = h->tuples_len;
	out->data = palloc(Max(out->len, 1));
	memcpy(out->data, header_tuples(h), out->len);
}

/*
 * Remove the entries the owner lets go (ready ones nobody waits on;
 * computing ones finish and are then stale) of database dbid (InvalidOid:
 * of every one).
 */
static void
remove_ready_entries(Oid dbid)
{
	for (int i = 0; i < cache_max_entries; i++)
	{
		CacheEntry *e = &entries[i];
		uint32		hashcode = e->hashcode;
		LWLock	   *lock;

		if (!DsaPointerIsValid(e->data) || (OidIsValid(dbid) && e->dbid != dbid))
			continue;
		lock = CacheStorePartitionLock(hashcode);
		LWLockAcquire(lock, LW_EXCLUSIVE);
		if (e->hashcode % CACHE_PARTITIONS == hashcode % CACHE_PARTITIONS &&
			owner->evictable(e) &&
			(!OidIsValid(dbid) || e->dbid == dbid))
			owner->evict(e);
		LWLockRelease(lock);
	}
}

/* sfcache.flush(): every result goes stale, and the ready ones are freed. */
void
CacheStoreFlush(void)
{
	CacheInvalidateAllNow(InvalidXLogRecPtr);
	remove_ready_entries(InvalidOid);
}

/*
 * The transaction callback (core_hooks.c), after CacheXactEvent: a
 * transaction that dropped an extension (sfcache or another: the name is
 * not known any more) frees its database's results at commit, and so does
 * the commit of a creation and the rollback of one (results a leader that
 * had not yet seen a DROP stored). Writes are noted in every database, so
 * what remains could never be stale, only waste memory. No generation
 * moves: other databases keep their results.
 */
void
CacheStoreXactEvent(XactEvent event)
{
	bool		created;

	if ((event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT) &&
		SfcExtensionChangedInXact(&created) &&
		(event == XACT_EVENT_COMMIT || created))
		remove_ready_entries(MyDatabaseId);
	/* DROP EXTENSION sfcache: its statements' texts go too */
	if (event == XACT_EVENT_COMMIT && SfcExtensionDroppedInXact())
		CacheStatsForgetDatabase(MyDatabaseId);
}

/*
 * The commit of DROP DATABASE (core_hooks.c): free that database's results
 * and its statements (sfcache.statements), which nothing could use
 * any more.
 */
void
CacheDatabaseDropped(Oid dbid)
{
	remove_ready_entries(dbid);
	CacheStatsForgetDatabase(dbid);
}

void
CacheStoreUsage(uint64 *bytes, uint64 *nentries)
{
	*bytes = pg_atomic_read_u64(&store->bytes_used);
	*nentries = pg_atomic_read_u64(&store->entries_used);
}
