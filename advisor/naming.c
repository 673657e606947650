/*-------------------------------------------------------------------------
 *
 * naming.c
 *		Readable, deterministic index names: <table>_<cols>_<gin|idx>, in
 *		lower-case ASCII letters, digits and single underscores, within 63
 *		bytes. A name already used by a relation of the schema (or by an
 *		earlier suggestion) gets a number after its suffix, as PostgreSQL's
 *		own ChooseRelationName does ("t_a_idx1"), so "IF NOT EXISTS" can
 *		never skip an index because something else has its name.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include <ctype.h>

#include "advisor.h"

static const char *const taken_sql =
"SELECT 1 FROM pg_catalog.pg_class c\n"
"JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace\n"
"WHERE n.nspname = $1 AND c.relname = $2";

/* Append text as a name part: [a-z0-9] runs joined by one '_', up to "::". */
static void
append_part(PQExpBuffer name, const char *text)
{
	const char *p;
	int			sep = 1;

	for (p = text; *p; p++)
	{
		unsigned char ch = (unsigned char) *p;

		if (strncmp(p, "::", 2) == 0)
			break;
		if (ch < 0x80 && isalnum(ch))
		{
			if (sep && name->len > 0 && name->data[name->len - 1] != '_')
				appendPQExpBufferChar(name, '_');
			appendPQExpBufferChar(name, (char) tolower(ch));
			sep = 0;
		}
		else
			sep = 1;
	}
}

/* <table>_<cols> for suggestion a, not yet cut. */
static char *
base_name(const Advice *a)
{
	PQExpBufferData b;
	int			i;

	initPQExpBuffer(&b);
	append_part(&b, a->table);
	if (b.len == 0)
		appendPQExpBufferStr(&b, "t");
	for (i = 0; i < a->def.keys.n; i++)
	{
		char	   *col = key_unquote(a->def.keys.items[i]);

		appendPQExpBufferChar(&b, '_');
		append_part(&b, col);
		free(col);
	}
	while (b.len > 0 && b.data[b.len - 1] == '_')
		b.data[--b.len] = '\0';
	return b.data;
}

/* 1 if name is taken in schema, 0 if free, -1 on failure (logged). */
static int
name_taken(PGconn *conn, const Workload *w, const char *schema, const char *name)
{
	const char *params[2] = {schema, name};
	PGresult   *res;
	char	   *what;
	int			taken;
	int			i;

	for (i = 0; i < w->nadvice; i++)
		if (w->advice[i].name != NULL && strcmp(w->advice[i].schema, schema) == 0 &&
			strcmp(w->advice[i].name, name) == 0)
			return 1;
	what = psprintf("check whether index name \"%s.%s\" is free", schema, name);
	res = advisor_query(conn, what, taken_sql, 2, params);
	free(what);
	if (res == NULL)
		return -1;
	taken = PQntuples(res) > 0;
	PQclear(res);
	return taken;
}

/* base, cut so that "_<suffix><n>" fits in ADVISOR_MAX_NAME bytes. */
static char *
compose(const char *base, const char *suffix, int n)
{
	char		tail[32];
	int			room;
	int			len = (int) strlen(base);

	if (n > 0)
		snprintf(tail, sizeof(tail), "_%s%d", suffix, n);
	else
		snprintf(tail, sizeof(tail), "_%s", suffix);
	room = ADVISOR_MAX_NAME - (int) strlen(tail);
	if (len > room)
		len = room;
	while (len > 0 && base[len - 1] == '_')
		len--;
	return psprintf("%.*s%s", len, base, tail);
}

/* Give every chosen suggestion its name; false on failure (logged). */
bool
name_indexes(PGconn *conn, Workload *w)
{
	int			i;
	int			n;
	int			taken;

	for (i = 0; i < w->nadvice; i++)
	{
		Advice	   *a = &w->advice[i];
		const char *suffix = strcmp(a->def.am, "gin") == 0 ? "gin" : "idx";
		char	   *base;
		char	   *name;

		if (!a->chosen)
			continue;
		base = base_name(a);
		for (n = 0;; n++)
		{
			name = compose(base, suffix, n);
			if ((taken = name_taken(conn, w, a->schema, name)) != 1)
				break;
			free(name);
		}
		free(base);
		if (taken < 0)
		{
			free(name);
			return false;
		}
		a->name = name;
	}
	return true;
}
