/*
 * bench/clients/memtrace.c: the trace and the LRU model of
 * bench/scenarios/memory.sh.
 *
 * Draws a deterministic Zipf trace of N requests over keys 1..K (exponent S,
 * xorshift64* seeded with SEED), writes it one key a line to TRACE, and
 * replays it through an LRU cache holding CAP entries: prints
 *
 *   requests=N keys=K distinct=D cap=CAP lru_hits=H lru_hit_ratio=R ceiling=C
 *
 * where ceiling is the hit ratio of an unbounded cache (1 - D/N).
 *
 * usage: memtrace K N S SEED CAP TRACE
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

static uint64_t rng;

static double
uniform(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return ((rng * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

int
main(int argc, char **argv)
{
	long		k,
				n,
				cap,
				i,
				distinct = 0,
				hits = 0,
				used = 0;
	double		s,
			   *cdf;
	long	   *prev,
			   *next;
	char	   *in,
			   *seen;
	long		head = 0;		/* sentinel 0: head.next = MRU, head.prev = LRU */
	FILE	   *out;

	if (argc != 7)
	{
		fprintf(stderr, "usage: memtrace K N S SEED CAP TRACE\n");
		return 2;
	}
	k = atol(argv[1]);
	n = atol(argv[2]);
	s = atof(argv[3]);
	rng = strtoull(argv[4], NULL, 10) * 0x9E3779B97F4A7C15ULL + 1;
	cap = atol(argv[5]);
	if (k < 1 || k > 10000000 || n < 1 || n > 100000000 || cap < 1)
	{
		fprintf(stderr, "memtrace: bad sizes\n");
		return 2;
	}
	if (!(out = fopen(argv[6], "w")))
	{
		perror(argv[6]);
		return 2;
	}
	cdf = malloc(sizeof(double) * (k + 1));
	prev = calloc(k + 1, sizeof(long));
	next = calloc(k + 1, sizeof(long));
	in = calloc(k + 1, 1);
	seen = calloc(k + 1, 1);
	cdf[0] = 0;
	for (i = 1; i <= k; i++)
		cdf[i] = cdf[i - 1] + 1.0 / pow((double) i, s);
	for (i = 1; i <= k; i++)
		cdf[i] /= cdf[k];
	next[head] = prev[head] = head;

	for (i = 0; i < n; i++)
	{
		double		u = uniform();
		long		lo = 1,
					hi = k,
					key;

		while (lo < hi)
		{
			long		mid = (lo + hi) / 2;

			if (cdf[mid] >= u)
				hi = mid;
			else
				lo = mid + 1;
		}
		key = lo;
		fprintf(out, "%ld\n", key);
		if (!seen[key])
		{
			seen[key] = 1;
			distinct++;
		}
		if (in[key])
		{
			hits++;
			/* unlink */
			next[prev[key]] = next[key];
			prev[next[key]] = prev[key];
		}
		else
		{
			if (used == cap)
			{
				long		lru = prev[head];

				next[prev[lru]] = head;
				prev[head] = prev[lru];
				in[lru] = 0;
				used--;
			}
			in[key] = 1;
			used++;
		}
		/* push front */
		next[key] = next[head];
		prev[key] = head;
		prev[next[head]] = key;
		next[head] = key;
	}
	fclose(out);
	printf("requests=%ld keys=%ld distinct=%ld cap=%ld lru_hits=%ld lru_hit_ratio=%.4f ceiling=%.4f\n",
		   n, k, distinct, cap, hits, (double) hits / n, 1.0 - (double) distinct / n);
	return 0;
}
