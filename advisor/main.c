/*-------------------------------------------------------------------------
 *
 * main.c
 *		sfcache-advisor's flow: options, connection and version check, the
 *		advisory lock for --apply, reading and consolidating the workload,
 *		naming, writing the chosen format, applying, and the exit code.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include <sys/stat.h>
#include <time.h>

#include "advisor.h"

/* The output stream: stdout, -o FILE, or for django -o DIR: DIR/NAME.py. */
static FILE *
open_output(PGconn *conn, const AdvisorOptions *opts, char **path)
{
	struct stat st;
	FILE	   *out;

	*path = NULL;
	if (opts->output == NULL)
		return stdout;
	if (opts->format == FORMAT_DJANGO && stat(opts->output, &st) == 0 && S_ISDIR(st.st_mode))
	{
		char	   *dep;
		char	   *name = django_name(conn, opts, &dep);

		*path = psprintf("%s/%s.py", opts->output, name);
		free(name);
		free(dep);
	}
	else
		*path = pg_strdup(opts->output);
	if ((out = fopen(*path, "w")) == NULL)
	{
		fprintf(stderr, "sfcache-advisor: could not open \"%s\" for writing: %s\n",
				*path, strerror(errno));
		PQfinish(conn);
		exit(ADVISOR_EXIT_USAGE);
	}
	return out;
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

	if (opts->quiet)
		return;
	for (i = 0; i < w->nadvice; i++)
		merged += w->advice[i].absorbed_by >= 0;
	if (w->nchosen + ttl_count(w) == 0)
		fprintf(stderr, "sfcache-advisor: nothing to suggest");
	else
		fprintf(stderr, "sfcache-advisor: %d index%s and %d cache TTL%s suggested",
				w->nchosen, w->nchosen == 1 ? "" : "es",
				ttl_count(w), ttl_count(w) == 1 ? "" : "s");
	fprintf(stderr, " (%d merged into another, %d left out by the budget, %d left out by the filters)\n",
			merged, w->nbudget_skipped, w->nfiltered);
}

int
main(int argc, char **argv)
{
	AdvisorOptions opts;
	Workload	w = {0};
	PGconn	   *conn;
	FILE	   *out;
	char	   *path;
	int			status;

	advisor_parse_options(argc, argv, &opts);
	conn = advisor_connect(&opts.conn);
	w.ext_version = advisor_check_extension(conn);
	w.dbname = pg_strdup(PQdb(conn));
	w.generated_at = utc_now();
	w.options_text = advisor_options_text(&opts);
	if (opts.apply)
		apply_lock(conn, opts.quiet);

	fetch_workload(conn, &opts, &w);
	if (!opts.no_ttl)
		ttl_fetch(conn, &opts, &w);	/* ttl.c uses fetch.c: not the reverse */
	consolidate(&w, &opts);
	name_indexes(conn, &w);
	fetch_column_stats(conn, &w);

	out = open_output(conn, &opts, &path);
	emit(out, conn, &w, &opts);
	if (fflush(out) != 0 || (out != stdout && fclose(out) != 0))
	{
		fprintf(stderr, "sfcache-advisor: could not write \"%s\": %s\n",
				path ? path : "standard output", strerror(errno));
		PQfinish(conn);
		exit(ADVISOR_EXIT_USAGE);
	}
	summary(&w, &opts);
	status = w.nchosen + ttl_count(&w) > 0 ? ADVISOR_EXIT_SUGGESTED : ADVISOR_EXIT_NOTHING;
	if (opts.apply)
	{
		int			applied = apply_migration(conn, &w, &opts);

		if (applied == ADVISOR_EXIT_USAGE)
			status = applied;
	}
	free(path);
	free(opts.tables);
	workload_free(&w);
	PQfinish(conn);
	return status;
}
