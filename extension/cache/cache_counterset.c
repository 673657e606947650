/*-------------------------------------------------------------------------
 *
 * cache_counterset.c
 *		A set of counter numbers (cache_inval_writeset.c's relation and tag
 *		counters a transaction bumps at commit), in PostgreSQL's simplehash:
 *		adding, testing and walking cost what the set holds, not the
 *		largest number in it (a Bitmapset over the 98304 counters would
 *		zero and walk kilobytes per transaction). Lives in
 *		TopMemoryContext from the first counter to the end of the
 *		transaction.
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

/* Add counter; true if it was not in the set. */
bool
CacheCounterSetAdd(CacheCounterSet *set, uint32 counter)
{
	bool		found;

	if (set->table == NULL)
		set->table = counterset_create(TopMemoryContext, 64, NULL);
	counterset_insert(set->table, counter, &found);
	return !found;
}

/* How many counters the set holds. */
int
CacheCounterSetCount(const CacheCounterSet *set)
{
	return set->table ? (int) set->table->members : 0;
}

/* The next counter after position *pos (start at -1), or false at the end. */
bool
CacheCounterSetNext(const CacheCounterSet *set, int *pos, uint32 *counter)
{
	if (set->table == NULL)
		return false;
	while ((uint64) ++(*pos) < set->table->size)
	{
		const CounterEntry *entry = &set->table->data[*pos];

		if (entry->status == counterset_SH_IN_USE)
		{
			*counter = entry->counter;
			return true;
		}
	}
	return false;
}

void
CacheCounterSetReset(CacheCounterSet *set)
{
	if (set->table)
		counterset_destroy(set->table);
	set->table = NULL;
}
