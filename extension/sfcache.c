/*-------------------------------------------------------------------------
 *
 * sfcache.c
 *		Module entry point: refuses to load unless preloaded, reserves the
 *		"sfcache." GUC prefix and lets each subsystem install its GUCs,
 *		hooks and shared memory.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/queryjumble.h"
#include "utils/guc.h"

#include "sfcache.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

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

	CacheGucInit();
	SfcacheShmemInit();
	InvalInit();
	CachePlanInit();
	CacheExplainInit();
	CacheScanInit();
	RelationSettingsInit();
	EnableQueryId();
	AdviceInit();

	MarkGUCPrefixReserved("sfcache");
}
