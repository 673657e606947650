/*-------------------------------------------------------------------------
 *
 * cache_counterset.c
 *		A set of counter numbers (cache_inval_writeset.c's relation and tag
 *		counters a transaction bumps at commit): an array in the order
 *		added, walked at commit, and past a few members PostgreSQL's
 *		simplehash beside it for lookups. Adding, testing and walking cost
 *		what the set holds, not the largest number in it (a Bitmapset over
 *		the 98304 counters would zero and walk kilobytes per transaction).
 *		Lives in TopMemoryContext; the array is kept from one transaction
 *		to the next unless it grew large.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "utils/memutils.h"

#include "cache/cache_internal.h"

typedef struct CounterEntry
{
	uint32		counter;
	char		status;			/* simplehash's */
} CounterEntry;

#define SH_PREFIX counterset
#define SH_ELEMENT_TYPE CounterEntry
#define SH_KEY_TYPE uint32
#define SH_KEY counter
#define SH_HASH_KEY(tb, key) murmurhash32(key)
#define SH_EQUAL(tb, a, b) ((a) == (b))
#define SH_SCOPE static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/*
 * Up to this many members, a lookup compares them all: a transaction of a
 * few statements bumps a handful of counters, less than creating and
 * walking a hash table costs.
 */
#define SMALL_SET 16

/* Add counter; true if it was not in the set. */
bool
CacheCounterSetAdd(CacheCounterSet *set, uint32 counter)
{
	bool		found = false;

	/*
	 * Room first: an allocation that fails must not leave the counter in the
	 * table but not in the array the commit walks.
	 */
	if (set->nmembers == set->capacity)
	{
		set->capacity = Max(SMALL_SET, set->capacity * 2);
		set->members = set->members == NULL ?
			MemoryContextAlloc(TopMemoryContext, set->capacity * sizeof(uint32)) :
			repalloc(set->members, set->capacity * sizeof(uint32));
	}
	if (set->table != NULL)
		counterset_insert(set->table, counter, &found);
	else
	{
		for (int i = 0; i < set->nmembers && !found; i++)
			found = set->members[i] == counter;
	}
	if (found)
		return false;
	set->members[set->nmembers++] = counter;
	if (set->table == NULL && set->nmembers > SMALL_SET)
	{
		set->table = counterset_create(TopMemoryContext, 4 * SMALL_SET, NULL);
		for (int i = 0; i < set->nmembers; i++)
			counterset_insert(set->table, set->members[i], &found);
	}
	return true;
}

/* How many counters the set holds. */
int
CacheCounterSetCount(const CacheCounterSet *set)
{
	return set->nmembers;
}

/* The next counter after position *pos (start at -1), or false at the end. */
bool
CacheCounterSetNext(const CacheCounterSet *set, int *pos, uint32 *counter)
{
	if (++(*pos) >= set->nmembers)
		return false;
	*counter = set->members[*pos];
	return true;
}

/* Empty the set; its array stays for the next transaction unless large. */
void
CacheCounterSetReset(CacheCounterSet *set)
{
	if (set->table)
		counterset_destroy(set->table);
	set->table = NULL;
	if (set->capacity > 4 * SMALL_SET)
	{
		pfree(set->members);
		set->members = NULL;
		set->capacity = 0;
	}
	set->nmembers = 0;
}
