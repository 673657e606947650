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
 * core_hooks.c and sfcache.c.
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

/* ---- exported symbols ---- */

/*
 * The module is built with -fvisibility=hidden (Makefile), as PostgreSQL
 * 16's PGXS builds modules: PostgreSQL loads it with RTLD_GLOBAL, so only
 * what PostgreSQL looks up is exported (_PG_init, the magic block, the
 * SQL-callable functions and their pg_finfo_ records). PostgreSQL 15's
 * PGDLLEXPORT is empty outside Windows: it is given 16's meaning here, and
 * SFC_FUNCTION_INFO_V1 also declares the function itself exported, which
 * 15's PG_FUNCTION_INFO_V1 does not. The only version shim of the module.
 */
#if PG_VERSION_NUM < 160000 && !defined(WIN32)
#undef PGDLLEXPORT
#define PGDLLEXPORT __attribute__((visibility("default")))
#endif

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

/* ---- deterministic concurrency tests (core_test_hold.c) ---- */

extern void SfcTestHoldOnAdvisoryLock(int key);

#endif							/* SFCACHE_CORE_H */
