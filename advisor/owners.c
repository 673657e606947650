/*-------------------------------------------------------------------------
 *
 * owners.c
 *		What owns each existing index, so that no output drops one without
 *		naming its owner: a constraint (never dropped), Django's migrations
 *		(an index on a table of an app recorded in public.django_migrations:
 *		a ForeignKey's index "<table>_<column>_<hash>", db_index,
 *		Meta.indexes; kept in --format=django unless --replace-owned, since
 *		the migration state would still know it), or nothing.
 *
 *		public.django_migrations is read only if it is a plain table without
 *		row security whose columns all have built-in types: a view, a
 *		policy, or a type's comparison or output function would run code of
 *		the table owner's choosing as the advisor.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include "advisor.h"

static const char *const safe_sql =
"SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c\n"
"  WHERE c.oid OPERATOR(pg_catalog.=) pg_catalog.to_regclass('public.django_migrations')\n"
"    AND c.relkind OPERATOR(pg_catalog.=) 'r' AND NOT c.relrowsecurity\n"
"    AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a\n"
"      WHERE a.attrelid OPERATOR(pg_catalog.=) c.oid AND a.attnum OPERATOR(pg_catalog.>) 0\n"
"        AND a.atttypid OPERATOR(pg_catalog.>=) 16384::pg_catalog.oid))";

static const char *const apps_sql =
"SELECT DISTINCT app FROM public.django_migrations ORDER BY 1";

/* Whether public.django_migrations may be read; false on failure (logged). */
bool
django_migrations_readable(PGconn *conn, bool *readable)
{
	PGresult   *res = advisor_query(conn, "check public.django_migrations", safe_sql, 0, NULL);

	*readable = false;
	if (res == NULL)
		return false;
	*readable = PQgetvalue(res, 0, 0)[0] == 't';
	PQclear(res);
	return true;
}

/* Is name "<table>_<column>_<8 hex digits>", as Django names a ForeignKey's index? */
static int
named_like_fk_index(const ExistingIndex *e)
{
	char	   *col;
	size_t		tlen = strlen(e->table);
	size_t		clen;
	const char *hash;
	int			match;

	if (e->def.keys.n != 1 || !key_is_column(e->def.keys.items[0]))
		return 0;
	col = key_unquote(e->def.keys.items[0]);
	clen = strlen(col);
	hash = e->name + tlen + 1 + clen + 1;
	match = clen > 3 && strcmp(col + clen - 3, "_id") == 0 &&
		strlen(e->name) == tlen + 1 + clen + 1 + 8 &&
		strncmp(e->name, e->table, tlen) == 0 && e->name[tlen] == '_' &&
		strncmp(e->name + tlen + 1, col, clen) == 0 && e->name[tlen + 1 + clen] == '_' &&
		strspn(hash, "0123456789abcdef") == 8;
	free(col);
	return match;
}

/* Mark the indexes on the tables of Django app (tables "<app>_..."). */
static void
mark_app(Workload *w, const char *app)
{
	size_t		len = strlen(app);
	int			i;

	for (i = 0; i < w->nexisting; i++)
	{
		ExistingIndex *e = &w->existing[i];

		if (strncmp(e->table, app, len) != 0 || e->table[len] != '_' ||
			(e->django_app != NULL && strlen(e->django_app) >= len))
			continue;
		free(e->django_app);
		e->django_app = pg_strdup(app);
		e->fk_index = named_like_fk_index(e);
	}
}

/* Find what owns each existing index; false on failure (logged). */
bool
owners_read(PGconn *conn, Workload *w)
{
	PGresult   *res;
	bool		readable;
	int			i;

	if (!django_migrations_readable(conn, &readable))
		return false;
	if (!readable)
		return true;
	res = advisor_query(conn, "read public.django_migrations", apps_sql, 0, NULL);
	if (res == NULL)
		return false;
	for (i = 0; i < PQntuples(res); i++)
		mark_app(w, PQgetvalue(res, i, 0));
	PQclear(res);
	return true;
}

/* Who owns e, as the evidence says it ("owned by ..."). */
void
owner_text(const ExistingIndex *e, PQExpBuffer b)
{
	if (e->constraint)
		appendPQExpBuffer(b, "owned by the constraint %s",
						  e->constraint_name ? e->constraint_name : "?");
	else if (e->django_app != NULL && e->fk_index)
		appendPQExpBuffer(b, "created by Django's migrations of app %s (a ForeignKey's index)",
						  e->django_app);
	else if (e->django_app != NULL)
		appendPQExpBuffer(b, "created by Django's migrations of app %s (db_index, Meta.indexes or a constraint of the model)",
						  e->django_app);
	else
		appendPQExpBufferStr(b, "owned by no constraint or migration the advisor knows of");
}
