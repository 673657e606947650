/*-------------------------------------------------------------------------
 *
 * base_settings.c
 *		sfcache.* names that postgresql.conf (or ALTER SYSTEM, or the
 *		command line) sets but no setting of sfcache has: warned about at
 *		start, each with the setting it most likely meant, before
 *		MarkGUCPrefixReserved() removes them. Without this the server
 *		runs with that setting's default, and only PostgreSQL's generic
 *		"invalid configuration parameter name" line says so.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/guc_tables.h"
#include "utils/varlena.h"

#include "base/base.h"

#define PREFIX "sfcache."

/* The sfcache setting whose name is nearest to name, or NULL. */
static const char *
nearest_setting(struct config_generic **vars, int nvars, const char *name)
{
	const char *best = NULL;
	int			best_distance = 4;	/* farther than 3 edits: no guess */

	for (int i = 0; i < nvars; i++)
	{
		const char *candidate = vars[i]->name;
		int			distance;

		if ((vars[i]->flags & GUC_CUSTOM_PLACEHOLDER) ||
			strncmp(candidate, PREFIX, strlen(PREFIX)) != 0)
			continue;
		distance = varstr_levenshtein(name, strlen(name), candidate, strlen(candidate),
									  1, 1, 1, true);
		if (distance < best_distance)
		{
			best = candidate;
			best_distance = distance;
		}
	}
	return best;
}

/* From _PG_init, once every setting is defined. */
void
SfcWarnUnknownSettings(void)
{
	int			nvars;
	struct config_generic **vars = get_guc_variables(&nvars);

	for (int i = 0; i < nvars; i++)
	{
		const char *name = vars[i]->name;
		const char *meant;

		if (!(vars[i]->flags & GUC_CUSTOM_PLACEHOLDER) ||
			strncmp(name, PREFIX, strlen(PREFIX)) != 0)
			continue;
		meant = nearest_setting(vars, nvars, name);
		ereport(WARNING,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("sfcache has no setting \"%s\": it is ignored", name),
				 meant ? errdetail("The server runs with the default value of \"%s\" unless it is set elsewhere.", meant)
				 : errdetail("sfcache ignores it."),
				 meant ? errhint("Did you mean \"%s\"? Correct the name where it is set (postgresql.conf, ALTER SYSTEM) and restart or reload.", meant)
				 : errhint("SHOW ALL lists sfcache's settings; remove the line where it is set.")));
	}
}
