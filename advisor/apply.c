/*-------------------------------------------------------------------------
 *
 * apply.c
 *		--apply: create the chosen indexes now, one statement at a time
 *		(CREATE INDEX CONCURRENTLY cannot run in a transaction block, and
 *		libpq's PQexec of a single statement runs in autocommit), reporting
 *		each. A session-level advisory lock, taken before the advice is
 *		read, keeps two advisors from racing: the second one waits, then
 *		reads advice that no longer contains what the first one built.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include <time.h>

#include "advisor.h"

/* pg_advisory_lock key: the bytes of "sfcache" as a bigint. */
#define ADVISOR_LOCK_KEY	"32482199343425637"

static int
query_bool(PGconn *conn, const char *sql)
{
	PGresult   *res = advisor_query(conn, sql, 0, NULL);
	int			v = PQntuples(res) == 1 && PQgetvalue(res, 0, 0)[0] == 't';

	PQclear(res);
	return v;
}

/* Take the advisory lock, waiting (and saying so) if another advisor has it. */
void
apply_lock(PGconn *conn, int quiet)
{
	PGresult   *res;

	if (query_bool(conn, "SELECT pg_catalog.pg_try_advisory_lock(" ADVISOR_LOCK_KEY ")"))
		return;
	if (!quiet)
		fprintf(stderr, "sfcache-advisor: waiting for another sfcache-advisor --apply (advisory lock %s)\n",
				ADVISOR_LOCK_KEY);
	res = advisor_query(conn, "SELECT pg_catalog.pg_advisory_lock(" ADVISOR_LOCK_KEY ")", 0, NULL);
	PQclear(res);
}

static double
seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double) (now.tv_sec - start->tv_sec) +
		(double) (now.tv_nsec - start->tv_nsec) / 1e9;
}

/* Run one statement; report it; 0 on failure. */
static int
apply_one(PGconn *conn, const char *sql, int quiet)
{
	struct timespec start;
	PGresult   *res;
	int			ok;

	clock_gettime(CLOCK_MONOTONIC, &start);
	res = PQexec(conn, sql);
	ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	if (!ok)
	{
		fprintf(stderr, "sfcache-advisor: failed: %s\n%s", sql, PQerrorMessage(conn));
		if (strncmp(sql, "CREATE", 6) == 0)
			fprintf(stderr, "HINT:  A failed CREATE INDEX CONCURRENTLY leaves an invalid index behind; drop it with DROP INDEX CONCURRENTLY before running again.\n");
	}
	else if (!quiet)
		fprintf(stderr, "sfcache-advisor: done in %.1f s: %s\n", seconds_since(&start), sql);
	PQclear(res);
	return ok;
}

/*
 * Run the up statements of every chosen index in order. Returns the exit
 * code: ADVISOR_EXIT_USAGE at the first failure (the rest is not run).
 */
int
apply_migration(PGconn *conn, const Workload *w, const AdvisorOptions *opts)
{
	int			i;
	int			j;
	int			ok = 1;

	for (i = 0; ok && i < w->nadvice; i++)
	{
		StrList		stmts = {0};

		if (!w->advice[i].chosen)
			continue;
		migration_up(conn, w, &w->advice[i], opts->replace, &stmts);
		for (j = 0; ok && j < stmts.n; j++)
			ok = apply_one(conn, stmts.items[j], opts->quiet);
		strlist_free(&stmts);
	}
	query_bool(conn, "SELECT pg_catalog.pg_advisory_unlock(" ADVISOR_LOCK_KEY ")");
	return ok ? ADVISOR_EXIT_SUGGESTED : ADVISOR_EXIT_USAGE;
}
