/*-------------------------------------------------------------------------
 *
 * main.c
 *		sfcache-advisor's flow: options, connection and version check, the
 *		advisory lock for --apply, reading and consolidating the workload,
 *		naming, writing the chosen format, applying, and the exit code.
 *
 * This is the one place that exits (and closes the connection): every step
 * logs its own failure (common/logging.h) and returns, and main() exits
 * with the documented code (advisor.h): 0 when it did its job, with or
 * without suggestions, 1 with --check when there is something to suggest,
 * 6 with --check when the role cannot see other roles' statements. Ctrl-C
 * cancels the running query (fe_utils/cancel.h), which then fails as any
 * query does. -q leaves errors only: the logging level, not each caller.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include <sys/stat.h>
#include <time.h>

#include "common/logging.h"
#include "fe_utils/cancel.h"

#include "advisor.h"

/*
 * The output stream: stdout, -o FILE, or for django -o DIR: DIR/NAME.py.
 * NULL on failure (logged).
 */
static FILE *
open_output(const Workload *w, const AdvisorOptions *opts, char **path)
{
	struct stat st;
	FILE	   *out;

	*path = NULL;
	if (opts->output == NULL)
		return stdout;
	if (opts->format == FORMAT_DJANGO && stat(opts->output, &st) == 0 && S_ISDIR(st.st_mode))
		*path = psprintf("%s/%s.py", opts->output, w->migration_name);
	else
		*path = pg_strdup(opts->output);
	if ((out = fopen(*path, "w")) == NULL)
		pg_log_error("could not open \"%s\" for writing: %m", *path);
	return out;
}

/* Flush and close the output; false on failure (logged). */
static bool
close_output(FILE *out, const char *path)
{
	if (fflush(out) != 0 || (out != stdout && fclose(out) != 0))
	{
		pg_log_error("could not write \"%s\": %m", path ? path : "standard output");
		return false;
	}
	return true;
}

static char *
utc_now(void)
{
	char		buf[64];
	time_t		now = time(NULL);
	struct tm	tm;

	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", &tm);
	return pg_strdup(buf);
}

static void
emit(FILE *out, PGconn *conn, const Workload *w, const AdvisorOptions *opts)
{
	if (opts->format == FORMAT_DJANGO)
		emit_django(out, conn, w, opts);
	else if (opts->format == FORMAT_JSON)
		emit_json(out, conn, w, opts);
	else
		emit_sql(out, conn, w, opts);
}

static void
summary(const Workload *w, const AdvisorOptions *opts)
{
	int			merged = 0;
	int			i;
	char		counts[128];

	if (opts->quiet)
		return;
	for (i = 0; i < w->nadvice; i++)
		merged += w->advice[i].absorbed_by >= 0;
	snprintf(counts, sizeof(counts),
			 "(%d merged into another, %d left out by the budget, %d left out by the filters)",
			 merged, w->nbudget_skipped, w->nfiltered);
	if (w->nchosen + cache_settings_count(w) == 0)
		pg_log_info("nothing to suggest %s", counts);
	else
		pg_log_info("%d index%s and %d cache setting%s suggested %s",
					w->nchosen, w->nchosen == 1 ? "" : "es",
					cache_settings_count(w), cache_settings_count(w) == 1 ? "" : "s", counts);
}

/*
 * The extension shows other roles' recorded statements only to members of
 * pg_read_all_stats: another role's advice covers its own statements only.
 * Then a warning, and the run goes on; but --check would pass over
 * statements it cannot see (a CI job passing forever), so it fails with
 * ADVISOR_EXIT_PARTIAL, unless --allow-partial-visibility accepts that.
 * Returns ADVISOR_EXIT_OK to go on, or the exit code (logged).
 */
static int
check_visibility(PGconn *conn, const AdvisorOptions *opts)
{
	PGresult   *res = advisor_query(conn, "check membership in pg_read_all_stats",
									"SELECT pg_catalog.pg_has_role('pg_read_all_stats', 'USAGE'), CURRENT_USER",
									0, NULL);
	const char *role;
	int			status = ADVISOR_EXIT_OK;

	if (res == NULL)
		return ADVISOR_EXIT_FAILED;
	role = PQgetvalue(res, 0, 1);
	if (PQgetvalue(res, 0, 0)[0] != 't' && opts->check && !opts->allow_partial)
	{
		pg_log_error("role \"%s\" sees only its own statements: --check cannot vouch for other roles' statements",
					 role);
		pg_log_error_detail("The sfcache extension shows other roles' recorded statements only to members of pg_read_all_stats.");
		pg_log_error_hint("Grant it pg_read_all_stats (GRANT pg_read_all_stats TO %s), run the advisor as a member of pg_read_all_stats, or pass --allow-partial-visibility to check its own statements only.",
						  role);
		status = ADVISOR_EXIT_PARTIAL;
	}
	else if (PQgetvalue(res, 0, 0)[0] != 't')
	{
		pg_log_warning("role \"%s\" sees only its own statements: other roles' recorded statements are left out of the advice",
					   role);
		pg_log_warning_hint("Grant it pg_read_all_stats (GRANT pg_read_all_stats TO %s), or run the advisor as a member of pg_read_all_stats, to advise on every role's statements.",
							role);
	}
	PQclear(res);
	return status;
}

/* false (and a message) once Ctrl-C was pressed. */
static bool
not_canceled(void)
{
	if (CancelRequested)
		pg_log_error("canceled by the user");
	return !CancelRequested;
}

/*
 * Read, choose, name and write; then apply if asked. Returns the exit code;
 * every failure is logged where it happens.
 */
static int
run(PGconn *conn, const AdvisorOptions *opts, Workload *w)
{
	FILE	   *out;
	char	   *path;
	bool		ok;
	int			status;

	if ((status = check_visibility(conn, opts)) != ADVISOR_EXIT_OK)
		return status;
	if (opts->apply && !apply_lock(conn, opts->quiet))
		return ADVISOR_EXIT_FAILED;
	/* cache_settings.c and owners.c use fetch.c, not the reverse: read here */
	if (!fetch_workload(conn, opts, w) || !owners_read(conn, w) ||
		(!opts->no_cache_settings && !cache_settings_fetch(conn, opts, w)) ||
		(!opts->no_cache_settings && !observe_fetch(conn, opts, w)) ||
		!not_canceled())
		return ADVISOR_EXIT_FAILED;
	consolidate(w, opts);
	if (!name_indexes(conn, w) || !fetch_column_stats(conn, w) ||
		(opts->format == FORMAT_DJANGO && !django_prepare(conn, opts, w)) ||
		!not_canceled())
		return ADVISOR_EXIT_FAILED;

	if ((out = open_output(w, opts, &path)) == NULL)
	{
		free(path);
		return ADVISOR_EXIT_FAILED;
	}
	emit(out, conn, w, opts);
	ok = close_output(out, path) && !advisor_quoting_failed;
	free(path);
	if (!ok || !not_canceled())
		return ADVISOR_EXIT_FAILED;
	summary(w, opts);
	status = ADVISOR_EXIT_OK;
	if (opts->check && w->nchosen + cache_settings_count(w) > 0)
		status = ADVISOR_EXIT_CHECK;
	if (opts->apply && !apply_migration(conn, w, opts))
		status = ADVISOR_EXIT_FAILED;
	return status;
}

int
main(int argc, char **argv)
{
	AdvisorOptions opts;
	Workload	w = {0};
	PGconn	   *conn;
	int			status;

	pg_logging_init(argv[0]);
	if ((status = advisor_parse_options(argc, argv, &opts)) >= 0)
	{
		free(opts.tables);
		return status;
	}
	if (opts.quiet)
		pg_logging_set_level(PG_LOG_ERROR);
	setup_cancel_handler(NULL);

	conn = advisor_connect(&opts.conn, &status);
	if (conn != NULL && (status = advisor_check_extension(conn, &w.ext_version)) == 0)
	{
		w.dbname = pg_strdup(PQdb(conn));
		w.generated_at = utc_now();
		w.options_text = advisor_options_text(&opts);
		status = run(conn, &opts, &w);
	}
	free(opts.tables);
	cache_settings_free(&w);
	observe_free(&w);
	workload_free(&w);
	advisor_disconnect(conn);
	return status;
}
