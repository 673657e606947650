/*-------------------------------------------------------------------------
 *
 * cache_admit.c
 *		Admission: whether a leader's result is kept. A result is stored
 *		only when its key is likely to be read again: a key missed for the
 *		first time within the last admission period (sfcache.admission_period,
 *		60 s) is computed and handed to the followers that waited for it, but
 *		not kept; its second miss within the period stores it. A stream of
 *		keys read once (reports, pgbench -S over a large table, an ORM's
 *		microsecond timestamps) thus stays out of the cache for as long as it
 *		lasts, while anything read twice within a minute is cached from its
 *		second read on.
 *
 * Two structures in shared memory, in TinyLFU's order:
 *
 * The doorkeeper: two Bloom filters ("generations") of DOOR_BITS bits and
 * DOOR_HASHES hash functions each (double hashing over the 128-bit key).
 * Time is cut into periods of sfcache.admission_period seconds; period p
 * writes into generation p % 2, and a lookup in period p reads generation
 * p % 2 (if it holds period p) and the other one (if it holds p - 1). The
 * first miss of a period in a generation that still holds period p - 2
 * claims it (compare-and-swap on its period) and clears it. So a key
 * missed at time t is remembered at least until the end of the next
 * period, i.e. for at least one full period: "twice within a period" is
 * always admitted (the bound regress/sql/cache_admission.sql tests with
 * sfcache.test_admission_clock), and nothing is remembered longer than two
 * periods.
 *
 * The frequency sketch: a count-min sketch (SKETCH_DEPTH rows of 8-bit
 * counters, four to a pg_atomic_uint32, conservative update, saturating at
 * COUNTER_MAX) counts only keys that passed the doorkeeper, i.e. keys
 * read at least twice. A key it still counts is admitted on a first miss
 * of a period (a popular key invalidated after a long run of hits, which
 * do not touch admission, is stored again at once). Its counts halve at
 * every doorkeeper rotation and every sfcache.admission_window increments
 * (0: eight per counter), so a key counted once is forgotten after one or
 * two periods and a popular key after a few more.
 *
 * False positives (a one-off key admitted), with the sizes chosen: a
 * generation of m = 2^20 bits (128 kB; 32 bits per entry of
 * sfcache.max_entries above 32768, rounded up to a power of two) and
 * k = 8 holding n distinct keys
 * answers "seen" for a new key with probability (1 - e^(-kn/m))^k. At 600
 * one-off keys a second and a 60 s period, n = 36,000: kn/m = 0.275,
 * (1 - 0.760)^8 = 1.1e-5 per generation, 2.2e-5 for the two a lookup reads
 * (0.002 %). The 1 % bound holds up to n = 95,000 per generation (1,580
 * one-off misses a second at 60 s). The sketch adds at most (r/w)^4 for r
 * keys counted since its last halving and w = counters per row (4 x
 * sfcache.max_entries, at least 4096): for r = w/8 (1,250 repeated keys
 * a period at the default 10,000 entries), 0.02 %. Collisions only ever
 * admit, never forget a key. bench/admission-stream measures it.
 *
 * Concurrency: no lock. Bits are set with atomic fetch-or, counters with
 * compare-and-swap, generations claimed with compare-and-swap on their
 * period. A miss racing with the clearing of a generation may lose its
 * bits (the key's next miss is then a first one again), or a halving may
 * lose or keep an increment: each only costs or gives one admission. Only
 * leaders' misses touch any of it: the hit path takes no lock and no
 * atomic here.
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

#include "access/xact.h"
#include "common/hashfn.h"
#include "port/atomics.h"
#include "port/pg_bitutils.h"
#include "storage/shmem.h"
#include "utils/timestamp.h"

#include "cache/cache_internal.h"

#define DOOR_HASHES 8
#define DOOR_MIN_BITS (1 << 20)
#define DOOR_MAX_BITS (1 << 25)
#define SKETCH_DEPTH 4
#define COUNTER_MAX 15			/* as TinyLFU's 4-bit counters */
#define MIN_COUNTERS 4096		/* per row */
#define MAX_COUNTERS (1 << 22)

typedef struct AdmitShared
{
	uint32		door_bits;		/* per generation, a power of two */
	uint32		counters;		/* per sketch row, a power of two */
	uint32		sample_size;	/* increments between two halvings */
	pg_atomic_uint32 recorded;	/* increments since the last halving */
	pg_atomic_uint64 periods[2];	/* the period each generation holds */
	/* 2 * door_bits / 32 words, then SKETCH_DEPTH * counters / 4 words */
	pg_atomic_uint32 words[FLEXIBLE_ARRAY_MEMBER];
} AdmitShared;

/* One Bloom filter of the doorkeeper, as this backend addresses it. */
typedef struct DoorGeneration
{
	pg_atomic_uint64 *period;
	pg_atomic_uint32 *words;	/* door_bits / 32 */
} DoorGeneration;

static AdmitShared *admit = NULL;
static DoorGeneration gens[2];
static pg_atomic_uint32 *sketch = NULL;

/* Pure: counters per sketch row for this sfcache.max_entries. */
static uint32
counters_per_row(void)
{
	uint64		want = Max((uint64) cache_max_entries * 4, MIN_COUNTERS);

	return (uint32) pg_nextpower2_64(Min(want, MAX_COUNTERS));
}

/* Pure: bits per doorkeeper generation for this sfcache.max_entries. */
static uint32
door_bits(void)
{
	uint64		want = Max((uint64) cache_max_entries * 32, DOOR_MIN_BITS);

	return (uint32) pg_nextpower2_64(Min(want, DOOR_MAX_BITS));
}

static Size
admit_words(void)
{
	return 2 * (door_bits() / 32) + SKETCH_DEPTH * (counters_per_row() / 4);
}

static Size
admit_shmem_size(void)
{
	return add_size(offsetof(AdmitShared, words),
					mul_size(admit_words(), sizeof(pg_atomic_uint32)));
}

/* Caller must hold AddinShmemInitLock. */
static void
admit_shmem_init(void)
{
	bool		found;
	uint32		gen_words = door_bits() / 32;

	admit = ShmemInitStruct("sfcache admission", admit_shmem_size(), &found);
	if (!found)
	{
		admit->door_bits = door_bits();
		admit->counters = counters_per_row();
		admit->sample_size = admit->counters * 8;
		pg_atomic_init_u32(&admit->recorded, 0);
		for (int g = 0; g < 2; g++)
			pg_atomic_init_u64(&admit->periods[g], 0);
		for (Size i = 0; i < admit_words(); i++)
			pg_atomic_init_u32(&admit->words[i], 0);
	}
	for (int g = 0; g < 2; g++)
	{
		gens[g].period = &admit->periods[g];
		gens[g].words = admit->words + g * gen_words;
	}
	sketch = admit->words + 2 * gen_words;
}

const SfcShmemPart CacheAdmitShmemPart = {
	NULL, 0, admit_shmem_size, admit_shmem_init
};

/* ---- the doorkeeper ---- */

/*
 * The period now: seconds since the epoch (or sfcache.test_admission_clock)
 * over sfcache.admission_period, plus one so that 0 means "never".
 */
static uint64
current_period(void)
{
	int64		seconds;

	if (cache_test_admission_clock_s >= 0)
		seconds = cache_test_admission_clock_s;
	else
		seconds = (GetCurrentStatementStartTimestamp() / USECS_PER_SEC) +
			(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY;
	return (uint64) (Max(seconds, 0) / cache_admission_period_s) + 1;
}

/*
 * A key's two 64-bit hashes. The key's high half is a 64-bit hash, but its
 * low half is a CRC-32C and the length of what was hashed (cache_key.c),
 * the same for every key of a shape: both halves are hashed again so that
 * all bits used below are independent and uniform.
 */
typedef struct AdmitHash
{
	uint64		a;
	uint64		b;
} AdmitHash;

static AdmitHash
admit_hash(CacheKey key)
{
	AdmitHash	h;

	h.a = key.hi;
	h.b = hash_bytes_extended((const unsigned char *) &key, sizeof(key),
							  UINT64CONST(0xad3177ed));
	return h;
}

/* Bit i of the key's DOOR_HASHES bits in a generation (double hashing). */
static uint32
door_bit(AdmitHash key, int i)
{
	uint64		h = key.a + (uint64) i * (key.b | 1);

	return (uint32) (h >> 32) & (admit->door_bits - 1);
}

static bool
door_test(DoorGeneration *gen, AdmitHash key)
{
	for (int i = 0; i < DOOR_HASHES; i++)
	{
		uint32		bit = door_bit(key, i);

		if (!(pg_atomic_read_u32(&gen->words[bit / 32]) & ((uint32) 1 << (bit % 32))))
			return false;
	}
	return true;
}

static void
door_set(DoorGeneration *gen, AdmitHash key)
{
	for (int i = 0; i < DOOR_HASHES; i++)
	{
		uint32		bit = door_bit(key, i);

		(void) pg_atomic_fetch_or_u32(&gen->words[bit / 32], (uint32) 1 << (bit % 32));
	}
}

static void halve_sketch(void);

/*
 * The generation period writes into, claimed (and cleared) if it still
 * holds an older period; the backend that claims it also halves the sketch.
 */
static DoorGeneration *
door_claim(uint64 period)
{
	DoorGeneration *gen = &gens[period % 2];
	uint64		held = pg_atomic_read_u64(gen->period);

	if (held < period &&
		pg_atomic_compare_exchange_u64(gen->period, &held, period))
	{
		for (uint32 i = 0; i < admit->door_bits / 32; i++)
			pg_atomic_write_u32(&gen->words[i], 0);
		halve_sketch();
	}
	return gen;
}

/* Was the key missed in this period or the one before? */
static bool
door_seen(AdmitHash key, uint64 period)
{
	DoorGeneration *cur = &gens[period % 2];
	DoorGeneration *prev = &gens[(period + 1) % 2];

	return (pg_atomic_read_u64(cur->period) == period && door_test(cur, key)) ||
		(pg_atomic_read_u64(prev->period) == period - 1 && door_test(prev, key));
}

/* ---- the frequency sketch ---- */

/* Counter index of a key in one row: 32 independent bits of the key per row. */
static uint32
counter_index(AdmitHash key, int row)
{
	uint64		bits = (row < 2) ? key.a : key.b;
	uint32		h = (uint32) (bits >> ((row % 2) * 32));

	return row * admit->counters + (h & (admit->counters - 1));
}

static uint32
counter_read(uint32 index)
{
	uint32		word = pg_atomic_read_u32(&sketch[index / 4]);

	return (word >> ((index % 4) * 8)) & 0xFF;
}

/* Add one to a counter unless it is above below. */
static void
counter_increment(uint32 index, uint32 below)
{
	pg_atomic_uint32 *w = &sketch[index / 4];
	int			shift = (index % 4) * 8;
	uint32		old = pg_atomic_read_u32(w);

	for (;;)
	{
		uint32		value = (old >> shift) & 0xFF;

		if (value > below || value >= COUNTER_MAX)
			return;
		if (pg_atomic_compare_exchange_u32(w, &old, old + ((uint32) 1 << shift)))
			return;
	}
}

/* Halve every counter: the sketch forgets half of what it counted. */
static void
halve_sketch(void)
{
	for (uint32 i = 0; i < SKETCH_DEPTH * (admit->counters / 4); i++)
	{
		uint32		old = pg_atomic_read_u32(&sketch[i]);

		while (old != 0 &&
			   !pg_atomic_compare_exchange_u32(&sketch[i], &old,
											   (old >> 1) & 0x7F7F7F7F))
			;
	}
}

/* The key's count: the smallest of its counters. */
static uint32
sketch_estimate(AdmitHash key, uint32 *index)
{
	uint32		estimate = UINT32_MAX;

	for (int row = 0; row < SKETCH_DEPTH; row++)
	{
		index[row] = counter_index(key, row);
		estimate = Min(estimate, counter_read(index[row]));
	}
	return estimate;
}

/* Count a key read again (conservative update: only its smallest counters grow). */
static void
sketch_count(const uint32 *index, uint32 estimate)
{
	uint32		window;
	uint32		recorded;

	for (int row = 0; row < SKETCH_DEPTH; row++)
		counter_increment(index[row], estimate);
	window = cache_admission_window > 0 ? (uint32) cache_admission_window : admit->sample_size;
	recorded = pg_atomic_add_fetch_u32(&admit->recorded, 1);
	if (recorded >= window &&
		pg_atomic_compare_exchange_u32(&admit->recorded, &recorded, 0))
		halve_sketch();
}

/*
 * Record a miss of key (a leader's), and say whether its result is to be
 * kept: whether the key was missed before within the doorkeeper's memory,
 * or is still counted by the sketch.
 */
bool
CacheAdmitRecordMiss(CacheKey cache_key)
{
	AdmitHash	key;
	uint64		period;
	uint32		index[SKETCH_DEPTH];
	uint32		estimate;
	bool		seen;

	if (!cache_admission)
		return true;
	key = admit_hash(cache_key);
	period = current_period();
	seen = door_seen(key, period);
	door_set(door_claim(period), key);
	estimate = sketch_estimate(key, index);
	if (seen)
		sketch_count(index, estimate);
	return seen || estimate > 0;
}

/* Forget everything (sfcache.flush()): the next miss of any key is its first. */
void
CacheAdmitReset(void)
{
	for (Size i = 0; i < admit_words(); i++)
		pg_atomic_write_u32(&admit->words[i], 0);
	for (int g = 0; g < 2; g++)
		pg_atomic_write_u64(&admit->periods[g], 0);
	pg_atomic_write_u32(&admit->recorded, 0);
}
