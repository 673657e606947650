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

#include "common/logging.h"

#include "advisor.h"

/* pg_advisory_lock key: the bytes of "sfcache" as a bigint. */
#define ADVISOR_LOCK_KEY	"32482199343425637"

/* A one-row boolean query: 1 (true), 0 (false), or -1 on failure (logged). */
static int
query_bool(PGconn *conn, const char *what, const char *sql)
{
	PGresult   *res = advisor_query(conn, what, sql, 0, NULL);
	int			v;

	if (res == NULL)
		return -1;
	v = PQntuples(res) == 1 && PQgetvalue(res, 0, 0)[0] == 't';
	PQclear(res);
	return v;
}

/*
 * Take the advisory lock, waiting (and saying so) if another advisor has
 * it; false on failure (logged), such as a Ctrl-C while waiting.
 */
bool
apply_lock(PGconn *conn, int quiet)
{
	PGresult   *res;

	switch (query_bool(conn, "take the advisory lock of --apply",
					   "SELECT pg_catalog.pg_try_advisory_lock(" ADVISOR_LOCK_KEY ")"))
	{
		case 1:
			return true;
		case -1:
			return false;
	}
	if (!quiet)
		pg_log_info("waiting for another sfcache-advisor --apply (advisory lock %s)",
					ADVISOR_LOCK_KEY);
	res = advisor_query(conn, "wait for the advisory lock of --apply",
						"SELECT pg_catalog.pg_advisory_lock(" ADVISOR_LOCK_KEY ")", 0, NULL);
	PQclear(res);
	return res != NULL;
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
		pg_log_error("could not apply the migration: %s", PQerrorMessage(conn));
		pg_log_error_detail("Statement was: %s", sql);
		if (strncmp(sql, "CREATE", 6) == 0)
			pg_log_error_hint("A failed CREATE INDEX CONCURRENTLY leaves an invalid index behind; drop it with DROP INDEX CONCURRENTLY before running again.");
	}
	else if (!quiet)
		pg_log_info("done in %.1f s: %s", seconds_since(&start), sql);
	PQclear(res);
	return ok;
}

/*
 * Run the up statements of every chosen index in order. False at the first
 * failure (logged; the rest is not run).
 */
bool
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
		ok = !advisor_quoting_failed;
		for (j = 0; ok && j < stmts.n; j++)
			ok = apply_one(conn, stmts.items[j], opts->quiet);
		strlist_free(&stmts);
	}
	if (query_bool(conn, "release the advisory lock of --apply",
				   "SELECT pg_catalog.pg_advisory_unlock(" ADVISOR_LOCK_KEY ")") < 0)
		ok = 0;
	return ok;
}
