/*-------------------------------------------------------------------------
 *
 * connect.c
 *		Connecting the way psql does (conninfo or URI, -h/-p/-U, PG*
 *		environment variables, .pgpass, -W and -w), making Ctrl-C cancel
 *		the running query, and refusing an sfcache extension whose version
 *		is not the advisor's own.
 *
 * The advisor may run as a superuser against a database where other roles
 * create objects.  Like pg_dump, it empties search_path as soon as it is
 * connected, so that only pg_catalog (always searched first) resolves an
 * unqualified function, operator or type; every relation it reads is
 * schema-qualified, and it reads only catalogs, the extension's own views
 * and tables checked to be plain tables, so no user-defined function runs
 * on its behalf.
 *
 * Nothing here exits: a failure is logged and reported to main(), which
 * closes the connection and exits with the documented code.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include "common/logging.h"
#include "common/string.h"
#include "fe_utils/cancel.h"

#include "advisor.h"

static const char *const clear_search_path_sql =
"SELECT pg_catalog.set_config('search_path', '', false)";

static const char *const extension_sql =
"SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'sfcache'";

static const char *const library_sql = "SELECT sfcache.version()";

/* One attempt with the given password (NULL: none, libpq may use .pgpass). */
static PGconn *
connect_once(const ConnectOptions *opts, const char *password)
{
	const char *keywords[] = {"host", "port", "user", "password", "dbname",
	"fallback_application_name", NULL};
	const char *values[] = {opts->host, opts->port, opts->username, password,
	opts->conninfo, "sfcache-advisor", NULL};

	return PQconnectdbParams(keywords, values, true);
}

/* "Password: " or, as psql says it, "Password for user NAME: ". */
static char *
prompt_password(const char *user)
{
	char	   *prompt;
	char	   *password;

	if (user != NULL)
		prompt = psprintf("Password for user %s: ", user);
	else
		prompt = pg_strdup("Password: ");
	password = simple_prompt(prompt, false);

	free(prompt);
	return password;
}

/*
 * Open a connection, prompting for a password as psql does: first if -W,
 * again if the server asks for one and -w was not given. Values given as
 * options override those of the conninfo string, which overrides PG*
 * variables. Returns NULL (the reason logged) on failure, with the exit
 * code in *status.
 */
PGconn *
advisor_connect(const ConnectOptions *opts, int *status)
{
	char	   *password = NULL;
	PGconn	   *conn;
	PGresult   *res;
	bool		ok;

	if (opts->prompt_password == TRI_YES)
		password = prompt_password(opts->username);
	conn = connect_once(opts, password);
	if (conn != NULL && PQstatus(conn) == CONNECTION_BAD &&
		PQconnectionNeedsPassword(conn) && password == NULL &&
		opts->prompt_password != TRI_NO)
	{
		password = prompt_password(PQuser(conn));
		PQfinish(conn);
		conn = connect_once(opts, password);
	}
	free(password);
	if (conn == NULL || PQstatus(conn) != CONNECTION_OK)
	{
		pg_log_error("could not connect: %s",
					 conn ? PQerrorMessage(conn) : "out of memory");
		if (conn != NULL && PQconnectionNeedsPassword(conn) &&
			opts->prompt_password == TRI_NO)
			pg_log_error_hint("The server asks for a password and --no-password was given; use ~/.pgpass, PGPASSWORD or -W.");
		PQfinish(conn);
		*status = ADVISOR_EXIT_CONNECT;
		return NULL;
	}
	SetCancelConn(conn);

	res = PQexec(conn, clear_search_path_sql);
	ok = PQresultStatus(res) == PGRES_TUPLES_OK;
	if (!ok)
		advisor_query_error(conn, "clear search_path", clear_search_path_sql);
	PQclear(res);
	if (!ok)
	{
		advisor_disconnect(conn);
		*status = ADVISOR_EXIT_FAILED;
		return NULL;
	}
	return conn;
}

/* Close the connection main() opened (NULL is fine). */
void
advisor_disconnect(PGconn *conn)
{
	ResetCancelConn();
	PQfinish(conn);
}

/* Log a failed query: what it was for, the server's message, the query. */
void
advisor_query_error(PGconn *conn, const char *what, const char *sql)
{
	pg_log_error("could not %s: %s", what, PQerrorMessage(conn));
	pg_log_error_detail("Query was: %s", sql);
}

/*
 * The same for a failed result; a privilege error gets a hint (the role
 * lacks a grant on the extension's objects).
 */
void
advisor_result_error(PGconn *conn, const PGresult *res, const char *what,
					 const char *sql)
{
	const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);

	advisor_query_error(conn, what, sql);
	if (state != NULL && strcmp(state, "42501") == 0)
		pg_log_error_hint("Role \"%s\" lacks a privilege on sfcache's objects: the advisor needs USAGE on schema sfcache, SELECT on its views and EXECUTE on sfcache.index_advice_search(), which sfcache grants to PUBLIC unless they were revoked.",
						  PQuser(conn));
}

/*
 * Check that sfcache is installed in this database at the advisor's own
 * version, and that the loaded library agrees. Returns 0 and the version
 * (malloc'd) in *version, or the exit code with the reason logged:
 * ADVISOR_EXIT_EXTENSION for a missing or mismatched extension,
 * ADVISOR_EXIT_FAILED when the catalog cannot be read.
 */
int
advisor_check_extension(PGconn *conn, char **version)
{
	PGresult   *res;
	int			status = 0;

	*version = NULL;
	res = PQexec(conn, extension_sql);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		advisor_query_error(conn, "read pg_catalog.pg_extension", extension_sql);
		status = ADVISOR_EXIT_FAILED;
	}
	else if (PQntuples(res) == 0)
	{
		pg_log_error("extension \"sfcache\" is not installed in database \"%s\"",
					 PQdb(conn));
		pg_log_error_hint("Run CREATE EXTENSION sfcache.");
		status = ADVISOR_EXIT_EXTENSION;
	}
	else if (strcmp(PQgetvalue(res, 0, 0), SFCACHE_VERSION) != 0)
	{
		pg_log_error("extension \"sfcache\" is at version %s but this advisor is version %s",
					 PQgetvalue(res, 0, 0), SFCACHE_VERSION);
		pg_log_error_hint("Run ALTER EXTENSION sfcache UPDATE TO '%s' or use the matching advisor.",
						  SFCACHE_VERSION);
		status = ADVISOR_EXIT_EXTENSION;
	}
	PQclear(res);
	if (status != 0)
		return status;

	res = PQexec(conn, library_sql);
	if (PQresultStatus(res) != PGRES_TUPLES_OK &&
		PQresultErrorField(res, PG_DIAG_SQLSTATE) != NULL &&
		strcmp(PQresultErrorField(res, PG_DIAG_SQLSTATE), "42501") == 0)
	{
		/* a privilege missing, not a broken library */
		advisor_result_error(conn, res, "call sfcache.version()", library_sql);
		status = ADVISOR_EXIT_FAILED;
	}
	else if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		pg_log_error("the sfcache library is not usable: %s", PQerrorMessage(conn));
		pg_log_error_detail("Query was: %s", library_sql);
		status = ADVISOR_EXIT_EXTENSION;
	}
	else if (strcmp(PQgetvalue(res, 0, 0), SFCACHE_VERSION) != 0)
	{
		pg_log_error("the loaded sfcache library is version %s but this advisor is version %s",
					 PQgetvalue(res, 0, 0), SFCACHE_VERSION);
		pg_log_error_hint("Restart the server after installing the matching version.");
		status = ADVISOR_EXIT_EXTENSION;
	}
	else
		*version = pg_strdup(PQgetvalue(res, 0, 0));
	PQclear(res);
	return status;
}
