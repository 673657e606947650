/*-------------------------------------------------------------------------
 *
 * emit_json.c
 *		--format=json: the same data for tools. One object: the header
 *		fields, "indexes" (in the order the budget chose them, each with its
 *		name, kind ("search", or "window": from sfcache.window_advice),
 *		table, method, keys, predicate, evidence (with the result cache
 *		windows starved for want of it), the existing indexes it makes
 *		redundant, and its "up" and "down" statements) and
 *		"observe_forecast" when observe mode counted something (observe.c:
 *		reads, served, saved_s_per_hour and the statements), and
 *		"cache_settings" (each with its action, table, column, evidence and
 *		its "up" and "down" statements).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include "advisor.h"

/* A JSON string (UTF-8 passed through, control characters as \u00XX). */
static void
json_str(FILE *out, const char *s)
{
	const unsigned char *p;

	fputc('"', out);
	for (p = (const unsigned char *) s; *p; p++)
	{
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

static void
json_key_str(FILE *out, const char *indent, const char *key, const char *value, int comma)
{
	fprintf(out, "%s\"%s\": ", indent, key);
	if (value == NULL)
		fputs("null", out);
	else
		json_str(out, value);
	fputs(comma ? ",\n" : "\n", out);
}

static void
json_list(FILE *out, const char *indent, const char *key, const StrList *l, int comma)
{
	int			i;

	fprintf(out, "%s\"%s\": [", indent, key);
	for (i = 0; i < l->n; i++)
	{
		if (i > 0)
			fputs(", ", out);
		json_str(out, l->items[i]);
	}
	fputs(comma ? "],\n" : "]\n", out);
}

static void
json_redundant(FILE *out, const Workload *w, const Advice *a)
{
	int			i;

	fputs("      \"makes_redundant\": [", out);
	for (i = 0; i < a->nredundant; i++)
	{
		const ExistingIndex *e = &w->existing[a->redundant[i]];
		PQExpBufferData owner;

		fputs(i > 0 ? ", {\"name\": " : "{\"name\": ", out);
		json_str(out, e->name);
		fputs(", \"definition\": ", out);
		json_str(out, e->tail ? e->tail : "");
		initPQExpBuffer(&owner);
		owner_text(e, &owner);
		fputs(", \"owner\": ", out);
		json_str(out, owner.data);
		fprintf(out, ", \"kept\": %s}", e->kept ? "true" : "false");
		termPQExpBuffer(&owner);
	}
	fputs("],\n", out);
}

static void
json_index(FILE *out, PGconn *conn, const Workload *w, const Advice *a,
		   const AdvisorOptions *opts, int comma)
{
	StrList		up = {0};
	StrList		down = {0};

	migration_up(conn, w, a, opts->replace, &up);
	migration_down(conn, w, a, opts->replace, &down);
	fputs("    {\n", out);
	json_key_str(out, "      ", "name", a->name, 1);
	json_key_str(out, "      ", "kind", a->window_only ? "window" : "search", 1);
	json_key_str(out, "      ", "schema", a->schema, 1);
	json_key_str(out, "      ", "table", a->table, 1);
	json_key_str(out, "      ", "method", a->def.am, 1);
	json_list(out, "      ", "keys", &a->def.keys, 1);
	json_key_str(out, "      ", "predicate", a->def.pred, 1);
	json_list(out, "      ", "query_ids", &a->queryids, 1);
	fprintf(out, "      \"calls\": %lld,\n      \"rows_scanned\": %lld,\n"
			"      \"rows_returned\": %lld,\n      \"cost_before\": %.2f,\n"
			"      \"cost_after\": %.2f,\n      \"benefit\": %.4f,\n"
			"      \"estimated_size\": %lld,\n      \"marginal_benefit\": %.2f,\n"
			"      \"upkeep\": %.2f,\n",
			a->calls, a->rows_scanned, a->rows_returned, a->cost_before,
			a->cost_after, a->benefit, a->size, a->marginal, a->upkeep);
	fprintf(out, "      \"windows_starved\": %lld,\n", a->windows_starved);
	json_key_str(out, "      ", "window_column", a->window_column, 1);
	json_list(out, "      ", "merged_suggestions", &a->absorbed, 1);
	json_redundant(out, w, a);
	json_list(out, "      ", "up", &up, 1);
	json_list(out, "      ", "down", &down, 0);
	fputs(comma ? "    },\n" : "    }\n", out);
	strlist_free(&up);
	strlist_free(&down);
}

static void
json_cache_settings(FILE *out, PGconn *conn, const Workload *w)
{
	PQExpBufferData b;
	int			i;

	initPQExpBuffer(&b);
	fputs("  \"cache_settings\": [\n", out);
	for (i = 0; i < w->ncache; i++)
	{
		const CacheSetting *s = &w->cache[i];
		int			exclude = s->action == CACHE_EXCLUDE;

		fputs("    {\n", out);
		json_key_str(out, "      ", "action", exclude ? "exclude" : "track", 1);
		json_key_str(out, "      ", "schema", s->schema, 1);
		json_key_str(out, "      ", "table", s->table, 1);
		json_key_str(out, "      ", "column", s->column, 1);
		fprintf(out, "      \"writes\": %lld,\n      \"writes_per_minute\": %.2f,\n"
				"      \"calls\": %lld,\n", s->writes, s->writes_per_minute, s->calls);
		json_list(out, "      ", "query_ids", &s->queryids, 1);
		if (exclude)
			fprintf(out, "      \"stores\": %lld,\n      \"hits\": %lld,\n", s->stores, s->hits);
		resetPQExpBuffer(&b);
		cache_setting_sql(conn, s, 0, &b);
		json_key_str(out, "      ", "up", b.data, 1);
		resetPQExpBuffer(&b);
		cache_setting_sql(conn, s, 1, &b);
		json_key_str(out, "      ", "down", b.data, 0);
		fputs(i + 1 < w->ncache ? "    },\n" : "    }\n", out);
	}
	fputs("  ]\n", out);
	termPQExpBuffer(&b);
}

/* Observe mode's forecast (observe.c), only when something was observed. */
static void
json_observe(FILE *out, const Workload *w)
{
	const ObserveForecast *f = &w->observe;
	int			i;

	if (f->n == 0)
		return;
	fprintf(out, "  \"observe_forecast\": {\n    \"hours\": %.4f,\n    \"reads\": %lld,\n"
			"    \"served\": %lld,\n    \"saved_s_per_hour\": %.3f,\n    \"statements\": [\n",
			f->hours, f->reads, f->served, f->saved_s_per_hour);
	for (i = 0; i < f->n; i++)
	{
		const ObservedStatement *s = &f->stmts[i];

		fputs("      {\n", out);
		json_key_str(out, "        ", "query_id", s->queryid, 1);
		fprintf(out, "        \"chosen\": %s,\n        \"calls\": %lld,\n"
				"        \"observed_hits\": %lld,\n        \"observed_coalesced\": %lld,\n"
				"        \"observed_window_hits\": %lld,\n        \"saved_s_per_hour\": %.3f,\n",
				s->chosen ? "true" : "false", s->calls, s->hits, s->coalesced,
				s->window_hits, s->saved_s_per_hour);
		json_key_str(out, "        ", "query", s->query, 0);
		fputs(i + 1 < f->n ? "      },\n" : "      }\n", out);
	}
	fputs("    ]\n  },\n", out);
}

void
emit_json(FILE *out, PGconn *conn, const Workload *w, const AdvisorOptions *opts)
{
	int			i;
	int			left = w->nchosen;

	fputs("{\n", out);
	json_key_str(out, "  ", "advisor_version", SFCACHE_VERSION, 1);
	json_key_str(out, "  ", "database", w->dbname, 1);
	json_key_str(out, "  ", "extension_version", w->ext_version, 1);
	json_key_str(out, "  ", "generated_at", w->generated_at, 1);
	json_key_str(out, "  ", "options", w->options_text, 1);
	fprintf(out, "  \"left_out_by_budget\": %d,\n", w->nbudget_skipped);
	fputs("  \"indexes\": [\n", out);
	for (i = 0; i < w->nadvice; i++)
		if (w->advice[i].chosen)
			json_index(out, conn, w, &w->advice[i], opts, --left > 0);
	fputs("  ],\n", out);
	json_observe(out, w);
	json_cache_settings(out, conn, w);
	fputs("}\n", out);
}
