/*-------------------------------------------------------------------------
 *
 * evidence.c
 *		The comment lines that justify one suggested index: the statements
 *		it serves (with their text and cache counters when sfcache.statements
 *		has them), its marginal benefit in the configuration the search
 *		chose (its share of the saving, and of the workload's) and upkeep,
 *		calls, rows scanned → returned, estimated cost before →
 *		after, estimated size, the key columns' n_distinct from pg_stats,
 *		the suggestions merged into it and the indexes it makes redundant;
 *		the result cache windows starved for want of it (window advice,
 *		which has no estimated cost: rows and time scanned instead).
 *		Lines come back without a comment marker, safe for one (no newline).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include "advisor.h"

#define QUERY_TEXT_MAX	120

static void
add_line(StrList *lines, PQExpBuffer b)
{
	PQExpBufferData clean;

	initPQExpBuffer(&clean);
	append_comment_text(&clean, b->data, 0);
	strlist_add_nocopy(lines, clean.data);
	resetPQExpBuffer(b);
}

static const StatementInfo *
find_statement(const Workload *w, const char *queryid)
{
	int			i;

	for (i = 0; i < w->nstmts; i++)
		if (strcmp(w->stmts[i].queryid, queryid) == 0)
			return &w->stmts[i];
	return NULL;
}

static void
statement_lines(const Workload *w, const Advice *a, PQExpBuffer b, StrList *lines)
{
	int			i;

	appendPQExpBuffer(b, "statements: %d, %lld calls (sampled)", a->queryids.n, a->calls);
	add_line(lines, b);
	for (i = 0; i < a->queryids.n; i++)
	{
		const StatementInfo *s = find_statement(w, a->queryids.items[i]);

		appendPQExpBuffer(b, "  query id %s", a->queryids.items[i]);
		if (s != NULL)
		{
			appendPQExpBuffer(b, " (result cache: %lld calls, %lld hits): ", s->calls, s->hits);
			append_comment_text(b, s->query, QUERY_TEXT_MAX);
		}
		add_line(lines, b);
	}
}

static const ColumnStat *
find_stat(const Workload *w, const Advice *a, const char *column)
{
	int			i;

	for (i = 0; i < w->nstats; i++)
		if (strcmp(w->stats[i].column, column) == 0 &&
			strcmp(w->stats[i].schema, a->schema) == 0 &&
			strcmp(w->stats[i].table, a->table) == 0)
			return &w->stats[i];
	return NULL;
}

static void
key_line(const Workload *w, const Advice *a, PQExpBuffer b, StrList *lines)
{
	int			i;

	appendPQExpBufferStr(b, "key columns:");
	for (i = 0; i < a->def.keys.n; i++)
	{
		const char *key = a->def.keys.items[i];
		char	   *col = key_unquote(key);
		const ColumnStat *s = key_is_column(key) ? find_stat(w, a, col) : NULL;

		appendPQExpBuffer(b, "%s %s", i > 0 ? "," : "", key);
		if (s != NULL)
			appendPQExpBuffer(b, " (n_distinct %g)", s->n_distinct);
		free(col);
	}
	if (a->def.pred != NULL)
		appendPQExpBuffer(b, "; partial: WHERE %s", a->def.pred);
	add_line(lines, b);
}

static void
redundant_lines(const Workload *w, const Advice *a, int replace, PQExpBuffer b,
				StrList *lines)
{
	int			i;

	for (i = 0; i < a->absorbed.n; i++)
	{
		appendPQExpBuffer(b, "also serves the statements of the suggestion %s (a prefix of this one)",
						  a->absorbed.items[i]);
		add_line(lines, b);
	}
	for (i = 0; i < a->nredundant; i++)
	{
		const ExistingIndex *e = &w->existing[a->redundant[i]];

		appendPQExpBuffer(b, "makes redundant: existing index %s (%s), ", e->name,
						  e->tail ? e->tail : "?");
		owner_text(e, b);
		if (e->kept)
		{
			appendPQExpBufferStr(b, ": kept; ");
			owner_model_change(e, b);
		}
		else
			appendPQExpBuffer(b, ": %s", replace ? "dropped after the CREATE" :
							  "run with --replace to drop it");
		add_line(lines, b);
	}
}

static void
window_lines(const Advice *a, PQExpBuffer b, StrList *lines)
{
	if (a->windows_starved == 0)
		return;
	appendPQExpBuffer(b, "result cache windows starved for want of it: %lld on %s (each a point: no later execution with another constant was served from it)",
					  a->windows_starved, a->window_column);
	add_line(lines, b);
}

/* The evidence of a window suggestion, which has no estimated cost. */
static void
window_evidence(const Workload *w, const Advice *a, int replace, StrList *lines)
{
	PQExpBufferData b;
	char		size[64];

	initPQExpBuffer(&b);
	appendPQExpBuffer(&b, "index %s on %s.%s (window advice)", a->name, a->schema, a->table);
	add_line(lines, &b);
	window_lines(a, &b, lines);
	statement_lines(w, a, &b, lines);
	appendPQExpBuffer(&b, "rows scanned on %s by the sampled calls: %lld in %.1f ms",
					  a->window_column, a->rows_scanned, a->time_ms);
	add_line(lines, &b);
	format_size(size, sizeof(size), a->size);
	appendPQExpBuffer(&b, "estimated size: %s", size);
	add_line(lines, &b);
	key_line(w, a, &b, lines);
	redundant_lines(w, a, replace, &b, lines);
	termPQExpBuffer(&b);
}

/* The evidence of suggestion a, one comment line per entry. */
void
migration_evidence(const Workload *w, const Advice *a, int replace, StrList *lines)
{
	PQExpBufferData b;
	char		size[64];

	if (a->window_only)
	{
		window_evidence(w, a, replace, lines);
		return;
	}
	initPQExpBuffer(&b);
	appendPQExpBuffer(&b, "index %s on %s.%s", a->name, a->schema, a->table);
	add_line(lines, &b);
	statement_lines(w, a, &b, lines);
	appendPQExpBuffer(&b, "rows scanned → returned: %lld → %lld", a->rows_scanned, a->rows_returned);
	add_line(lines, &b);
	appendPQExpBuffer(&b, "estimated cost before → after: %.2f → %.2f (%.0f%% less)",
					  a->cost_before, a->cost_after, a->benefit * 100.0);
	add_line(lines, &b);
	appendPQExpBuffer(&b, "marginal benefit in the chosen configuration: %.2f",
					  a->marginal);
	if (w->search.done && w->search.cost_before > w->search.cost_after)
		appendPQExpBuffer(&b, " (%.0f%% of the configuration's saving)",
						  100.0 * a->marginal / (w->search.cost_before - w->search.cost_after));
	appendPQExpBuffer(&b, "; upkeep under the recorded writes: %.2f", a->upkeep);
	add_line(lines, &b);
	format_size(size, sizeof(size), a->size);
	appendPQExpBuffer(&b, "estimated size: %s", size);
	add_line(lines, &b);
	key_line(w, a, &b, lines);
	window_lines(a, &b, lines);
	redundant_lines(w, a, replace, &b, lines);
	termPQExpBuffer(&b);
}
