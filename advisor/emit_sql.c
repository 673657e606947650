/*-------------------------------------------------------------------------
 *
 * emit_sql.c
 *		--format=sql: a header (database, time, extension version, options,
 *		observe mode's forecast when something was observed), then per chosen index a comment block with its evidence and its
 *		statements, then the cache settings section (per setting its
 *		evidence and statement). --down writes the reverse, in the
 *		reverse order. The file runs with psql as it is: every statement
 *		stands alone, outside any transaction (CREATE INDEX CONCURRENTLY);
 *		the cache settings sit inside psql's \if on pg_extension, so the
 *		file applies, once or twice, on a database without sfcache too.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include "advisor.h"

/* Write "<prefix><text>\n" with text made safe for a comment. */
void
emit_comment(FILE *out, const char *prefix, const char *text)
{
	PQExpBufferData b;

	initPQExpBuffer(&b);
	append_comment_text(&b, text, 0);
	fprintf(out, "%s%s\n", prefix, b.data);
	termPQExpBuffer(&b);
}

/* Observe mode's forecast (observe.c), if anything was observed. */
static void
emit_observe_forecast(FILE *out, const char *prefix, const Workload *w)
{
	StrList		lines = {0};
	int			i;

	observe_forecast_lines(w, &lines);
	for (i = 0; i < lines.n; i++)
		fprintf(out, "%s%s\n", prefix, lines.items[i]);
	strlist_free(&lines);
}

/* The header lines shared by sql and django (comment marker in prefix). */
void
emit_header(FILE *out, const char *prefix, const Workload *w, const AdvisorOptions *opts)
{
	char	   *line = psprintf("sfcache-advisor %s, database \"%s\", extension %s",
								SFCACHE_VERSION, w->dbname, w->ext_version);

	emit_comment(out, prefix, line);
	free(line);
	fprintf(out, "%sgenerated %s\n", prefix, w->generated_at);
	line = psprintf("options: %s", w->options_text);
	emit_comment(out, prefix, line);
	free(line);
	if (w->nchosen == 0 && cache_settings_count(w) == 0)
		fprintf(out, "%snothing to suggest\n", prefix);
	else
		fprintf(out, "%s%s: %d index%s, %d cache setting%s\n", prefix,
				opts->down ? "reverse migration" : "migration",
				w->nchosen, w->nchosen == 1 ? "" : "es",
				cache_settings_count(w), cache_settings_count(w) == 1 ? "" : "s");
	if (w->nbudget_skipped > 0)
		fprintf(out, "%s%d more suggestion%s left out by --max-indexes or --max-size\n", prefix,
				w->nbudget_skipped, w->nbudget_skipped == 1 ? "" : "s");
	if (w->search.done)
		fprintf(out, "%sconfiguration search: %d statements, %d candidates, %lld plannings (bound %lld%s); workload cost %.0f -> %.0f\n",
				prefix, w->search.statements, w->search.candidates, w->search.plannings,
				w->search.max_plannings, w->search.truncated ? ", reached: truncated" : "",
				w->search.cost_before, w->search.cost_after);
	emit_observe_forecast(out, prefix, w);
}

static void
emit_statements(FILE *out, const StrList *stmts)
{
	int			i;

	for (i = 0; i < stmts->n; i++)
		fprintf(out, "%s\n", stmts->items[i]);
}

static void
emit_index(FILE *out, PGconn *conn, const Workload *w, const Advice *a,
		   const AdvisorOptions *opts)
{
	StrList		lines = {0};
	StrList		stmts = {0};
	int			i;

	migration_evidence(w, a, opts->replace, &lines);
	fprintf(out, "\n");
	for (i = 0; i < lines.n; i++)
		fprintf(out, "-- %s\n", lines.items[i]);
	if (opts->down)
		migration_down(conn, w, a, opts->replace, &stmts);
	else
		migration_up(conn, w, a, opts->replace, &stmts);
	emit_statements(out, &stmts);
	strlist_free(&lines);
	strlist_free(&stmts);
}

/* The cache settings, each after its evidence; --down: reversed, in reverse. */
static void
emit_cache_settings(FILE *out, PGconn *conn, const Workload *w, const AdvisorOptions *opts)
{
	PQExpBufferData b;
	int			i;
	int			j;

	if (cache_settings_count(w) == 0)
		return;
	fprintf(out, "\n-- Cache settings: track the key columns of written tables, exclude tables\n"
			"-- whose cached results die before they are read; only where sfcache is installed\n"
			"SELECT EXISTS (SELECT FROM pg_catalog.pg_extension WHERE extname OPERATOR(pg_catalog.=) 'sfcache') AS sfcache_installed \\gset\n"
			"\\if :sfcache_installed\n");
	initPQExpBuffer(&b);
	for (i = 0; i < w->ncache; i++)
	{
		const CacheSetting *s = &w->cache[opts->down ? w->ncache - 1 - i : i];
		StrList		lines = {0};

		cache_setting_evidence(w, s, &lines);
		fprintf(out, "\n");
		for (j = 0; j < lines.n; j++)
			fprintf(out, "-- %s\n", lines.items[j]);
		strlist_free(&lines);
		resetPQExpBuffer(&b);
		cache_setting_sql(conn, s, opts->down, &b);
		fprintf(out, "%s\n", b.data);
	}
	fprintf(out, "\\endif\n");
	termPQExpBuffer(&b);
}

void
emit_sql(FILE *out, PGconn *conn, const Workload *w, const AdvisorOptions *opts)
{
	int			i;

	emit_header(out, "-- ", w, opts);
	fprintf(out, "-- Runs with psql, each statement alone (CREATE INDEX CONCURRENTLY). The indexes\n"
			"-- need nothing from sfcache; the cache settings run only where the extension is\n"
			"-- installed (psql's \\if on pg_extension). Every statement can run twice.\n");
	if (opts->down)
		emit_cache_settings(out, conn, w, opts);
	for (i = 0; i < w->nadvice; i++)
	{
		const Advice *a = &w->advice[opts->down ? w->nadvice - 1 - i : i];

		if (a->chosen)
			emit_index(out, conn, w, a, opts);
	}
	if (!opts->down)
		emit_cache_settings(out, conn, w, opts);
}
