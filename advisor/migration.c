/*-------------------------------------------------------------------------
 *
 * migration.c
 *		The statements and the evidence every format writes: per chosen
 *		suggestion its CREATE INDEX CONCURRENTLY IF NOT EXISTS (and, with
 *		--replace, the DROPs of the indexes it makes redundant, after it),
 *		the reverse of both, and the comment lines with the evidence
 *		(cache settings: cache_settings.c). Every identifier goes through
 *		PQescapeIdentifier; key expressions and predicates are the server's
 *		own deparsed text.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include "advisor.h"

/* "schema"."name", quoted by libpq (malloc'd). */
char *
qualified_name(PGconn *conn, const char *schema, const char *name)
{
	char	   *s = esc_ident(conn, schema);
	char	   *n = esc_ident(conn, name);
	char	   *q = psprintf("%s.%s", s, n);

	free(s);
	free(n);
	return q;
}

/* An access method name as is when plain, quoted otherwise. */
static void
append_am(PGconn *conn, PQExpBuffer b, const char *am)
{
	if (*am != '\0' && strspn(am, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(am))
		appendPQExpBufferStr(b, am);
	else
	{
		char	   *q = esc_ident(conn, am);

		appendPQExpBufferStr(b, q);
		free(q);
	}
}

/* USING am (keys) [INCLUDE (cols)] [WHERE pred], column names quoted again by libpq. */
static void
append_using(PGconn *conn, PQExpBuffer b, const IndexDef *def)
{
	int			i;

	appendPQExpBufferStr(b, " USING ");
	append_am(conn, b, def->am);
	appendPQExpBufferStr(b, " (");
	for (i = 0; i < def->elems.n; i++)
	{
		const char *key = def->keys.items[i];

		if (i > 0)
			appendPQExpBufferStr(b, ", ");
		if (key_is_column(key))
		{
			char	   *col = key_unquote(key);
			char	   *q = esc_ident(conn, col);

			appendPQExpBuffer(b, "%s%s", q, def->elems.items[i] + strlen(key));
			free(col);
			free(q);
		}
		else
			appendPQExpBufferStr(b, def->elems.items[i]);
	}
	appendPQExpBufferChar(b, ')');
	for (i = 0; i < def->include.n; i++)
	{
		char	   *col = key_unquote(def->include.items[i]);
		char	   *q = esc_ident(conn, col);

		appendPQExpBuffer(b, "%s%s", i == 0 ? " INCLUDE (" : ", ", q);
		free(col);
		free(q);
	}
	if (def->include.n > 0)
		appendPQExpBufferChar(b, ')');
	if (def->pred != NULL)
		appendPQExpBuffer(b, " WHERE %s", def->pred);
}

static char *
create_sql(PGconn *conn, const char *schema, const char *table, const char *name,
		   const IndexDef *def, const char *tail)
{
	PQExpBufferData b;
	char	   *n = esc_ident(conn, name);
	char	   *t = qualified_name(conn, schema, table);

	initPQExpBuffer(&b);
	appendPQExpBuffer(&b, "CREATE INDEX CONCURRENTLY IF NOT EXISTS %s ON %s", n, t);
	if (def != NULL)
		append_using(conn, &b, def);
	else
		appendPQExpBuffer(&b, " USING %s", tail);
	appendPQExpBufferChar(&b, ';');
	free(n);
	free(t);
	return b.data;
}

static char *
drop_sql(PGconn *conn, const char *schema, const char *name)
{
	char	   *q = qualified_name(conn, schema, name);
	char	   *s = psprintf("DROP INDEX CONCURRENTLY IF EXISTS %s;", q);

	free(q);
	return s;
}

/*
 * Whether a is the first chosen suggestion that makes existing index e
 * redundant, and e is not kept for its owner.
 */
static int
owns_drop(const Workload *w, const Advice *a, int e)
{
	int			i;
	int			j;

	if (w->existing[e].kept)
		return 0;
	for (i = 0; i < w->nadvice; i++)
	{
		const Advice *o = &w->advice[i];

		if (!o->chosen)
			continue;
		for (j = 0; j < o->nredundant; j++)
			if (o->redundant[j] == e)
				return o == a;
	}
	return 0;
}

void
migration_up(PGconn *conn, const Workload *w, const Advice *a, int replace, StrList *out)
{
	int			i;

	strlist_add_nocopy(out, create_sql(conn, a->schema, a->table, a->name, &a->def, NULL));
	for (i = 0; replace && i < a->nredundant; i++)
	{
		const ExistingIndex *e = &w->existing[a->redundant[i]];

		if (owns_drop(w, a, a->redundant[i]))
			strlist_add_nocopy(out, drop_sql(conn, e->schema, e->name));
	}
}

void
migration_down(PGconn *conn, const Workload *w, const Advice *a, int replace, StrList *out)
{
	int			i;

	for (i = a->nredundant - 1; replace && i >= 0; i--)
	{
		const ExistingIndex *e = &w->existing[a->redundant[i]];

		if (owns_drop(w, a, a->redundant[i]))
			strlist_add_nocopy(out, create_sql(conn, e->schema, e->table, e->name,
											   NULL, e->tail));
	}
	strlist_add_nocopy(out, drop_sql(conn, a->schema, a->name));
}
