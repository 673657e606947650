/*-------------------------------------------------------------------------
 *
 * core.h
 *		The interface of extension/core: what every subsystem may use.
 *
 * Core owns _PG_init, the "sfcache." settings prefix, the shared-memory
 * registry, every hook point PostgreSQL offers (core_hooks.c calls the
 * subsystems in a written order) and the statement nesting level.
 * Subsystems include this header; core never calls back into a subsystem
 * except through the Init, hook and shared-memory entry points it lists in
 * core_hooks.c and sfcache.c. compat.h, included here, is the one place
 * that knows the PostgreSQL major.
 *
 *-------------------------------------------------------------------------
 */
#ifndef SFCACHE_CORE_H
#define SFCACHE_CORE_H

#include "access/xact.h"
#include "catalog/objectaccess.h"
#include "datatype/timestamp.h"
#include "executor/execdesc.h"
#include "fmgr.h"
#include "nodes/nodes.h"

#include "core/compat.h"

/* ---- exported symbols ---- */

/*
 * Only what PostgreSQL looks up is exported (compat.h: PGDLLEXPORT);
 * SFC_FUNCTION_INFO_V1 also declares the function itself exported, which
 * 15's PG_FUNCTION_INFO_V1 does not.
 */
#define SFC_FUNCTION_INFO_V1(funcname) \
	extern PGDLLEXPORT Datum funcname(PG_FUNCTION_ARGS); \
	PG_FUNCTION_INFO_V1(funcname)

/* ---- shared memory (core_shmem.c) ---- */

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

/* ---- is sfcache created in this database? (core_extension.c) ---- */

extern void SfcExtensionInit(void);
extern bool SfcExtensionActive(void);
extern bool SfcExtensionWasActive(void);
extern bool SfcExtensionChangedInXact(bool *created);

/* core_extension.c: its parts of the hooks (core_hooks.c) */
extern void SfcExtensionObjectAccess(ObjectAccessType access, Oid classId);
extern void SfcExtensionXactEvent(XactEvent event);
extern void SfcExtensionUtilityDone(Node *stmt);

/* ---- hook points (core_hooks.c) ---- */

extern void SfcHooksInit(void);

/* ---- statement nesting level (core_nesting.c) ---- */

/* 0 while a client's statement runs; more inside executors and utilities */
extern int	sfc_nesting_level;

extern bool SfcUtilityNests(Node *stmt);
extern bool SfcAtClientLevel(void);
extern void SfcExecutorStartForClient(QueryDesc *queryDesc, int eflags);

/* ---- relations and permissions of a query tree (core_rtable.c) ---- */

extern void SfcCollectRelations(Query *query, List **rtable, List **perminfos);
extern void SfcCheckQueryPermissions(Query *query);

/* ---- deterministic concurrency tests (core_test_hold.c) ---- */

extern void SfcTestHoldOnAdvisoryLock(int key);

#endif							/* SFCACHE_CORE_H */
