/*
 * bench/clients/seen.c: when each hot standby first shows each commit, for
 * bench/standby's commit-to-invalidation latency.
 *
 * The writer inserts k = 1 .. WRITES into the primary's bench_seen, one
 * transaction each, one every INTERVAL_MS (whether or not the standbys have
 * shown the previous one yet). Meanwhile one connection per standby loops on
 * READ_QUERY (its first column: the highest k it sees), always one query in
 * flight, every connection driven at once with asynchronous libpq. For every
 * standby and k, the client notes the wall-clock time (CLOCK_REALTIME: the
 * clock the primary's commit timestamps come from on this one machine) of
 * the first reply that showed k or more. That is an upper bound on the moment
 * the standby stopped serving the old result: the reply was read under a
 * snapshot taken at most one round trip earlier. The earlier reply showed
 * less, so the bound is tight to one round trip.
 *
 * On a standby with sfcache, READ_QUERY is a cached statement: until the
 * invalidation of k's commit has reached the cache, it serves the old
 * result. So the time to the first reply showing k is the commit-to-visible
 * latency whatever the design that carries invalidations (a Redis bus, the
 * WAL); on a standby without sfcache it is its replay lag.
 *
 * Prints one line per standby and k, "NAME<TAB>k<TAB>epoch seconds", and on
 * stderr, per standby, "NAME polls=N unseen=U".
 *
 * usage: seen PRIMARY_CONNINFO WRITES INTERVAL_MS READ_QUERY NAME=CONNINFO...
 */
#include <libpq-fe.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_STANDBYS 8
#define DRAIN_S 10.0			/* after the last write: how long to wait */

typedef struct
{
	const char *name;
	PGconn	   *conn;
	double	   *seen;			/* seen[k]: first reply showing k, or 0 */
	long		shown;			/* highest k shown so far */
	long		polls;
} Standby;

static double
wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static PGconn *
connect_or_die(const char *ci)
{
	PGconn	   *c = PQconnectdb(ci);

	if (PQstatus(c) != CONNECTION_OK)
	{
		fprintf(stderr, "seen: %s", PQerrorMessage(c));
		exit(1);
	}
	return c;
}

static void
send_or_die(PGconn *c, const char *sql)
{
	if (!PQsendQuery(c, sql))
	{
		fprintf(stderr, "seen: %s", PQerrorMessage(c));
		exit(1);
	}
}

/*
 * Reads what arrived on c; returns 1 when its query is complete, with the
 * first value of its result in *value (0 for NULL or no row).
 */
static int
drain(PGconn *c, long *value)
{
	PGresult   *r;

	if (!PQconsumeInput(c))
	{
		fprintf(stderr, "seen: %s", PQerrorMessage(c));
		exit(1);
	}
	while (!PQisBusy(c))
	{
		r = PQgetResult(c);
		if (r == NULL)
			return 1;
		if (PQresultStatus(r) != PGRES_TUPLES_OK &&
			PQresultStatus(r) != PGRES_COMMAND_OK)
		{
			fprintf(stderr, "seen: %s", PQresultErrorMessage(r));
			exit(1);
		}
		if (value != NULL && PQresultStatus(r) == PGRES_TUPLES_OK)
			*value = (PQntuples(r) > 0 && !PQgetisnull(r, 0, 0)) ?
				atol(PQgetvalue(r, 0, 0)) : 0;
		PQclear(r);
	}
	return 0;
}

static void
note_reply(Standby *s, long value, long writes)
{
	double		t = wall_s();

	if (value > writes)
		value = writes;
	while (s->shown < value)
		s->seen[++s->shown] = t;
	s->polls++;
}

int
main(int argc, char **argv)
{
	Standby		sb[MAX_STANDBYS];
	struct pollfd fds[MAX_STANDBYS + 1];
	PGconn	   *primary;
	const char *query;
	long		writes,
				written = 0,
				value;
	double		interval,
				next_write,
				deadline = 0;
	int			n = 0,
				writing = 0,
				done;
	char		sql[64];

	if (argc < 6)
	{
		fprintf(stderr, "usage: seen PRIMARY_CONNINFO WRITES INTERVAL_MS READ_QUERY NAME=CONNINFO...\n");
		return 2;
	}
	writes = atol(argv[2]);
	interval = atof(argv[3]) / 1000.0;
	query = argv[4];
	if (writes < 1 || interval < 0 || argc - 5 > MAX_STANDBYS)
	{
		fprintf(stderr, "seen: WRITES >= 1, INTERVAL_MS >= 0, at most %d standbys\n", MAX_STANDBYS);
		return 2;
	}
	primary = connect_or_die(argv[1]);
	for (int i = 5; i < argc; i++)
	{
		char	   *eq = strchr(argv[i], '=');

		if (eq == NULL)
		{
			fprintf(stderr, "seen: a standby is NAME=CONNINFO\n");
			return 2;
		}
		*eq = '\0';
		sb[n].name = argv[i];
		sb[n].conn = connect_or_die(eq + 1);
		sb[n].seen = calloc(writes + 1, sizeof(double));
		sb[n].shown = 0;
		sb[n].polls = 0;
		send_or_die(sb[n].conn, query);
		n++;
	}
	next_write = wall_s();
	for (;;)
	{
		double		now = wall_s();
		int			timeout;

		if (!writing && written < writes && now >= next_write)
		{
			snprintf(sql, sizeof(sql), "INSERT INTO bench_seen VALUES (%ld)", written + 1);
			send_or_die(primary, sql);
			writing = 1;
			next_write += interval;
		}
		done = 1;
		for (int i = 0; i < n; i++)
			if (sb[i].shown < writes)
				done = 0;
		if (done && !writing && written == writes)
			break;
		if (written == writes && !writing)
		{
			if (deadline == 0)
				deadline = now + DRAIN_S;
			else if (now > deadline)
				break;
		}
		for (int i = 0; i < n; i++)
		{
			fds[i].fd = PQsocket(sb[i].conn);
			fds[i].events = POLLIN;
		}
		fds[n].fd = PQsocket(primary);
		fds[n].events = writing ? POLLIN : 0;
		timeout = (!writing && written < writes) ?
			(int) ((next_write - now) * 1000.0) + 1 : 100;
		if (timeout < 0)
			timeout = 0;
		if (poll(fds, n + 1, timeout) < 0)
		{
			perror("seen: poll");
			return 1;
		}
		if (writing && (fds[n].revents & POLLIN) && drain(primary, NULL))
		{
			writing = 0;
			written++;
		}
		for (int i = 0; i < n; i++)
		{
			if (!(fds[i].revents & POLLIN))
				continue;
			value = 0;
			if (drain(sb[i].conn, &value))
			{
				note_reply(&sb[i], value, writes);
				send_or_die(sb[i].conn, query);
			}
		}
	}
	for (int i = 0; i < n; i++)
	{
		for (long k = 1; k <= writes; k++)
			if (sb[i].seen[k] > 0)
				printf("%s\t%ld\t%.6f\n", sb[i].name, k, sb[i].seen[k]);
		fprintf(stderr, "%s polls=%ld unseen=%ld\n", sb[i].name, sb[i].polls,
				writes - sb[i].shown);
		PQfinish(sb[i].conn);
	}
	PQfinish(primary);
	return 0;
}
