/*
 * bench/clients/herd.c: the thundering-herd client of bench/scenarios/herd.sh.
 *
 * Opens N libpq connections (one thread each), waits until every one of them
 * is connected and idle, then releases them all through one pthread barrier
 * so that each sends the same query at the same moment. Prints one line:
 *
 *   clients=N ok=K errors=E rows=R spread_ms=S last_ms=L p50_ms=A p99_ms=B
 *
 * spread_ms: time between the first and the last send (how tight the
 * barrier was); last_ms: from the barrier's release until the last client
 * had its rows; p50/p99: per-client latency, send to rows.
 *
 * Each %NOW% in QUERY becomes, per client at the moment it sends, a
 * timestamptz literal with microseconds, as Django writes timezone.now():
 * '2026-11-02 09:00:00.123456+00:00'. The clock is the real one, shifted so
 * that the run starts at HERD_NOW_BASE (Unix seconds; default: now), so a
 * data set with a fixed "today" sees a now that moves as it would.
 *
 * usage: herd CONNINFO N QUERY [TIMEOUT_S]
 */
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

typedef struct
{
	PGconn	   *conn;
	double		sent;
	double		done;
	long		rows;
	int			ok;
	char		err[200];
} Client;

static pthread_barrier_t barrier;
static const char *query;
static double released;
static double now_shift;		/* HERD_NOW_BASE minus the real start, s */

#define NOW_MARK "%NOW%"

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

/* QUERY with each %NOW% replaced by the shifted wall clock (malloc'd). */
static char *
query_at_now(void)
{
	struct timeval tv;
	double		t;
	time_t		secs;
	struct tm	tm;
	char		lit[64];
	char		stamp[32];
	size_t		marks = 0;
	const char *p;
	char	   *out;
	char	   *o;

	gettimeofday(&tv, NULL);
	t = tv.tv_sec + tv.tv_usec / 1e6 + now_shift;
	secs = (time_t) t;
	gmtime_r(&secs, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(lit, sizeof(lit), "'%s.%06d+00:00'", stamp, (int) ((t - secs) * 1e6));
	for (p = strstr(query, NOW_MARK); p; p = strstr(p + strlen(NOW_MARK), NOW_MARK))
		marks++;
	out = malloc(strlen(query) + marks * strlen(lit) + 1);
	for (p = query, o = out; *p;)
	{
		const char *mark = strstr(p, NOW_MARK);
		size_t		len = mark ? (size_t) (mark - p) : strlen(p);

		memcpy(o, p, len);
		o += len;
		p += len;
		if (mark)
		{
			memcpy(o, lit, strlen(lit));
			o += strlen(lit);
			p += strlen(NOW_MARK);
		}
	}
	*o = '\0';
	return out;
}

static void *
run_client(void *arg)
{
	Client	   *c = arg;
	PGresult   *res;
	char	   *sql;

	if (pthread_barrier_wait(&barrier) == PTHREAD_BARRIER_SERIAL_THREAD)
		released = now_ms();
	sql = query_at_now();
	c->sent = now_ms();
	res = PQexec(c->conn, sql);
	free(sql);
	c->done = now_ms();
	if (PQresultStatus(res) == PGRES_TUPLES_OK)
	{
		c->ok = 1;
		c->rows = PQntuples(res);
	}
	else
		snprintf(c->err, sizeof(c->err), "%s", PQerrorMessage(c->conn));
	PQclear(res);
	return NULL;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	int			n,
				i,
				ok = 0;
	long		rows = 0;
	Client	   *cl;
	pthread_t  *th;
	double		first_sent = 1e300,
				last_sent = 0,
				last_done = 0,
			   *lat;
	char		opts[64];

	if (argc < 4)
	{
		fprintf(stderr, "usage: herd CONNINFO N QUERY [TIMEOUT_S]\n");
		return 2;
	}
	n = atoi(argv[2]);
	query = argv[3];
	if (getenv("HERD_NOW_BASE"))
	{
		struct timeval tv;

		gettimeofday(&tv, NULL);
		now_shift = atof(getenv("HERD_NOW_BASE")) - (tv.tv_sec + tv.tv_usec / 1e6);
	}
	if (n < 1 || n > 2000)
	{
		fprintf(stderr, "herd: N must be 1..2000\n");
		return 2;
	}
	cl = calloc(n, sizeof(Client));
	th = calloc(n, sizeof(pthread_t));
	lat = calloc(n, sizeof(double));
	/* A bound on the run: every statement dies after TIMEOUT_S seconds. */
	snprintf(opts, sizeof(opts), "-c statement_timeout=%ds", argc > 4 ? atoi(argv[4]) : 120);

	for (i = 0; i < n; i++)
	{
		const char *kw[] = {"dbname", "options", NULL};
		const char *val[] = {argv[1], opts, NULL};

		cl[i].conn = PQconnectdbParams(kw, val, 1);
		if (PQstatus(cl[i].conn) != CONNECTION_OK)
		{
			fprintf(stderr, "herd: connection %d: %s", i, PQerrorMessage(cl[i].conn));
			return 1;
		}
	}
	/* Everyone is connected and idle: now start the threads at the barrier. */
	pthread_barrier_init(&barrier, NULL, n);
	for (i = 0; i < n; i++)
		pthread_create(&th[i], NULL, run_client, &cl[i]);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);

	for (i = 0; i < n; i++)
	{
		if (cl[i].ok)
		{
			ok++;
			rows += cl[i].rows;
		}
		else if (ok == 0 && i < 3)
			fprintf(stderr, "herd: client %d: %s", i, cl[i].err);
		if (cl[i].sent < first_sent)
			first_sent = cl[i].sent;
		if (cl[i].sent > last_sent)
			last_sent = cl[i].sent;
		if (cl[i].done > last_done)
			last_done = cl[i].done;
		lat[i] = cl[i].done - cl[i].sent;
		PQfinish(cl[i].conn);
	}
	/*
	 * The thread that reads the release time may be descheduled before it
	 * does, while others already sent: the release is at the latest the
	 * first send.
	 */
	if (first_sent < released)
		released = first_sent;
	qsort(lat, n, sizeof(double), cmp_double);
	printf("clients=%d ok=%d errors=%d rows=%ld spread_ms=%.2f last_ms=%.1f p50_ms=%.1f p99_ms=%.1f\n",
		   n, ok, n - ok, rows, last_sent - first_sent, last_done - released,
		   lat[n / 2], lat[(int) (0.99 * (n - 1))]);
	return ok == n ? 0 : 1;
}
