/*-------------------------------------------------------------------------
 *
 * connect.c
 *		Connecting the way psql does (conninfo or URI, -h/-p/-U, PG*
 *		environment variables, .pgpass) and refusing an sfcache extension
 *		whose version is not the advisor's own.
 *
 * The advisor may run as a superuser against a database where other roles
 * create objects.  Like pg_dump, it empties search_path as soon as it is
 * connected, so that only pg_catalog (always searched first) resolves an
 * unqualified function, operator or type; every relation it reads is
 * schema-qualified, and it reads only catalogs, the extension's own views
 * and tables checked to be plain tables, so no user-defined function runs
 * on its behalf.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include "advisor.h"

/*
 * Open a connection or exit with ADVISOR_EXIT_USAGE. Values given as
 * options override those of the conninfo string, which overrides PG*
 * variables, exactly as in psql.
 */
PGconn *
advisor_connect(const ConnectOptions *opts)
{
	const char *keywords[] = {"host", "port", "user", "dbname",
	"fallback_application_name", NULL};
	const char *values[] = {opts->host, opts->port, opts->username,
	opts->conninfo, "sfcache-advisor", NULL};
	PGconn	   *conn;
	PGresult   *res;

	conn = PQconnectdbParams(keywords, values, true);
	if (conn == NULL || PQstatus(conn) != CONNECTION_OK)
	{
		fprintf(stderr, "sfcache-advisor: could not connect: %s",
				conn ? PQerrorMessage(conn) : "out of memory\n");
		PQfinish(conn);
		exit(ADVISOR_EXIT_USAGE);
	}
	res = PQexec(conn, "SELECT pg_catalog.set_config('search_path', '', false)");
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		PQclear(res);
		advisor_fail(conn, "could not clear search_path");
	}
	PQclear(res);
	return conn;
}

/* Report a failed step with the server's message and exit 2. */
void
advisor_fail(PGconn *conn, const char *what)
{
	fprintf(stderr, "sfcache-advisor: %s: %s", what, PQerrorMessage(conn));
	PQfinish(conn);
	exit(ADVISOR_EXIT_USAGE);
}

/*
 * Check that sfcache is installed in this database at the advisor's own
 * version, and that the loaded library agrees. Returns the version (to be
 * freed with PQfreemem-compatible free()); exits with ADVISOR_EXIT_EXTENSION
 * and a one-line reason otherwise.
 */
char *
advisor_check_extension(PGconn *conn)
{
	PGresult   *res;
	char	   *version;

	res = PQexec(conn,
				 "SELECT extversion FROM pg_catalog.pg_extension "
				 "WHERE extname = 'sfcache'");
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		fprintf(stderr, "sfcache-advisor: could not read pg_extension: %s",
				PQerrorMessage(conn));
		PQclear(res);
		PQfinish(conn);
		exit(ADVISOR_EXIT_USAGE);
	}
	if (PQntuples(res) == 0)
	{
		fprintf(stderr, "sfcache-advisor: extension \"sfcache\" is not installed in database \"%s\"; run CREATE EXTENSION sfcache\n",
				PQdb(conn));
		PQclear(res);
		PQfinish(conn);
		exit(ADVISOR_EXIT_EXTENSION);
	}
	if (strcmp(PQgetvalue(res, 0, 0), SFCACHE_VERSION) != 0)
	{
		fprintf(stderr, "sfcache-advisor: extension \"sfcache\" is at version %s but this advisor is version %s; run ALTER EXTENSION sfcache UPDATE TO '%s' or use the matching advisor\n",
				PQgetvalue(res, 0, 0), SFCACHE_VERSION, SFCACHE_VERSION);
		PQclear(res);
		PQfinish(conn);
		exit(ADVISOR_EXIT_EXTENSION);
	}
	PQclear(res);

	res = PQexec(conn, "SELECT sfcache.version()");
	if (PQresultStatus(res) != PGRES_TUPLES_OK ||
		strcmp(PQgetvalue(res, 0, 0), SFCACHE_VERSION) != 0)
	{
		if (PQresultStatus(res) != PGRES_TUPLES_OK)
			fprintf(stderr, "sfcache-advisor: the sfcache library is not usable: %s",
					PQerrorMessage(conn));
		else
			fprintf(stderr, "sfcache-advisor: the loaded sfcache library is version %s but this advisor is version %s; restart the server after installing the matching version\n",
					PQgetvalue(res, 0, 0), SFCACHE_VERSION);
		PQclear(res);
		PQfinish(conn);
		exit(ADVISOR_EXIT_EXTENSION);
	}
	version = strdup(PQgetvalue(res, 0, 0));
	PQclear(res);
	return version;
}
