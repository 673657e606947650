/*-------------------------------------------------------------------------
 *
 * cache_store.h
 *		The shared store of cache entries, as seen by singleflight.c, the
 *		only file that changes entry states.
 *
 *-------------------------------------------------------------------------
 */
#ifndef SFCACHE_CACHE_STORE_H
#define SFCACHE_CACHE_STORE_H

#include "storage/condition_variable.h"
#include "storage/lwlock.h"
#include "utils/dsa.h"

#include "sfcache.h"

typedef enum EntryState
{
	ENTRY_FREE,					/* on the free list */
	ENTRY_COMPUTING,			/* a leader is computing the result */
	ENTRY_READY					/* the result can be served */
} EntryState;

/* How a computing entry ended, for the followers that waited on it. */
typedef enum EntryEnding
{
	ENDING_RETRY,				/* leader failed: one follower takes over */
	ENDING_RUN_ALONE			/* result not storable: followers run alone */
} EntryEnding;

/*
 * One cache entry. The fields are protected by the partition lock of the
 * entry's key (StorePartitionLock(hashcode)); the condition variable is the
 * entry slot's and outlives any one key, so a follower may sleep on it
 * without holding a lock.
 */
typedef struct CacheEntry
{
	CacheKey	key;
	uint32		hashcode;
	EntryState	state;
	bool		transient;		/* coalesce mode: free once waiters have read */
	int			leader_pid;
	int			waiters;		/* followers waiting on this entry */
	uint64		shape;			/* query id, for per-statement counters */
	dsa_pointer data;			/* ResultHeader followed by tuples */
	Size		size;
	TimestampTz expires_at;
	pg_atomic_uint32 referenced;	/* CLOCK bit */
	/* how the last computing entry for last_key ended */
	CacheKey	last_key;
	EntryEnding last_ending;
	SfcBypass	last_reason;
	int32		next_free;
	ConditionVariable cv;
} CacheEntry;

extern uint32 StoreHashKey(CacheKey key);
extern LWLock *StorePartitionLock(uint32 hashcode);
extern CacheEntry *StoreLookup(CacheKey key, uint32 hashcode);
extern CacheEntry *StoreAllocate(void);
extern void StoreReleaseUnused(CacheEntry *entry);
extern bool StoreInsert(CacheEntry *entry, CacheKey key, uint32 hashcode);
extern void StoreRemove(CacheEntry *entry);
extern dsa_pointer StoreWriteResult(const GenSnapshot *gens,
								   const CachedResult *result, Size *size);
extern void StoreFreeResult(dsa_pointer dp);
extern void StoreAttachResult(CacheEntry *entry, dsa_pointer dp, Size size);
extern bool StoreEntryIsCurrent(CacheEntry *entry, TimestampTz now,
								SfcCounter *why_not);
extern void StoreCopyResult(CacheEntry *entry, CachedResult *out);
extern void StoreFlush(void);
extern void StoreUsage(uint64 *bytes, uint64 *entries);

#endif							/* SFCACHE_CACHE_STORE_H */
