/*-------------------------------------------------------------------------
 *
 * sfcache.c
 *		Module entry point: refuses to load unless preloaded, reserves the
 *		"sfcache." GUC prefix and lets each subsystem install its GUCs,
 *		hooks and shared memory; and the call to the next utility hook
 *		that every subsystem's hook ends with.
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

/*
 * The next ProcessUtility in the chain: the hook installed before ours, or
 * PostgreSQL's own. Every file with a utility hook ends with this call.
 */
void
CallNextProcessUtility(ProcessUtility_hook_type prev, PlannedStmt *pstmt,
					   const char *queryString, bool readOnlyTree,
					   ProcessUtilityContext context, ParamListInfo params,
					   QueryEnvironment *queryEnv, DestReceiver *dest,
					   QueryCompletion *qc)
{
	if (prev)
		prev(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
}
