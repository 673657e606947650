/*-------------------------------------------------------------------------
 *
 * base.h
 *		The interface of extension/base, the layer below the subsystems:
 *		what every subsystem and core may use.
 *
 * Base owns the shared-memory registry (each subsystem registers its
 * parts; core requests and initialises them), whether sfcache is created
 * in this database, the statement nesting level, the query ids it
 * computes when the core computes none, the relations and permissions of
 * a query tree, and the test-only hold on an advisory lock.
 * It includes no subsystem's header: every include points down, from core
 * (the entry, extension/core) to the subsystems to here. compat.h,
 * included here, is the one place that knows the PostgreSQL major.
 *
 *-------------------------------------------------------------------------
 */
#ifndef SFCACHE_BASE_H
#define SFCACHE_BASE_H

#include "access/xact.h"
#include "catalog/objectaccess.h"
#include "datatype/timestamp.h"
#include "executor/execdesc.h"
#include "fmgr.h"
#include "nodes/nodes.h"

#include "base/compat.h"

/* ---- exported symbols ---- */

/*
 * Only what PostgreSQL looks up is exported (compat.h: PGDLLEXPORT);
 * SFC_FUNCTION_INFO_V1 also declares the function itself exported, which
 * 15's PG_FUNCTION_INFO_V1 does not.
 */
#define SFC_FUNCTION_INFO_V1(funcname) \
	extern PGDLLEXPORT Datum funcname(PG_FUNCTION_ARGS); \
	PG_FUNCTION_INFO_V1(funcname)

/* ---- shared memory (base_shmem.c) ---- */

/*
 * One subsystem's part of sfcache's shared memory. size() is pure: it
 * computes, it requests nothing. init() runs at every shared memory
 * (re)initialisation with AddinShmemInitLock held, and must create its
 * state only when ShmemInitStruct/ShmemInitHash did not find it.
 */
typedef struct SfcShmemPart
{
	const char *tranche;		/* named LWLock tranche to request, or NULL */
	int			nlocks;			/* LWLocks in that tranche */
	Size		(*size) (void);
	void		(*init) (void);
} SfcShmemPart;

extern void SfcShmemRegister(const SfcShmemPart *part);
extern void SfcShmemRequest(void);
extern void SfcShmemStartup(void);
extern TimestampTz SfcSharedStartedAt(void);

/* ---- is sfcache created in this database? (base_extension.c) ---- */

extern void SfcExtensionInit(void);
extern bool SfcExtensionActive(void);
extern bool SfcExtensionWasActive(void);
extern bool SfcExtensionChangedInXact(bool *created);

/* base_extension.c: its parts of the hooks (core/core_hooks.c) */
extern bool SfcExtensionDroppedInXact(void);
extern void SfcExtensionObjectAccess(ObjectAccessType access, Oid classId, Oid objectId);
extern void SfcExtensionXactEvent(XactEvent event);
extern void SfcExtensionUtilityDone(Node *stmt);

/* ---- statement nesting level (base_nesting.c) ---- */

/* 0 while a client's statement runs; more inside executors and utilities */
extern int	sfc_nesting_level;

extern bool SfcUtilityNests(Node *stmt);
extern bool SfcAtClientLevel(void);
extern void SfcExecutorStartForClient(QueryDesc *queryDesc, int eflags);

/* ---- query ids (base_queryid.c) ---- */

extern bool SfcQueryIdsOwn(void);
extern JumbleState *SfcComputeQueryId(Query *query, const char *querytext);

/* ---- relations and permissions of a query tree (base_rtable.c) ---- */

extern void SfcCollectRelations(Query *query, List **rtable, List **perminfos);
extern void SfcCheckQueryPermissions(Query *query);

/* ---- deterministic concurrency tests (base_test_hold.c) ---- */

extern void SfcTestHoldOnAdvisoryLock(int key);

/* base_settings.c */
extern void SfcWarnUnknownSettings(void);

/* ---- statement texts without their constants (base_normalize.c) ---- */

extern bool sfc_literal_texts;
extern void SfcNormalizeInit(void);
extern void SfcRememberStatementText(const char *source, Query *query,
									 const JumbleState *jstate);
extern char *SfcStatementText(uint64 queryid, const char *source, int location, int length);

#endif							/* SFCACHE_BASE_H */
