/*-------------------------------------------------------------------------
 *
 * naming.c
 *		The index names the advisor writes: the names sfcache.index_advice
 *		gives (the extension is the one source of truth: advice_rules.c
 *		composes them, advice_sql.c makes them unique among the rows and
 *		free among the relations of the schema), so that the view and the
 *		migration agree. Consolidation never changes a chosen suggestion's
 *		definition, so its name still fits it. Only if the name was taken
 *		since the view was read (or by an earlier suggestion) does the
 *		advisor add "_2", "_3", ... as the extension does, cut to 63 bytes,
 *		so "IF NOT EXISTS" can never skip an index because something else
 *		has its name.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include "advisor.h"

static const char *const taken_sql =
"SELECT 1 FROM pg_catalog.pg_class c\n"
"JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace\n"
"WHERE n.nspname = $1 AND c.relname = $2";

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

/* base, or base_<n> cut so that it fits in ADVISOR_MAX_NAME bytes. */
static char *
compose(const char *base, int n)
{
	char		tail[32];
	int			len = (int) strlen(base);

	if (n < 2)
		return psprintf("%.*s", Min(len, ADVISOR_MAX_NAME), base);
	snprintf(tail, sizeof(tail), "_%d", n);
	len = Min(len, ADVISOR_MAX_NAME - (int) strlen(tail));
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
		char	   *name;

		if (!a->chosen)
			continue;
		for (n = 1;; n++)
		{
			name = compose(a->ext_name, n);
			if ((taken = name_taken(conn, w, a->schema, name)) != 1)
				break;
			free(name);
		}
		if (taken < 0)
		{
			free(name);
			return false;
		}
		a->name = name;
	}
	return true;
}
