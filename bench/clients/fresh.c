/*
 * bench/clients/fresh.c: the freshness checker of bench/scenarios/fresh.sh.
 *
 * One writer thread commits version bumps at a fixed rate
 * (UPDATE bench_version SET v = v + 1 WHERE id = 1 RETURNING v) and notes,
 * for each version, the moment its COMMIT was acknowledged. R reader threads
 * loop on a read query whose first column is that version and note, for
 * each read, when it began and which version it returned. All times come
 * from one monotonic clock.
 *
 * A read is stale when it began after the commit of a newer version than
 * the one it returned had been acknowledged; its staleness is how long
 * before the read began that newer version had been acknowledged.
 * Prints one line:
 *
 *   reads=N stale=S stale_pct=P worst_ms=W commits=C
 *
 * and, with a TIMELINE file, one line per stale read "t_s staleness_ms".
 *
 * usage: fresh READ_CONNINFO WRITE_CONNINFO READERS RATE SECONDS QUERY [TIMELINE]
 */
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_READS 2000000		/* per reader: a bound on the loop */
#define MAX_COMMITS 200000

typedef struct
{
	double		start;
	long		version;
} Read;

typedef struct
{
	pthread_t	th;
	Read	   *reads;
	long		n;
	int			failed;
} Reader;

static const char *read_ci,
		   *write_ci,
		   *read_query;
static double t0,
			t_end,
			rate;
static double *ack;				/* ack[v]: when version v was acknowledged */
static long v_first = -1,
			v_last = -1;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static PGconn *
connect_or_die(const char *ci)
{
	PGconn	   *c = PQconnectdb(ci);

	if (PQstatus(c) != CONNECTION_OK)
	{
		fprintf(stderr, "fresh: %s", PQerrorMessage(c));
		exit(1);
	}
	return c;
}

static long
exec_version(PGconn *c, const char *sql)
{
	PGresult   *r = PQexec(c, sql);
	long		v = -1;

	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0)
		v = atol(PQgetvalue(r, 0, 0));
	else
		fprintf(stderr, "fresh: %s", PQerrorMessage(c));
	PQclear(r);
	return v;
}

static void *
writer(void *arg)
{
	PGconn	   *c = connect_or_die(write_ci);
	long		k = 0;

	for (;;)
	{
		double		due = t0 + k / rate,
					t = now_s();
		long		v;

		if (due >= t_end)
			break;
		if (due > t)
		{
			struct timespec ts;

			ts.tv_sec = (time_t) (due - t);
			ts.tv_nsec = (long) ((due - t - ts.tv_sec) * 1e9);
			nanosleep(&ts, NULL);
		}
		v = exec_version(c, "UPDATE bench_version SET v = v + 1 WHERE id = 1 RETURNING v");
		if (v < 0 || v - v_first >= MAX_COMMITS)
			break;
		ack[v - v_first] = now_s();
		v_last = v;
		k++;
	}
	PQfinish(c);
	return NULL;
}

static void *
reader(void *arg)
{
	Reader	   *r = arg;
	PGconn	   *c = connect_or_die(read_ci);

	while (r->n < MAX_READS)
	{
		double		s = now_s();
		long		v;

		if (s >= t_end)
			break;
		v = exec_version(c, read_query);
		if (v < 0)
		{
			r->failed = 1;
			break;
		}
		r->reads[r->n].start = s;
		r->reads[r->n].version = v;
		r->n++;
	}
	PQfinish(c);
	return NULL;
}

int
main(int argc, char **argv)
{
	int			nr,
				i;
	double		secs,
				worst = 0;
	long		reads = 0,
				stale = 0;
	Reader	   *rd;
	pthread_t	wt;
	PGconn	   *c;
	FILE	   *tl = NULL;

	if (argc < 7)
	{
		fprintf(stderr, "usage: fresh READ_CONNINFO WRITE_CONNINFO READERS RATE SECONDS QUERY [TIMELINE]\n");
		return 2;
	}
	read_ci = argv[1];
	write_ci = argv[2];
	nr = atoi(argv[3]);
	rate = atof(argv[4]);
	secs = atof(argv[5]);
	read_query = argv[6];
	if (nr < 1 || nr > 256 || rate <= 0 || rate > 10000 || secs <= 0 || secs > 3600)
	{
		fprintf(stderr, "fresh: READERS 1..256, RATE 0..10000, SECONDS 0..3600\n");
		return 2;
	}
	if (argc > 7 && !(tl = fopen(argv[7], "w")))
	{
		perror(argv[7]);
		return 2;
	}

	/* The version committed before we start counts as acknowledged at -inf. */
	c = connect_or_die(write_ci);
	v_first = exec_version(c, "SELECT v FROM bench_version WHERE id = 1");
	PQfinish(c);
	if (v_first < 0)
		return 1;
	v_last = v_first;
	ack = calloc(MAX_COMMITS, sizeof(double));
	ack[0] = -1e300;

	rd = calloc(nr, sizeof(Reader));
	t0 = now_s();
	t_end = t0 + secs;
	for (i = 0; i < nr; i++)
	{
		rd[i].reads = malloc(sizeof(Read) * MAX_READS);
		pthread_create(&rd[i].th, NULL, reader, &rd[i]);
	}
	pthread_create(&wt, NULL, writer, NULL);
	pthread_join(wt, NULL);
	for (i = 0; i < nr; i++)
		pthread_join(rd[i].th, NULL);

	/*
	 * For each read: the newest version acknowledged before it began (acks
	 * are in version order, so a binary search finds it). Stale if the read
	 * returned an older one.
	 */
	for (i = 0; i < nr; i++)
	{
		long		j;

		for (j = 0; j < rd[i].n; j++)
		{
			Read	   *x = &rd[i].reads[j];
			long		lo = 0,
						hi = v_last - v_first;

			while (lo < hi)
			{
				long		mid = (lo + hi + 1) / 2;

				if (ack[mid] < x->start)
					lo = mid;
				else
					hi = mid - 1;
			}
			reads++;
			if (x->version - v_first < lo)
			{
				double		age;
				long		newer = x->version - v_first + 1;

				/*
				 * Older than the version at the start: a newer one was
				 * acknowledged before t0 at the latest (a lower bound).
				 */
				if (newer < 1)
					age = (x->start - t0) * 1000.0;
				else
					age = (x->start - ack[newer]) * 1000.0;
				stale++;
				if (age > worst)
					worst = age;
				if (tl)
					fprintf(tl, "%.4f %.2f\n", x->start - t0, age);
			}
		}
		if (rd[i].failed)
			fprintf(stderr, "fresh: reader %d stopped on an error\n", i);
	}
	if (tl)
		fclose(tl);
	printf("reads=%ld stale=%ld stale_pct=%.2f worst_ms=%.1f commits=%ld\n",
		   reads, stale, reads ? 100.0 * stale / reads : 0.0, worst, v_last - v_first);
	return 0;
}
