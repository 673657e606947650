/*-------------------------------------------------------------------------
 *
 * emit_django.c
 *		--format=django: a migration module. CREATE INDEX CONCURRENTLY cannot
 *		run in a transaction, so the migration says atomic = False, and each
 *		index is one migrations.RunSQL(sql, reverse_sql) so that Django runs
 *		its statements one at a time and can undo it. --app LABEL makes it
 *		depend on that app's latest migration (read from django_migrations
 *		when the table exists); --name NAME names it (default: the next
 *		number after that migration, then "_sfcache_indexes").  The cache
 *		settings are DO blocks that check pg_extension, so the migration
 *		applies, once or twice, on a database without sfcache too.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include "advisor.h"

static const char *const latest_sql =
"SELECT name FROM public.django_migrations WHERE app = $1 ORDER BY id DESC LIMIT 1";

/* A Python string literal for s (single quotes; bytes >= 0x80 as they are). */
static void
append_py_str(PQExpBuffer b, const char *s)
{
	const unsigned char *p;

	appendPQExpBufferChar(b, '\'');
	for (p = (const unsigned char *) s; *p; p++)
	{
		if (*p == '\\' || *p == '\'')
			appendPQExpBuffer(b, "\\%c", *p);
		else if (*p == '\n')
			appendPQExpBufferStr(b, "\\n");
		else if (*p < 0x20 || *p == 0x7f)
			appendPQExpBuffer(b, "\\x%02x", *p);
		else
			appendPQExpBufferChar(b, (char) *p);
	}
	appendPQExpBufferChar(b, '\'');
}

/*
 * The latest applied migration of app into *name (malloc'd), or NULL if
 * there is none; false on failure (logged).
 */
static bool
latest_migration(PGconn *conn, const char *app, char **name)
{
	const char *params[1] = {app};
	PGresult   *res;
	bool		readable;

	*name = NULL;
	if (!django_migrations_readable(conn, &readable))
		return false;
	if (!readable)
		return true;
	res = advisor_query(conn, "read public.django_migrations", latest_sql, 1, params);
	if (res == NULL)
		return false;
	if (PQntuples(res) == 1)
		*name = pg_strdup(PQgetvalue(res, 0, 0));
	PQclear(res);
	return true;
}

/*
 * The migration's name (--name, or the number after the app's latest
 * migration's) and its dependency, into w; false on failure (logged).
 */
bool
django_prepare(PGconn *conn, const AdvisorOptions *opts, Workload *w)
{
	if (opts->app && !latest_migration(conn, opts->app, &w->dependency))
		return false;
	if (opts->name)
		w->migration_name = pg_strdup(opts->name);
	else if (w->dependency && strspn(w->dependency, "0123456789") == 4 && w->dependency[4] == '_')
		w->migration_name = psprintf("%04d_sfcache_indexes", atoi(w->dependency) + 1);
	else
		w->migration_name = pg_strdup("sfcache_indexes");
	return true;
}

static void
emit_py_list(FILE *out, const char *key, const StrList *stmts)
{
	PQExpBufferData b;
	int			i;

	initPQExpBuffer(&b);
	fprintf(out, "            %s=[\n", key);
	for (i = 0; i < stmts->n; i++)
	{
		resetPQExpBuffer(&b);
		append_py_str(&b, stmts->items[i]);
		fprintf(out, "                %s,\n", b.data);
	}
	fprintf(out, "            ],\n");
	termPQExpBuffer(&b);
}

static void
emit_run_sql(FILE *out, const StrList *comments, const StrList *up, const StrList *down)
{
	int			i;

	fprintf(out, "\n");
	for (i = 0; i < comments->n; i++)
		fprintf(out, "        # %s\n", comments->items[i]);
	fprintf(out, "        migrations.RunSQL(\n");
	emit_py_list(out, "sql", up);
	emit_py_list(out, "reverse_sql", down);
	fprintf(out, "        ),\n");
}

static void
emit_index(FILE *out, PGconn *conn, const Workload *w, const Advice *a, int replace)
{
	StrList		lines = {0};
	StrList		up = {0};
	StrList		down = {0};

	migration_evidence(w, a, replace, &lines);
	migration_up(conn, w, a, replace, &up);
	migration_down(conn, w, a, replace, &down);
	emit_run_sql(out, &lines, &up, &down);
	strlist_free(&lines);
	strlist_free(&up);
	strlist_free(&down);
}

/* One RunSQL per cache setting, with its evidence and its reverse. */
static void
emit_cache_settings(FILE *out, PGconn *conn, const Workload *w)
{
	PQExpBufferData b;
	int			i;

	initPQExpBuffer(&b);
	for (i = 0; i < w->ncache; i++)
	{
		StrList		lines = {0};
		StrList		up = {0};
		StrList		down = {0};

		cache_setting_evidence(w, &w->cache[i], &lines);
		resetPQExpBuffer(&b);
		cache_setting_guarded_sql(conn, &w->cache[i], 0, &b);
		strlist_add(&up, b.data);
		resetPQExpBuffer(&b);
		cache_setting_guarded_sql(conn, &w->cache[i], 1, &b);
		strlist_add(&down, b.data);
		emit_run_sql(out, &lines, &up, &down);
		strlist_free(&lines);
		strlist_free(&up);
		strlist_free(&down);
	}
	termPQExpBuffer(&b);
}

static void
emit_dependencies(FILE *out, const AdvisorOptions *opts, const char *dependency)
{
	fprintf(out, "    dependencies = [\n");
	if (dependency != NULL)
	{
		PQExpBufferData b;

		initPQExpBuffer(&b);
		append_py_str(&b, dependency);
		fprintf(out, "        ('%s', %s),\n", opts->app, b.data);
		termPQExpBuffer(&b);
	}
	else
		fprintf(out, "        # ('%s', '<the latest migration of that app>'),\n",
				opts->app ? opts->app : "<app label>");
	fprintf(out, "    ]\n\n    operations = [");
}

void
emit_django(FILE *out, PGconn *conn, const Workload *w, const AdvisorOptions *opts)
{
	const char *name = w->migration_name;
	int			i;

	fprintf(out, "# -*- coding: utf-8 -*-\n");
	emit_header(out, "# ", w, opts);
	fprintf(out, "# Django migration %s%s%s\n", opts->app ? opts->app : "", opts->app ? "." : "", name);
	fprintf(out, "#\n# CREATE INDEX CONCURRENTLY cannot run inside a transaction: atomic = False.\n"
			"# The indexes need nothing from sfcache; each cache setting runs only where\n"
			"# the extension is installed (it checks pg_extension) and does nothing\n"
			"# elsewhere. Every statement can run twice (IF NOT EXISTS, IF EXISTS).\n"
			"from django.db import migrations\n\n\n"
			"class Migration(migrations.Migration):\n"
			"    atomic = False\n\n");
	emit_dependencies(out, opts, w->dependency);
	for (i = 0; i < w->nadvice; i++)
		if (w->advice[i].chosen)
			emit_index(out, conn, w, &w->advice[i], opts->replace);
	emit_cache_settings(out, conn, w);
	fprintf(out, "%s]\n", w->nchosen + cache_settings_count(w) > 0 ? "\n    " : "");
}
