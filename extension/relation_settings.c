/*-------------------------------------------------------------------------
 *
 * relation_settings.c
 *		Per-relation cache settings (a TTL override, exclusion), stored in
 *		the table sfcache.relation_settings and cached in each backend.
 *
 * The table is small and read whole, through SPI, the first time a
 * backend needs it and again after it changes: a statement trigger on the
 * table sends a relcache invalidation for it, which every backend receives
 * at its next statement. A database without the extension has no settings.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "sfcache.h"

typedef struct RelationSetting
{
	Oid			relid;
	int			ttl_s;			/* 0: none */
	bool		excluded;
} RelationSetting;

static HTAB *settings = NULL;
static bool settings_valid = false;
static Oid	settings_relid = InvalidOid;	/* InvalidOid: look it up again */

static void
settings_relcache_callback(Datum arg, Oid relid)
{
	if (relid == InvalidOid || relid == settings_relid)
		settings_valid = false;
}

static void
settings_namespace_callback(Datum arg, int cacheid, uint32 hashvalue)
{
	settings_relid = InvalidOid;
	settings_valid = false;
}

static Oid
lookup_settings_table(void)
{
	Oid			nsp = get_namespace_oid("sfcache", true);

	return OidIsValid(nsp) ? get_relname_relid("relation_settings", nsp) : InvalidOid;
}

static void
load_rows(void)
{
	SPI_execute("SELECT relid, ttl_seconds, excluded FROM sfcache.relation_settings",
				true, 0);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		Oid			relid = DatumGetObjectId(SPI_getbinval(tup, desc, 1, &isnull));
		RelationSetting *s = hash_search(settings, &relid, HASH_ENTER, NULL);
		Datum		ttl = SPI_getbinval(tup, desc, 2, &isnull);

		s->ttl_s = isnull ? 0 : DatumGetInt32(ttl);
		s->excluded = DatumGetBool(SPI_getbinval(tup, desc, 3, &isnull)) && !isnull;
	}
}

/* (Re)read the settings table if it changed since the last read. */
static void
ensure_loaded(void)
{
	HASHCTL		info;

	if (settings_valid)
		return;
	if (settings != NULL)
		hash_destroy(settings);
	info.keysize = sizeof(Oid);
	info.entrysize = sizeof(RelationSetting);
	info.hcxt = TopMemoryContext;
	settings = hash_create("sfcache relation settings", 64, &info,
						   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	settings_relid = lookup_settings_table();
	settings_valid = true;
	if (!OidIsValid(settings_relid))
		return;

	/* the query SPI runs must not be considered for caching itself */
	sfc_nesting_level++;
	PG_TRY();
	{
		SPI_connect();
		load_rows();
		SPI_finish();
	}
	PG_FINALLY();
	{
		sfc_nesting_level--;
	}
	PG_END_TRY();
}

static RelationSetting *
setting_for(Oid relid)
{
	ensure_loaded();
	return hash_search(settings, &relid, HASH_FIND, NULL);
}

bool
RelationIsExcluded(Oid relid)
{
	RelationSetting *s = setting_for(relid);

	return s != NULL && s->excluded;
}

int
RelationTtl(Oid relid)
{
	RelationSetting *s = setting_for(relid);

	return s != NULL ? s->ttl_s : 0;
}

void
RelationSettingsInit(void)
{
	CacheRegisterRelcacheCallback(settings_relcache_callback, (Datum) 0);
	CacheRegisterSyscacheCallback(NAMESPACEOID, settings_namespace_callback, (Datum) 0);
}

PG_FUNCTION_INFO_V1(sfcache_relation_settings_changed_0_1);

/* Statement trigger on sfcache.relation_settings: tell every backend. */
Datum
sfcache_relation_settings_changed_0_1(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function sfcache.relation_settings_changed() must be called as a trigger")));
	CacheInvalidateRelcacheByRelid(RelationGetRelid(trigdata->tg_relation));
	return PointerGetDatum(NULL);
}
