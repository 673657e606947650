/*-------------------------------------------------------------------------
 *
 * owners.c
 *		What owns each existing index, so that no output drops one without
 *		naming its owner: a constraint (never dropped), Django's migrations,
 *		or nothing. Django's indexes are kept in --format=django unless
 *		--replace-owned, since the migration state would still know them.
 *
 *		Django (3.2, as since 1.11) names the indexes it creates from the
 *		model: "<table>_<columns>_<digest>" for a ForeignKey (the column has
 *		a foreign key) or a db_index=True field, the same with "_like" for
 *		the varchar_pattern_ops/text_pattern_ops twin of a CharField's, with
 *		"_idx" for Meta.index_together, and "<table:11>_<column:7>_<digest6>_idx"
 *		for a Meta.indexes entry without a name; the digest is the md5 of
 *		the table and column names (computed by the server here), so such
 *		a name is Django's whatever the table is called. Any other index on
 *		a table "<app>_..." of an app recorded in public.django_migrations
 *		may be a Meta.indexes entry with a name of its own (or one made by
 *		hand): kept too, named as such.
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

/* Django's BaseDatabaseOperations.max_name_length() for PostgreSQL */
#define DJANGO_MAX_NAME 63

static const char *const safe_sql =
"SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c\n"
"  WHERE c.oid OPERATOR(pg_catalog.=) pg_catalog.to_regclass('public.django_migrations')\n"
"    AND c.relkind OPERATOR(pg_catalog.=) 'r' AND NOT c.relrowsecurity\n"
"    AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a\n"
"      WHERE a.attrelid OPERATOR(pg_catalog.=) c.oid AND a.attnum OPERATOR(pg_catalog.>) 0\n"
"        AND a.atttypid OPERATOR(pg_catalog.>=) 16384::pg_catalog.oid))";

static const char *const apps_sql =
"SELECT DISTINCT app FROM public.django_migrations ORDER BY 1";

/*
 * Per index on plain columns: the digests Django would put in its name
 * (names_digest(table, *columns, length=8), and Index.set_name_with_model's
 * names_digest(table, *["-"]column, "idx", length=6)), its key columns
 * joined by "_", and whether a foreign key has exactly those columns.
 */
static const char *const digests_sql =
"SELECT n.nspname, i.relname,\n"
"  pg_catalog.left(pg_catalog.md5(t.relname::pg_catalog.text || k.cols), 8),\n"
"  pg_catalog.left(pg_catalog.md5(t.relname::pg_catalog.text || k.ocols || 'idx'), 6),\n"
"  k.joined,\n"
"  EXISTS (SELECT 1 FROM pg_catalog.pg_constraint c WHERE c.contype = 'f'\n"
"          AND c.conrelid = x.indrelid AND c.conkey = k.keys)\n"
"FROM pg_catalog.pg_index x\n"
"  JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid\n"
"  JOIN pg_catalog.pg_class t ON t.oid = x.indrelid\n"
"  JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace,\n"
"  LATERAL (SELECT pg_catalog.string_agg(a.attname::pg_catalog.text, '' ORDER BY u.o) AS cols,\n"
"             pg_catalog.string_agg(CASE WHEN x.indoption[(u.o - 1)::pg_catalog.int4] & 1 = 1\n"
"                                   THEN '-' ELSE '' END || a.attname, '' ORDER BY u.o) AS ocols,\n"
"             pg_catalog.string_agg(a.attname::pg_catalog.text, '_' ORDER BY u.o) AS joined,\n"
"             pg_catalog.array_agg(u.attnum ORDER BY u.o) AS keys\n"
"           FROM pg_catalog.unnest(x.indkey::pg_catalog.int2[]) WITH ORDINALITY AS u(attnum, o)\n"
"             JOIN pg_catalog.pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = u.attnum\n"
"           WHERE u.o <= x.indnkeyatts) k\n"
"WHERE x.indexprs IS NULL AND k.cols IS NOT NULL\n"
"  AND n.nspname <> 'information_schema' AND n.nspname !~ '^pg_'";

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

/*
 * Django's rule: a name may not start with "_" or a digit, so "D" comes
 * first, in place of the first character (set_name_with_model, drop_first)
 * or of the last (_create_index_name). Takes and returns a malloc'd name.
 */
static char *
django_leading(char *name, int drop_first)
{
	char	   *fixed;

	if (name[0] != '_' && !isdigit((unsigned char) name[0]))
		return name;
	fixed = drop_first ? psprintf("D%s", name + 1) :
		psprintf("D%.*s", (int) strlen(name) - 1, name);
	free(name);
	return fixed;
}

/* BaseDatabaseSchemaEditor._create_index_name(table, columns, suffix). */
static char *
django_index_name(const char *table, const char *joined, const char *digest,
				  const char *suffix)
{
	char	   *tail = psprintf("%s%s", digest, suffix);
	char	   *name = psprintf("%s_%s_%s", table, joined, tail);

	if (strlen(name) > DJANGO_MAX_NAME)
	{
		int			other;

		free(name);
		if (strlen(tail) > DJANGO_MAX_NAME / 3.0)
			tail[DJANGO_MAX_NAME / 3] = '\0';
		other = (DJANGO_MAX_NAME - (int) strlen(tail)) / 2 - 1;
		name = psprintf("%.*s_%.*s_%s", other, table, other, joined, tail);
	}
	free(tail);
	return django_leading(name, 0);
}

/* Index.set_name_with_model: "<table:11>_<first column:7>_<digest6>_idx". */
static char *
django_meta_name(const ExistingIndex *e, const char *digest6)
{
	char	   *col = key_unquote(e->def.keys.items[0]);
	char	   *name = psprintf("%.11s_%.7s_%s_idx", e->table, col, digest6);

	free(col);
	return django_leading(name, 1);
}

static int
name_is(const char *name, char *candidate)
{
	int			is = strcmp(name, candidate) == 0;

	free(candidate);
	return is;
}

/* Which of Django's names e has, from one row of digests_sql. */
static DjangoKind
django_kind_of(const ExistingIndex *e, PGresult *res, int row)
{
	const char *d8 = PQgetvalue(res, row, 2);
	const char *joined = PQgetvalue(res, row, 4);
	int			fk = PQgetvalue(res, row, 5)[0] == 't';

	if (e->def.keys.n == 0)
		return DJANGO_NONE;
	if (e->def.keys.n == 1 && name_is(e->name, django_index_name(e->table, joined, d8, "")))
		return fk ? DJANGO_FOREIGN_KEY : DJANGO_DB_INDEX;
	if (e->def.keys.n == 1 && name_is(e->name, django_index_name(e->table, joined, d8, "_like")))
		return DJANGO_LIKE;
	if (name_is(e->name, django_index_name(e->table, joined, d8, "_idx")))
		return DJANGO_INDEX_TOGETHER;
	if (name_is(e->name, django_meta_name(e, PQgetvalue(res, row, 3))))
		return DJANGO_META_INDEX;
	return DJANGO_NONE;
}

/* Mark the indexes named as Django names them. */
static bool
mark_named(PGconn *conn, Workload *w)
{
	PGresult   *res = advisor_query(conn, "read the index digests", digests_sql, 0, NULL);
	int			r;
	int			i;

	if (res == NULL)
		return false;
	for (r = 0; r < PQntuples(res); r++)
		for (i = 0; i < w->nexisting; i++)
		{
			ExistingIndex *e = &w->existing[i];

			if (strcmp(e->schema, PQgetvalue(res, r, 0)) == 0 &&
				strcmp(e->name, PQgetvalue(res, r, 1)) == 0)
				e->django_kind = django_kind_of(e, res, r);
		}
	PQclear(res);
	return true;
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
	if (!mark_named(conn, w))
		return false;
	for (i = 0; i < w->nexisting; i++)
		if (w->existing[i].django_kind == DJANGO_NONE && w->existing[i].django_app != NULL)
			w->existing[i].django_kind = DJANGO_APP_TABLE;
	return true;
}

/* The model of e's table: "app.model" (Django's lower-case label), or by db_table. */
static void
append_model(const ExistingIndex *e, PQExpBuffer b)
{
	if (e->django_app != NULL)
		appendPQExpBuffer(b, "model %s.%s", e->django_app,
						  e->table + strlen(e->django_app) + 1);
	else
		appendPQExpBuffer(b, "the model with db_table '%s'", e->table);
}

/* The field of single-column index e: a ForeignKey's name drops "_id". */
static void
append_field(const ExistingIndex *e, PQExpBuffer b)
{
	char	   *col = key_unquote(e->def.keys.items[0]);
	size_t		len = strlen(col);

	if (e->django_kind == DJANGO_FOREIGN_KEY && len > 3 && strcmp(col + len - 3, "_id") == 0)
		len -= 3;
	appendPQExpBuffer(b, "field %.*s of ", (int) len, col);
	append_model(e, b);
	free(col);
}

/* e's key columns as a Python list of strings. */
static void
append_fields(const ExistingIndex *e, PQExpBuffer b)
{
	int			i;

	appendPQExpBufferChar(b, '[');
	for (i = 0; i < e->def.keys.n; i++)
	{
		char	   *col = key_unquote(e->def.keys.items[i]);

		appendPQExpBuffer(b, "%s'%s'", i > 0 ? ", " : "", col);
		free(col);
	}
	appendPQExpBufferChar(b, ']');
}

/* Who owns e, as the evidence says it ("owned by ..."). */
void
owner_text(const ExistingIndex *e, PQExpBuffer b)
{
	if (e->constraint)
	{
		appendPQExpBuffer(b, "owned by the constraint %s",
						  e->constraint_name ? e->constraint_name : "?");
		return;
	}
	if (e->django_kind == DJANGO_NONE)
	{
		appendPQExpBufferStr(b, "owned by no constraint or migration the advisor knows of");
		return;
	}
	appendPQExpBufferStr(b, "created by Django's migrations");
	if (e->django_app != NULL)
		appendPQExpBuffer(b, " of app %s", e->django_app);
	switch (e->django_kind)
	{
		case DJANGO_FOREIGN_KEY:
			appendPQExpBufferStr(b, ": the index of the ForeignKey ");
			append_field(e, b);
			break;
		case DJANGO_DB_INDEX:
			appendPQExpBufferStr(b, ": db_index=True on ");
			append_field(e, b);
			break;
		case DJANGO_LIKE:
			appendPQExpBufferStr(b, ": the pattern_ops index of db_index=True or unique=True on ");
			append_field(e, b);
			break;
		case DJANGO_INDEX_TOGETHER:
			appendPQExpBufferStr(b, ": the Meta.index_together entry ");
			append_fields(e, b);
			appendPQExpBufferStr(b, " of ");
			append_model(e, b);
			break;
		case DJANGO_META_INDEX:
			appendPQExpBufferStr(b, ": the Meta.indexes entry models.Index(fields=");
			append_fields(e, b);
			appendPQExpBufferStr(b, ") of ");
			append_model(e, b);
			break;
		default:
			appendPQExpBuffer(b, ": a Meta.indexes entry models.Index(..., name='%s') of ", e->name);
			append_model(e, b);
			appendPQExpBufferStr(b, " (or an index made outside the models)");
			break;
	}
}

/* How to drop Django's index e by changing the model instead (kept). */
void
owner_model_change(const ExistingIndex *e, PQExpBuffer b)
{
	appendPQExpBufferStr(b, "to drop it, ");
	switch (e->django_kind)
	{
		case DJANGO_FOREIGN_KEY:
			appendPQExpBufferStr(b, "set db_index=False on that ForeignKey");
			break;
		case DJANGO_DB_INDEX:
			appendPQExpBufferStr(b, "set db_index=False on that field");
			break;
		case DJANGO_LIKE:
			appendPQExpBufferStr(b, "set db_index=False (or unique=False) on that field");
			break;
		case DJANGO_INDEX_TOGETHER:
			appendPQExpBufferStr(b, "remove that entry from Meta.index_together");
			break;
		default:
			appendPQExpBufferStr(b, "remove that entry from Meta.indexes");
			break;
	}
	appendPQExpBufferStr(b, " and run makemigrations, or pass --replace-owned");
}
