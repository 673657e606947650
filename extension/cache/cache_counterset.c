/*-------------------------------------------------------------------------
 *
 * cache_counterset.c
 *		A set of counter numbers (cache_inval.c's relation and tag
 *		counters a transaction bumps at commit): open addressing in one
 *		array, so adding, testing and walking cost what the set holds, not
 *		the largest number in it (a Bitmapset over the 98304 counters
 *		would zero and walk kilobytes per transaction).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "utils/memutils.h"

#include "cache/cache.h"

#define EMPTY_SLOT PG_UINT32_MAX

static void
grow(CounterSet *set)
{
	uint32	   *old = set->slots;
	int			oldcap = set->capacity;

	set->capacity = oldcap == 0 ? 64 : oldcap * 2;
	set->slots = MemoryContextAlloc(TopMemoryContext, set->capacity * sizeof(uint32));
	memset(set->slots, 0xff, set->capacity * sizeof(uint32));
	set->count = 0;
	for (int i = 0; i < oldcap; i++)
		if (old[i] != EMPTY_SLOT)
			CounterSetAdd(set, old[i]);
	if (old)
		pfree(old);
}

/* Add counter; true if it was not in the set. */
bool
CounterSetAdd(CounterSet *set, uint32 counter)
{
	uint32		mask;
	uint32		i;

	Assert(counter != EMPTY_SLOT);
	if (set->count * 2 >= set->capacity)
		grow(set);
	mask = set->capacity - 1;
	for (i = murmurhash32(counter) & mask; set->slots[i] != EMPTY_SLOT; i = (i + 1) & mask)
		if (set->slots[i] == counter)
			return false;
	set->slots[i] = counter;
	set->count++;
	return true;
}

/* The next counter after position *pos, or false at the end. */
bool
CounterSetNext(const CounterSet *set, int *pos, uint32 *counter)
{
	while (++(*pos) < set->capacity)
	{
		if (set->slots[*pos] != EMPTY_SLOT)
		{
			*counter = set->slots[*pos];
			return true;
		}
	}
	return false;
}

void
CounterSetReset(CounterSet *set)
{
	if (set->slots)
		pfree(set->slots);
	set->slots = NULL;
	set->capacity = 0;
	set->count = 0;
}
