/*-------------------------------------------------------------------------
 *
 * cache_relation_sql.c
 *		The checks behind sfcache.set_ttl(), reset_ttl(), exclude(),
 *		include(), track() and untrack(), in C so that a user's mistake
 *		gets a clean ereport (errcode, message, detail, hint) and no
 *		CONTEXT line of an internal helper. They live in schema
 *		sfcache_internal (no USAGE for PUBLIC); the user-facing functions
 *		are SQL functions with bodies parsed at creation (BEGIN ATOMIC),
 *		which call them by OID.
 *
 *	check_settable(rel, func)	rel is a table, view or materialized view
 *		the caller owns, not a system relation
 *	ttl_seconds(rel, ttl, func)	the same, and the TTL in whole seconds
 *	check_trackable(rel, columns, untrack)	track(): a table or
 *		partitioned table the caller owns, every column exists and can be
 *		tracked, and no foreign trigger holds the name sfcache_capture;
 *		untrack(): every column is tracked (as DROP without IF EXISTS:
 *		an ERROR otherwise)
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/catalog.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "cache/cache_internal.h"

SFC_FUNCTION_INFO_V1(sfcache_check_settable_0_4);
SFC_FUNCTION_INFO_V1(sfcache_ttl_seconds_0_4);
SFC_FUNCTION_INFO_V1(sfcache_check_trackable_0_4);

#define CAPTURE_TRIGGER "sfcache_capture"

static char *
rel_text(Oid relid)
{
	return DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(relid)));
}

static bool
is_system_relation(Oid relid, Form_pg_class form)
{
	return relid < FirstNormalObjectId || form->relkind == RELKIND_TOASTVALUE ||
		IsCatalogNamespace(form->relnamespace) ||
		IsToastNamespace(form->relnamespace) ||
		strcmp(get_namespace_name(form->relnamespace), "information_schema") == 0;
}

/* Error unless relid is a relation the settings apply to (see header). */
static void
check_settable(bool isnull, Oid relid, const char *func)
{
	HeapTuple	tup;
	Form_pg_class form;

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("relation passed to %s must not be null", func),
				 errhint("Pass a table, view or materialized view, for example 'public.announcement'::regclass.")));
	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid),
				 errdetail("It may have been dropped."),
				 errhint("Pass an existing table, view or materialized view to %s.", func)));
	form = (Form_pg_class) GETSTRUCT(tup);
	if (is_system_relation(relid, form))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot change cache settings of system relation %s", rel_text(relid)),
				 errdetail("%s applies to user tables, views and materialized views only; statements that read system catalogs are never cached.", func),
				 errhint("Pass one of the application's own relations.")));
	if (form->relkind != RELKIND_RELATION && form->relkind != RELKIND_PARTITIONED_TABLE &&
		form->relkind != RELKIND_VIEW && form->relkind != RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table, view or materialized view", rel_text(relid)),
				 errdetail("%s applies to the relations that cached statements read.", func)));
	if (!has_privs_of_role(GetUserId(), form->relowner))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of relation %s", rel_text(relid))));
	ReleaseSysCache(tup);
}

static const char *
func_arg(FunctionCallInfo fcinfo, int n)
{
	return PG_ARGISNULL(n) ? "sfcache" : text_to_cstring(PG_GETARG_TEXT_PP(n));
}

/* sfcache_internal.check_settable(rel regclass, func text) */
Datum
sfcache_check_settable_0_4(PG_FUNCTION_ARGS)
{
	check_settable(PG_ARGISNULL(0), PG_ARGISNULL(0) ? InvalidOid : PG_GETARG_OID(0),
				   func_arg(fcinfo, 1));
	PG_RETURN_VOID();
}

/* sfcache_internal.ttl_seconds(rel regclass, ttl interval, func text) */
Datum
sfcache_ttl_seconds_0_4(PG_FUNCTION_ARGS)
{
	const char *func = func_arg(fcinfo, 2);
	Interval   *ttl;
	double		seconds;

	check_settable(PG_ARGISNULL(0), PG_ARGISNULL(0) ? InvalidOid : PG_GETARG_OID(0), func);
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("TTL passed to %s must not be null", func),
				 errhint("To remove a relation's TTL, call sfcache.reset_ttl().")));
	ttl = PG_GETARG_INTERVAL_P(1);
	seconds = ceil(DatumGetFloat8(DirectFunctionCall2(interval_part,
													  CStringGetTextDatum("epoch"),
													  IntervalPGetDatum(ttl))));
	if (!(seconds > 0 && seconds <= PG_INT32_MAX))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid TTL \"%s\"",
						DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(ttl)))),
				 errdetail("The TTL must be positive and less than 68 years."),
				 errhint("To keep statements on a relation out of the cache, call sfcache.exclude().")));
	PG_RETURN_INT32((int32) seconds);
}

/*
 * The columns the trigger sfcache_capture of rel names, active or not
 * (sfcache.tracked_columns); *foreign when a trigger of that name runs
 * another function.
 */
static List *
capture_trigger_columns(Relation rel, bool *foreign)
{
	TriggerDesc *trigdesc = rel->trigdesc;
	List	   *columns = NIL;

	*foreign = false;
	for (int i = 0; trigdesc != NULL && i < trigdesc->numtriggers; i++)
	{
		const Trigger *trig = &trigdesc->triggers[i];

		if (strcmp(trig->tgname, CAPTURE_TRIGGER) != 0)
			continue;
		if (!CacheIsCaptureFunction(trig->tgfoid))
			*foreign = true;
		for (int a = 0; a < trig->tgnargs && !*foreign; a++)
			columns = lappend(columns, pstrdup(trig->tgargs[a]));
	}
	return columns;
}

/* Error unless column col of rel can be tracked (track) or is (untrack). */
static void
check_column(Relation rel, const char *col, List *tracked, bool untrack)
{
	Oid			relid = RelationGetRelid(rel);
	char	   *why;

	if (col == NULL || get_attnum(relid, col) <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist",
						col ? col : "NULL", rel_text(relid))));
	if (untrack)
	{
		if (!CacheColumnIsTracked(tracked, col))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("column \"%s\" of relation \"%s\" is not tracked", col, rel_text(relid)),
					 errhint("sfcache.tracked_columns lists the tracked columns.")));
		return;
	}
	if ((why = CacheColumnUntrackable(relid, col)) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot track column \"%s\" of \"%s\"", col, rel_text(relid)),
				 errdetail("Its values cannot be hashed so that equal values name the same tag: %s.",
						   why),
				 errhint("Results that compare it with constants are invalidated by every write of the table.")));
}

/* sfcache_internal.check_trackable(rel regclass, columns name[], untrack bool) */
Datum
sfcache_check_trackable_0_4(PG_FUNCTION_ARGS)
{
	Oid			relid;
	char		relkind;
	Relation	rel;
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	bool		foreign;
	List	   *tracked;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the table and its columns must not be null")));
	relid = PG_GETARG_OID(0);
	relkind = get_rel_relkind(relid);
	if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot track columns of \"%s\"",
						OidIsValid(get_rel_namespace(relid)) ? rel_text(relid) : psprintf("%u", relid)),
				 errdetail("Only tables and partitioned tables have rows whose writes can be captured.")));
	if (!object_ownercheck(RelationRelationId, relid, GetUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of table %s", rel_text(relid)),
				 errdetail("sfcache.track() and sfcache.untrack() create, replace and enable the table's trigger sfcache_capture.")));
	rel = table_open(relid, AccessShareLock);
	tracked = capture_trigger_columns(rel, &foreign);
	if (foreign)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("relation \"%s\" already has a trigger named sfcache_capture", rel_text(relid)),
				 errhint("Rename that trigger: sfcache.track() owns this name.")));
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(1), NAMEOID, NAMEDATALEN, false,
					  TYPALIGN_CHAR, &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
		check_column(rel, nulls[i] ? NULL : NameStr(*DatumGetName(elems[i])),
					 tracked, PG_GETARG_BOOL(2));
	table_close(rel, AccessShareLock);
	PG_RETURN_VOID();
}
