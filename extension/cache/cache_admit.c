/*-------------------------------------------------------------------------
 *
 * cache_admit.c
 *		Admission: whether a leader's result is kept. A result is stored
 *		only when its key is likely to be read again, which a count-min
 *		sketch of recent misses estimates (the "doorkeeper" of TinyLFU): a
 *		key missed for the first time in the sketch's memory is computed and
 *		handed to the followers that waited for it, but not kept; its second
 *		miss stores it. A workload whose every statement is new (pgbench -S
 *		over a large table, reports) thus stops paying for storing results
 *		nobody reads, while anything read twice is cached from its second
 *		read on: the morning rush, where each student's keys come back two
 *		to four times within minutes, is cached as before but for the first
 *		read of each key.
 *
 * The sketch lives in shared memory: SKETCH_DEPTH rows of 8-bit counters,
 * four to a pg_atomic_uint32, each row indexed by other bits of the 128-bit
 * key, incremented with compare-and-swap (saturating at COUNTER_MAX); the
 * estimate is the smallest of a key's counters, so collisions can only
 * overestimate (admit), never forget a key. Only misses touch it: the hit
 * path takes no lock and no atomic here.
 *
 * Aging: every sample_size recorded misses (8 per counter of a row, or
 * sfcache.admission_window) the backend whose miss completes the sample
 * halves every counter. A key's
 * count thus weighs recent misses, the sketch never saturates (which
 * would admit everything), and a key seen once more than a sample ago is
 * forgotten. Halving races with increments: an increment may be lost or
 * survive the halving, which only moves one estimate by one.
 *
 * No victim is compared with the candidate (TinyLFU's second half): a new
 * workload is never kept out by an old one's counts; its second miss
 * stores it and CLOCK eviction makes room.
 *
 * sfcache.admission = off stores every result (tests that need
 * deterministic stores set it; regress/sfcache.conf does for the suite).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "port/atomics.h"
#include "port/pg_bitutils.h"
#include "storage/shmem.h"

#include "cache/cache.h"

#define SKETCH_DEPTH 4
#define COUNTER_MAX 15			/* as TinyLFU's 4-bit counters */
#define ADMIT_AT 2				/* misses within the sketch's memory */
#define MIN_COUNTERS 4096		/* per row */
#define MAX_COUNTERS (1 << 22)

typedef struct AdmitShared
{
	uint32		counters;		/* per row, a power of two */
	uint32		sample_size;	/* recorded misses between two halvings */
	pg_atomic_uint32 recorded;	/* misses since the last halving */
	/* SKETCH_DEPTH * counters / 4 words follow */
	pg_atomic_uint32 words[FLEXIBLE_ARRAY_MEMBER];
} AdmitShared;

static AdmitShared *admit = NULL;

/* Pure: counters per row for this sfcache.max_entries. */
static uint32
counters_per_row(void)
{
	uint64		want = Max((uint64) sfc_max_entries * 4, MIN_COUNTERS);

	want = Min(want, MAX_COUNTERS);
	return (uint32) pg_nextpower2_64(want);
}

static Size
admit_shmem_size(void)
{
	return add_size(offsetof(AdmitShared, words),
					mul_size(SKETCH_DEPTH * (counters_per_row() / 4),
							 sizeof(pg_atomic_uint32)));
}

/* Caller must hold AddinShmemInitLock. */
static void
admit_shmem_init(void)
{
	bool		found;

	admit = ShmemInitStruct("sfcache admission", admit_shmem_size(), &found);
	if (!found)
	{
		admit->counters = counters_per_row();
		admit->sample_size = admit->counters * 8;
		pg_atomic_init_u32(&admit->recorded, 0);
		for (uint32 i = 0; i < SKETCH_DEPTH * (admit->counters / 4); i++)
			pg_atomic_init_u32(&admit->words[i], 0);
	}
}

const SfcShmemPart CacheAdmitShmemPart = {
	NULL, 0, admit_shmem_size, admit_shmem_init
};

/* Counter index of a key in one row: 32 independent bits of the key per row. */
static uint32
counter_index(CacheKey key, int row)
{
	uint64		bits = (row < 2) ? key.hi : key.lo;
	uint32		h = (uint32) (bits >> ((row % 2) * 32));

	return row * admit->counters + (h & (admit->counters - 1));
}

static uint32
counter_read(uint32 index)
{
	uint32		word = pg_atomic_read_u32(&admit->words[index / 4]);

	return (word >> ((index % 4) * 8)) & 0xFF;
}

/* Add one to a counter unless it is at most below; returns the new value. */
static uint32
counter_increment(uint32 index, uint32 below)
{
	pg_atomic_uint32 *w = &admit->words[index / 4];
	int			shift = (index % 4) * 8;
	uint32		old = pg_atomic_read_u32(w);

	for (;;)
	{
		uint32		value = (old >> shift) & 0xFF;

		if (value > below || value >= COUNTER_MAX)
			return value;
		if (pg_atomic_compare_exchange_u32(w, &old, old + ((uint32) 1 << shift)))
			return value + 1;
	}
}

/* Halve every counter: the sketch forgets half of what it saw. */
static void
halve_all(void)
{
	for (uint32 i = 0; i < SKETCH_DEPTH * (admit->counters / 4); i++)
	{
		uint32		old = pg_atomic_read_u32(&admit->words[i]);

		while (old != 0 &&
			   !pg_atomic_compare_exchange_u32(&admit->words[i], &old,
											   (old >> 1) & 0x7F7F7F7F))
			;
	}
}

/*
 * Record a miss of key (a leader's), and say whether its result is to be
 * kept: whether the key was missed before, within the sketch's memory.
 */
bool
CacheAdmitRecordMiss(CacheKey key)
{
	uint32		index[SKETCH_DEPTH];
	uint32		estimate = UINT32_MAX;
	uint32		window;
	uint32		recorded;

	if (!sfc_admission)
		return true;
	window = sfc_admission_window > 0 ? (uint32) sfc_admission_window : admit->sample_size;

	for (int row = 0; row < SKETCH_DEPTH; row++)
	{
		index[row] = counter_index(key, row);
		estimate = Min(estimate, counter_read(index[row]));
	}

	/* conservative update: only the smallest counters grow */
	for (int row = 0; row < SKETCH_DEPTH; row++)
		(void) counter_increment(index[row], estimate);

	recorded = pg_atomic_add_fetch_u32(&admit->recorded, 1);
	if (recorded >= window &&
		pg_atomic_compare_exchange_u32(&admit->recorded, &recorded, 0))
		halve_all();
	return estimate + 1 >= ADMIT_AT;
}

/* Forget everything (sfcache.flush()): the next miss of any key is its first. */
void
CacheAdmitReset(void)
{
	for (uint32 i = 0; i < SKETCH_DEPTH * (admit->counters / 4); i++)
		pg_atomic_write_u32(&admit->words[i], 0);
	pg_atomic_write_u32(&admit->recorded, 0);
}
