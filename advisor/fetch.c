/*-------------------------------------------------------------------------
 *
 * fetch.c
 *		Reading the workload: sfcache.index_advice_search() with the
 *		budgets of --max-size and --max-indexes, so that the extension's
 *		configuration search spends them (filtered by --min-calls,
 *		--min-benefit and --table), the search's work, sfcache.window_advice
 *		(fetch_windows), the existing indexes from pg_index with
 *		the constraints they back, sfcache.statements for the evidence and
 *		pg_stats for the key columns. The index definitions are split after
 *		"USING" on the server, by comparing with the prefix format('%I')
 *		builds, so that no name can be mistaken for SQL.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include <fnmatch.h>

#include "advisor.h"

static const char *const advice_sql =
"SELECT a.schemaname, a.tablename, a.index_name, a.replaces, a.calls,\n"
"  a.rows_scanned, a.rows_returned, pg_catalog.array_to_string(a.queryids, ' '),\n"
"  a.cost_before, a.cost_after, COALESCE(a.estimated_size, 0),\n"
"  CASE WHEN pg_catalog.starts_with(a.index_ddl, x.p)\n"
"       THEN pg_catalog.substr(a.index_ddl, pg_catalog.length(x.p) + 1) END,\n"
"  a.marginal_benefit, a.upkeep\n"
"FROM sfcache.index_advice_search($1::bigint, $2::integer) a,\n"
"  LATERAL (SELECT pg_catalog.format('CREATE INDEX CONCURRENTLY IF NOT EXISTS %I ON %I.%I USING ',\n"
"           a.index_name, a.schemaname, a.tablename)) AS x(p)\n"
"ORDER BY 1, 2, a.index_ddl";

static const char *const window_sql =
"SELECT a.schemaname, a.tablename, a.index_name, a.column_name, a.calls,\n"
"  a.rows_scanned, a.windows_starved, pg_catalog.array_to_string(a.queryids, ' '),\n"
"  a.time_ms, COALESCE(a.estimated_size, 0),\n"
"  CASE WHEN pg_catalog.starts_with(a.index_ddl, x.p)\n"
"       THEN pg_catalog.substr(a.index_ddl, pg_catalog.length(x.p) + 1) END\n"
"FROM sfcache.window_advice a,\n"
"  LATERAL (SELECT pg_catalog.format('CREATE INDEX CONCURRENTLY IF NOT EXISTS %I ON %I.%I USING ',\n"
"           a.index_name, a.schemaname, a.tablename)) AS x(p)\n"
"ORDER BY 1, 2, 4";

static const char *const work_sql =
"SELECT statements, candidates, plannings, max_plannings, truncated, cost_before, cost_after\n"
"FROM sfcache.index_advice_work() WHERE statements IS NOT NULL";

static const char *const existing_sql =
"SELECT n.nspname, t.relname, i.relname, x.indisunique, x.indisvalid,\n"
"  EXISTS (SELECT 1 FROM pg_catalog.pg_constraint c WHERE c.conindid = x.indexrelid),\n"
"  CASE WHEN pg_catalog.starts_with(d.def, d.p)\n"
"       THEN pg_catalog.substr(d.def, pg_catalog.length(d.p) + 1) END,\n"
"  (SELECT c.conname FROM pg_catalog.pg_constraint c WHERE c.conindid = x.indexrelid\n"
"   ORDER BY c.conname LIMIT 1)\n"
"FROM pg_catalog.pg_index x\n"
"  JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid\n"
"  JOIN pg_catalog.pg_class t ON t.oid = x.indrelid\n"
"  JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace,\n"
"  LATERAL (SELECT pg_catalog.pg_get_indexdef(x.indexrelid) AS def,\n"
"           pg_catalog.format('CREATE %sINDEX %I ON %I.%I USING ',\n"
"             CASE WHEN x.indisunique THEN 'UNIQUE ' END, i.relname, n.nspname, t.relname) AS p) d\n"
"WHERE n.nspname <> 'information_schema' AND n.nspname !~ '^pg_'\n"
"ORDER BY 1, 2, 3";

static const char *const statements_sql =
"SELECT queryid::text, sum(calls)::bigint, sum(hits)::bigint, min(query)\n"
"FROM sfcache.statements GROUP BY queryid ORDER BY queryid";

static const char *const stats_sql =
"SELECT attname, n_distinct FROM pg_catalog.pg_stats\n"
"WHERE schemaname = $1 AND tablename = $2 ORDER BY attname";

static void advice_free(Advice *a);

/*
 * Run one statement (text parameters). On failure, log "could not <what>"
 * with the server's message and the query, and return NULL.
 */
PGresult *
advisor_query(PGconn *conn, const char *what, const char *sql, int nparams,
			  const char *const *params)
{
	PGresult   *res = PQexecParams(conn, sql, nparams, NULL, params, NULL, NULL, 0);

	if (PQresultStatus(res) != PGRES_TUPLES_OK &&
		PQresultStatus(res) != PGRES_COMMAND_OK)
	{
		advisor_result_error(conn, res, what, sql);
		PQclear(res);
		return NULL;
	}
	return res;
}

static long long
get_ll(PGresult *res, int row, int col)
{
	return PQgetisnull(res, row, col) ? 0 : strtoll(PQgetvalue(res, row, col), NULL, 10);
}

static double
get_double(PGresult *res, int row, int col)
{
	return PQgetisnull(res, row, col) ? 0 : strtod(PQgetvalue(res, row, col), NULL);
}

/* Whether --table lets schema.table through (no pattern: all). */
int
table_selected(const AdvisorOptions *opts, const char *schema, const char *table)
{
	int			i;
	int			ok = 0;

	for (i = 0; i < opts->ntables && !ok; i++)
	{
		if (strchr(opts->tables[i], '.') != NULL)
		{
			char	   *full = psprintf("%s.%s", schema, table);

			ok = fnmatch(opts->tables[i], full, 0) == 0;
			free(full);
		}
		else
			ok = fnmatch(opts->tables[i], table, 0) == 0;
	}
	return opts->ntables == 0 || ok;
}

/* The query ids of a suggestion, given space-separated. */
static void
add_queryids(Advice *a, const char *list)
{
	char	   *ids = pg_strdup(list);
	char	   *save = NULL;

	for (char *tok = strtok_r(ids, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		strlist_add(&a->queryids, tok);
	free(ids);
}

/* Copy row i of the advice result into a, unless the options filter it out. */
static int
advice_from_row(PGresult *res, int i, const AdvisorOptions *opts, Advice *a)
{
	memset(a, 0, sizeof(*a));
	a->calls = get_ll(res, i, 4);
	a->cost_before = get_double(res, i, 8);
	a->cost_after = get_double(res, i, 9);
	a->benefit = a->cost_before > 0 ? 1.0 - a->cost_after / a->cost_before : 0;
	if (a->calls < opts->min_calls || a->benefit < opts->min_benefit ||
		!table_selected(opts, PQgetvalue(res, i, 0), PQgetvalue(res, i, 1)) ||
		PQgetisnull(res, i, 11) || !indexdef_parse(PQgetvalue(res, i, 11), &a->def))
	{
		indexdef_free(&a->def);
		return 0;
	}
	a->schema = pg_strdup(PQgetvalue(res, i, 0));
	a->table = pg_strdup(PQgetvalue(res, i, 1));
	a->ext_name = pg_strdup(PQgetvalue(res, i, 2));
	a->replaces = PQgetisnull(res, i, 3) ? NULL : pg_strdup(PQgetvalue(res, i, 3));
	a->rows_scanned = get_ll(res, i, 5);
	a->rows_returned = get_ll(res, i, 6);
	a->size = get_ll(res, i, 10);
	a->marginal = get_double(res, i, 12);
	a->upkeep = get_double(res, i, 13);
	a->absorbed_by = -1;
	add_queryids(a, PQgetvalue(res, i, 7));
	return 1;
}

/*
 * With a budget, how many more indexes the search would choose without it
 * (those the filters let through): the suggestions the budget left out.
 */
static bool
count_without_budget(PGconn *conn, const AdvisorOptions *opts, Workload *w)
{
	const char *params[2] = {NULL, NULL};
	PGresult   *res;
	Advice		a;
	int			n = 0;
	int			i;

	if (opts->max_size < 0 && opts->max_indexes < 0)
		return true;
	res = advisor_query(conn, "read sfcache.index_advice_search()", advice_sql, 2, params);
	if (res == NULL)
		return false;
	for (i = 0; i < PQntuples(res); i++)
	{
		if (advice_from_row(res, i, opts, &a))
		{
			n++;
			advice_free(&a);
		}
	}
	PQclear(res);
	w->nbudget_left = n;
	return true;
}

static bool
fetch_advice(PGconn *conn, const AdvisorOptions *opts, Workload *w)
{
	char		size[32];
	char		count[32];
	const char *params[2] = {NULL, NULL};
	PGresult   *res;
	int			i;

	if (opts->max_size >= 0)
	{
		snprintf(size, sizeof(size), "%lld", opts->max_size);
		params[0] = size;
	}
	if (opts->max_indexes >= 0)
	{
		snprintf(count, sizeof(count), "%d", opts->max_indexes);
		params[1] = count;
	}
	res = advisor_query(conn, "read sfcache.index_advice_search()", advice_sql, 2, params);
	if (res == NULL || !count_without_budget(conn, opts, w))
	{
		PQclear(res);
		return false;
	}
	w->advice = pg_malloc0(sizeof(Advice) * (PQntuples(res) + 1));
	for (i = 0; i < PQntuples(res); i++)
	{
		if (advice_from_row(res, i, opts, &w->advice[w->nadvice]))
			w->nadvice++;
		else
			w->nfiltered++;
	}
	PQclear(res);
	w->nbudget_left = w->nbudget_left > w->nadvice ? w->nbudget_left - w->nadvice : 0;
	res = advisor_query(conn, "read sfcache.index_advice_work()", work_sql, 0, NULL);
	if (res == NULL)
		return false;
	if (PQntuples(res) == 1)
	{
		w->search.statements = (int) get_ll(res, 0, 0);
		w->search.candidates = (int) get_ll(res, 0, 1);
		w->search.plannings = get_ll(res, 0, 2);
		w->search.max_plannings = get_ll(res, 0, 3);
		w->search.truncated = PQgetvalue(res, 0, 4)[0] == 't';
		w->search.cost_before = get_double(res, 0, 5);
		w->search.cost_after = get_double(res, 0, 6);
		w->search.done = 1;
	}
	PQclear(res);
	return true;
}

static bool
fetch_existing(PGconn *conn, Workload *w)
{
	PGresult   *res = advisor_query(conn, "read the existing indexes from pg_catalog.pg_index",
									existing_sql, 0, NULL);
	int			i;

	if (res == NULL)
		return false;
	w->existing = pg_malloc0(sizeof(ExistingIndex) * (PQntuples(res) + 1));
	for (i = 0; i < PQntuples(res); i++)
	{
		ExistingIndex *e = &w->existing[w->nexisting++];

		e->schema = pg_strdup(PQgetvalue(res, i, 0));
		e->table = pg_strdup(PQgetvalue(res, i, 1));
		e->name = pg_strdup(PQgetvalue(res, i, 2));
		e->unique = PQgetvalue(res, i, 3)[0] == 't';
		e->valid = PQgetvalue(res, i, 4)[0] == 't';
		e->constraint = PQgetvalue(res, i, 5)[0] == 't';
		if (!PQgetisnull(res, i, 7))
			e->constraint_name = pg_strdup(PQgetvalue(res, i, 7));
		if (!PQgetisnull(res, i, 6))
		{
			e->tail = pg_strdup(PQgetvalue(res, i, 6));
			if (!indexdef_parse(e->tail, &e->def))
			{
				indexdef_free(&e->def);
				memset(&e->def, 0, sizeof(e->def));
			}
		}
	}
	PQclear(res);
	return true;
}

/* sfcache.statements is optional evidence: without it, only query ids show. */
static void
fetch_statements(PGconn *conn, Workload *w)
{
	PGresult   *res = PQexec(conn, statements_sql);
	int			i;

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		PQclear(res);
		return;
	}
	w->stmts = pg_malloc0(sizeof(StatementInfo) * (PQntuples(res) + 1));
	for (i = 0; i < PQntuples(res); i++)
	{
		StatementInfo *s = &w->stmts[w->nstmts++];

		s->queryid = pg_strdup(PQgetvalue(res, i, 0));
		s->calls = get_ll(res, i, 1);
		s->hits = get_ll(res, i, 2);
		s->query = pg_strdup(PQgetvalue(res, i, 3));
	}
	PQclear(res);
}

/* Copy row i of the window advice into a, unless the options filter it out. */
static int
window_from_row(PGresult *res, int i, const AdvisorOptions *opts, Advice *a)
{
	memset(a, 0, sizeof(*a));
	a->windows_starved = get_ll(res, i, 6);
	if (a->windows_starved < opts->min_calls ||
		!table_selected(opts, PQgetvalue(res, i, 0), PQgetvalue(res, i, 1)) ||
		PQgetisnull(res, i, 10) || !indexdef_parse(PQgetvalue(res, i, 10), &a->def))
	{
		indexdef_free(&a->def);
		return 0;
	}
	a->window_only = 1;
	a->schema = pg_strdup(PQgetvalue(res, i, 0));
	a->table = pg_strdup(PQgetvalue(res, i, 1));
	a->ext_name = pg_strdup(PQgetvalue(res, i, 2));
	a->window_column = pg_strdup(PQgetvalue(res, i, 3));
	a->calls = get_ll(res, i, 4);
	a->rows_scanned = get_ll(res, i, 5);
	a->time_ms = get_double(res, i, 8);
	a->size = get_ll(res, i, 9);
	a->absorbed_by = -1;
	add_queryids(a, PQgetvalue(res, i, 7));
	return 1;
}

/*
 * The window advice (--min-calls applies to the windows starved;
 * --min-benefit does not: it has no estimated cost), after the index
 * advice, so that an identical suggestion of the search absorbs it.
 */
bool
fetch_windows(PGconn *conn, const AdvisorOptions *opts, Workload *w)
{
	PGresult   *res = advisor_query(conn, "read sfcache.window_advice", window_sql, 0, NULL);
	int			i;

	if (res == NULL)
		return false;
	w->advice = pg_realloc(w->advice, sizeof(Advice) * (w->nadvice + PQntuples(res) + 1));
	for (i = 0; i < PQntuples(res); i++)
	{
		if (window_from_row(res, i, opts, &w->advice[w->nadvice]))
			w->nadvice++;
		else
			w->nfiltered++;
	}
	PQclear(res);
	return true;
}

/* pg_stats of the tables that keep a suggestion, for the key columns. */
bool
fetch_column_stats(PGconn *conn, Workload *w)
{
	int			i;
	int			j;

	for (i = 0; i < w->nadvice; i++)
	{
		const Advice *a = &w->advice[i];
		const char *params[2] = {a->schema, a->table};
		PGresult   *res;
		char	   *what;

		for (j = 0; j < i; j++)
			if (strcmp(w->advice[j].schema, a->schema) == 0 &&
				strcmp(w->advice[j].table, a->table) == 0)
				break;
		if (j < i || !a->chosen)
			continue;
		what = psprintf("read pg_catalog.pg_stats of table \"%s.%s\"", a->schema, a->table);
		res = advisor_query(conn, what, stats_sql, 2, params);
		free(what);
		if (res == NULL)
			return false;
		w->stats = pg_realloc(w->stats, sizeof(ColumnStat) * (w->nstats + PQntuples(res) + 1));
		for (j = 0; j < PQntuples(res); j++)
		{
			ColumnStat *s = &w->stats[w->nstats++];

			s->schema = pg_strdup(a->schema);
			s->table = pg_strdup(a->table);
			s->column = pg_strdup(PQgetvalue(res, j, 0));
			s->n_distinct = get_double(res, j, 1);
		}
		PQclear(res);
	}
	return true;
}

/*
 * Read the advice, existing indexes and statements: not the column
 * statistics (which need the choice made) nor the cache settings
 * (cache_settings.c).
 */
bool
fetch_workload(PGconn *conn, const AdvisorOptions *opts, Workload *w)
{
	if (!fetch_advice(conn, opts, w) || !fetch_windows(conn, opts, w) ||
		!fetch_existing(conn, w))
		return false;
	fetch_statements(conn, w);
	return true;
}

static void
advice_free(Advice *a)
{
	free(a->schema);
	free(a->table);
	free(a->ext_name);
	free(a->replaces);
	free(a->window_column);
	free(a->name);
	free(a->redundant);
	indexdef_free(&a->def);
	strlist_free(&a->queryids);
	strlist_free(&a->absorbed);
}

/* Free what fetch_workload() and the later steps allocated. */
void
workload_free(Workload *w)
{
	int			i;

	for (i = 0; i < w->nadvice; i++)
		advice_free(&w->advice[i]);
	for (i = 0; i < w->nexisting; i++)
	{
		free(w->existing[i].schema);
		free(w->existing[i].table);
		free(w->existing[i].name);
		free(w->existing[i].tail);
		free(w->existing[i].constraint_name);
		free(w->existing[i].django_app);
		indexdef_free(&w->existing[i].def);
	}
	for (i = 0; i < w->nstmts; i++)
	{
		free(w->stmts[i].queryid);
		free(w->stmts[i].query);
	}
	for (i = 0; i < w->nstats; i++)
	{
		free(w->stats[i].schema);
		free(w->stats[i].table);
		free(w->stats[i].column);
	}
	free(w->advice);
	free(w->existing);
	free(w->stmts);
	free(w->stats);
	free(w->dbname);
	free(w->ext_version);
	free(w->generated_at);
	free(w->options_text);
	free(w->migration_name);
	free(w->dependency);
}
