/*-------------------------------------------------------------------------
 *
 * cache_uninstall.c
 *		DROP EXTENSION sfcache leaves nothing behind, and needs no CASCADE:
 *		the capture triggers that sfcache.track() put on the users'
 *		tables (not members of the extension: a trigger cannot be one)
 *		are dropped just before it, in its transaction; the schema sfcache,
 *		which CREATE EXTENSION made for the extension's objects (and which
 *		is not one of them either), just after it, once nothing is left in
 *		it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_extension.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "nodes/parsenodes.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"

#include "cache/cache.h"

/* The command under way drops sfcache, which exists (set before it runs). */
static bool dropping_sfcache = false;

/* Is stmt a DROP EXTENSION that names sfcache? */
static bool
drops_sfcache(Node *stmt)
{
	ListCell   *lc;

	if (!IsA(stmt, DropStmt) || ((DropStmt *) stmt)->removeType != OBJECT_EXTENSION)
		return false;
	foreach(lc, ((DropStmt *) stmt)->objects)
	{
		if (strcmp(strVal(lfirst(lc)), "sfcache") == 0)
			return true;
	}
	return false;
}

/* Run each command that query (one text column) returns. */
static void
run_generated(const char *query, Oid argtype, Datum arg)
{
	uint64		n;
	char	  **commands;

	SPI_connect();
	/* not read-only: a new snapshot, that sees what the DROP just did */
	if (SPI_execute_with_args(query, 1, &argtype, &arg, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "sfcache: could not list the objects DROP EXTENSION leaves");
	n = SPI_processed;
	commands = palloc(sizeof(char *) * Max(n, 1));
	for (uint64 i = 0; i < n; i++)
		commands[i] = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);
	for (uint64 i = 0; i < n; i++)
		if (SPI_execute(commands[i], false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "sfcache: \"%s\" failed", commands[i]);
	SPI_finish();
}

/*
 * ProcessUtility (core_hooks.c), before a command: DROP EXTENSION sfcache
 * first drops the capture triggers (the ones on partitions go with their
 * parent's).
 */
void
CacheUninstallBegin(Node *stmt)
{
	Oid			extension;

	/* the DROP TRIGGERs below come through here too: they change nothing */
	if (!drops_sfcache(stmt))
		return;
	extension = get_extension_oid("sfcache", true);
	dropping_sfcache = OidIsValid(extension);
	/* whoever may not drop it, or not now, gets the DROP's own error */
	if (!dropping_sfcache || XactReadOnly ||
		!object_ownercheck(ExtensionRelationId, extension, GetUserId()))
		return;
	run_generated("SELECT pg_catalog.format('DROP TRIGGER %I ON %s', t.tgname, "
				  "t.tgrelid::pg_catalog.regclass) "
				  "FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_depend d "
				  "ON d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass "
				  "AND d.objid = t.tgfoid AND d.deptype = 'e' "
				  "AND d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass "
				  "AND d.refobjid = $1 "
				  "WHERE t.tgparentid = 0 AND NOT EXISTS "
				  "(SELECT FROM pg_catalog.pg_depend m "
				  "WHERE m.classid = 'pg_catalog.pg_class'::pg_catalog.regclass "
				  "AND m.objid = t.tgrelid AND m.deptype = 'e') "
				  "ORDER BY t.tgrelid",
				  OIDOID, ObjectIdGetDatum(extension));
}

/*
 * ProcessUtility, after a command succeeded: once sfcache is dropped, its
 * schema, if nothing is left in it (an object of the user's keeps it); not
 * after a DROP EXTENSION IF EXISTS that found no sfcache.
 */
void
CacheUninstallDone(Node *stmt)
{
	Oid			schema;

	if (!dropping_sfcache || !drops_sfcache(stmt))
		return;
	dropping_sfcache = false;
	if (OidIsValid(get_extension_oid("sfcache", true)) ||
		!OidIsValid(schema = get_namespace_oid("sfcache", true)))
		return;
	run_generated("SELECT 'DROP SCHEMA sfcache' WHERE NOT EXISTS "
				  "(SELECT FROM pg_catalog.pg_depend "
				  "WHERE refclassid = 'pg_catalog.pg_namespace'::pg_catalog.regclass "
				  "AND refobjid = $1)",
				  OIDOID, ObjectIdGetDatum(schema));
}
