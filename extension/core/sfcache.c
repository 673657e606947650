/*-------------------------------------------------------------------------
 *
 * sfcache.c
 *		Module entry point: refuses to load unless preloaded, lets each
 *		subsystem define its settings, shared memory parts and callbacks
 *		(its Init), installs the hooks that dispatch to them
 *		(core_hooks.c) and reserves the "sfcache." settings prefix.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/guc.h"

#include "core/core.h"
#include "advice/advice.h"
#include "bus/bus.h"
#include "cache/cache.h"

PG_MODULE_MAGIC;

extern PGDLLEXPORT void _PG_init(void);

void
_PG_init(void)
{
	/*
	 * Shared memory and hooks on every backend are only possible from
	 * shared_preload_libraries; a half-loaded cache could serve stale rows.
	 */
	if (!process_shared_preload_libraries_in_progress)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("sfcache must be loaded via \"shared_preload_libraries\""),
				 errhint("Add sfcache to the \"shared_preload_libraries\" setting in postgresql.conf and restart the server.")));

	/*
	 * The cache registers its shared memory parts before the advice's: that
	 * is the order they are initialised in; the Redis bus (bus/) registers
	 * its part, its commit callback, its standby rule and its background
	 * worker after them. The hypothetical indexes (whatif/) have no settings
	 * nor shared state: only hooks. The base's part (whether sfcache is
	 * created in each database, base_extension.c) comes first.
	 */
	SfcExtensionInit();
	SfcNormalizeInit();
	CacheInit();
	AdviceInit();
	BusInit();
	CoreHooksInit();

	SfcWarnUnknownSettings();
	MarkGUCPrefixReserved("sfcache");
}
