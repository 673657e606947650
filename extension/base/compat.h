/*-------------------------------------------------------------------------
 *
 * compat.h
 *		The one place that knows which PostgreSQL major sfcache is built
 *		against (15 to 19). Every other file is written against the
 *		newest API (PostgreSQL 19's); this header gives the older majors
 *		the names, signatures and headers the code uses, so that no
 *		function body holds a PG_VERSION_NUM test.
 *
 * Each block says which major introduced the API and what the older ones
 * get instead. Where the older majors need more than a macro (a function
 * PostgreSQL only has from 17 on), the function lives in compat.c, under
 * the same version test. base.h includes this header, so every file of
 * the module sees it; the advisor (a libpq program) does not need it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef SFCACHE_COMPAT_H
#define SFCACHE_COMPAT_H

#include "commands/explain.h"
#include "executor/executor.h"
#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"
#include "optimizer/planner.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"

#if PG_VERSION_NUM < 150000
#error "sfcache requires PostgreSQL 15 or later"
#endif

/* ---- exported symbols (16: PGXS builds with -fvisibility=hidden) ---- */

/*
 * The module is built with -fvisibility=hidden (Makefile), as PostgreSQL
 * 16's PGXS builds modules: PostgreSQL loads it with RTLD_GLOBAL, so only
 * what PostgreSQL looks up is exported (_PG_init, the magic block, the
 * SQL-callable functions and their pg_finfo_ records). PostgreSQL 15's
 * PGDLLEXPORT is empty outside Windows: it is given 16's meaning here.
 */
#if PG_VERSION_NUM < 160000 && !defined(WIN32)
#undef PGDLLEXPORT
#define PGDLLEXPORT __attribute__((visibility("default")))
#endif

/* ---- 16: headers and names that moved ---- */

#if PG_VERSION_NUM >= 160000
#include "nodes/queryjumble.h"
#define SfcJumbleQuery(query, querytext)	JumbleQuery(query)
#else
#include "utils/queryjumble.h"
/* 16 renamed force_parallel_mode */
#define debug_parallel_query force_parallel_mode
/* 16 jumbles a utility statement's tree, not its text */
#define SfcJumbleQuery(query, querytext)	JumbleQuery((query), (querytext))
#endif

/*
 * ---- 16: GUC memory ----
 *
 * 16 keeps string settings (and a check hook's extra) in the GUC
 * machinery's own memory: a check hook that replaces *newval or sets
 * *extra allocates with guc_strdup() and frees with guc_free(). Up to 15
 * they were malloc() and free().
 */
#if PG_VERSION_NUM < 160000
#define guc_strdup(elevel, s)	strdup(s)
#define guc_free(p)	free(p)
#else
#include "utils/guc.h"
#endif

/* ---- 16: object_aclcheck() and object_ownercheck() ---- */

#if PG_VERSION_NUM < 160000
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_proc.h"

/* The catalogs sfcache asks about; 16 takes any catalog's oid. */
static inline AclResult
object_aclcheck(Oid classid, Oid objectid, Oid roleid, AclMode mode)
{
	if (classid == ProcedureRelationId)
		return pg_proc_aclcheck(objectid, roleid, mode);
	elog(ERROR, "sfcache: object_aclcheck() of catalog %u on PostgreSQL 15", classid);
	return ACLCHECK_NO_PRIV;
}

static inline bool
object_ownercheck(Oid classid, Oid objectid, Oid roleid)
{
	if (classid == RelationRelationId)
		return pg_class_ownercheck(objectid, roleid);
	if (classid == ExtensionRelationId)
		return pg_extension_ownercheck(objectid, roleid);
	elog(ERROR, "sfcache: object_ownercheck() of catalog %u on PostgreSQL 15", classid);
	return false;
}
#endif

/*
 * ---- 16: permissions live in RTEPermissionInfo, not in the range table ----
 *
 * 16 moved the permissions a statement needs out of its range table
 * entries into a list beside them (Query.rteperminfos, PlannedStmt.permInfos;
 * an entry points into its own query level's list by perminfoindex). A
 * plan made by hand must carry that list, or the executor checks nothing.
 * On 15 the entries themselves carry the permissions: the list is empty.
 */
#if PG_VERSION_NUM >= 160000
#define SfcQueryPermInfos(query)	((query)->rteperminfos)
#define SfcRtePermIndexShift(rte, offset) \
	((rte)->perminfoindex = (rte)->perminfoindex ? (rte)->perminfoindex + (offset) : 0)
#define SfcPlannedStmtSetPermInfos(stmt, list)	((stmt)->permInfos = (list))
#else
#define SfcQueryPermInfos(query)	((List *) NIL)
#define SfcRtePermIndexShift(rte, offset)	((void) (rte), (void) (offset))
#define SfcPlannedStmtSetPermInfos(stmt, list)	((void) (stmt), (void) (list))
#define ExecCheckPermissions(rtable, perminfos, ereport) \
	ExecCheckRTPerms((rtable), (ereport))
#endif

/*
 * ---- 16: get_guc_variables() says how many there are ----
 * (the caller includes utils/guc_tables.h)
 */
#if PG_VERSION_NUM < 160000
#define get_guc_variables(num_vars) \
	((*(num_vars) = GetNumConfigOptions()), (get_guc_variables) ())
#endif

/*
 * ---- 18: a list of constants is jumbled as one, squashed; a client's
 * parameter ($n) has a location too ----
 * A squashed list's location covers the whole list and its length is
 * already known; up to 17 every constant has its own location. A $n is
 * recorded (for lists of them) but is not a constant: the text keeps it,
 * as pg_stat_statements does when no list is squashed.
 */
#if PG_VERSION_NUM >= 180000
#define SfcConstantsSquashed(loc)	((loc).squashed)
#define SfcLocationIsParam(jstate, loc) \
	((loc).extern_param && !(jstate)->has_squashed_lists)
#else
#define SfcConstantsSquashed(loc)	((void) (loc), false)
#define SfcLocationIsParam(jstate, loc)	((void) (jstate), (void) (loc), false)
#endif

/*
 * ---- 18: lc_collate_is_c() is gone: the collation's pg_locale_t says ----
 * (the caller includes utils/pg_locale.h)
 */
#if PG_VERSION_NUM < 180000
#define SfcCollationIsC(collid)	lc_collate_is_c(collid)
#else
#define SfcCollationIsC(collid) \
	(OidIsValid(collid) && pg_newlocale_from_collation(collid)->collate_is_c)
#endif

/*
 * ---- 19: pg_fallthrough (19 warns with -Wimplicit-fallthrough=5, which reads
 * no comment) ----
 */
#ifndef pg_fallthrough
#if defined(__has_attribute)
#if __has_attribute(fallthrough)
#define pg_fallthrough __attribute__((fallthrough))
#endif
#endif
#endif
#ifndef pg_fallthrough
#define pg_fallthrough ((void) 0)
#endif

/* ---- 17: PGPROC.pgprocno is gone ---- */

#if PG_VERSION_NUM < 170000
#define GetNumberFromPGProc(proc)	((proc)->pgprocno)
#endif

/* ---- 17: standard_ExplainOneQuery() (compat.c on 15 and 16) ---- */

#if PG_VERSION_NUM < 170000
extern void standard_ExplainOneQuery(Query *query, int cursorOptions,
									 IntoClause *into, ExplainState *es,
									 const char *queryString, ParamListInfo params,
									 QueryEnvironment *queryEnv);
#endif

/*
 * ---- 17: custom wait events ----
 *
 * 17 names an extension's waits in pg_stat_activity (WaitEventExtensionNew:
 * "SfcacheSingleflight" rather than "Extension"); 15 and 16 have one
 * generic wait event for every extension. SfcWaitEvent (compat.c) returns
 * the event to wait under, registered once per backend.
 */
#if PG_VERSION_NUM >= 170000
extern uint32 SfcWaitEvent(const char *name);
#else
#include "utils/wait_event.h"
#define SfcWaitEvent(name)	((void) (name), PG_WAIT_EXTENSION)
#endif

/* ---- 18: EXPLAIN's formatting functions have their own header ---- */

#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#include "commands/explain_state.h"
#endif

/* ---- 18: ExecutorRun() lost execute_once ---- */

/*
 * The executor hook is declared and chained with these: 15 to 17 pass
 * execute_once through unchanged. Code that runs a plan itself calls
 * ExecutorRun() with 18's three arguments.
 */
#if PG_VERSION_NUM >= 180000
#define SFC_EXECUTOR_RUN_PARAMS \
	QueryDesc *queryDesc, ScanDirection direction, uint64 count
#define SFC_EXECUTOR_RUN_ARGS	queryDesc, direction, count
#else
#define SFC_EXECUTOR_RUN_PARAMS \
	QueryDesc *queryDesc, ScanDirection direction, uint64 count, bool execute_once
#define SFC_EXECUTOR_RUN_ARGS	queryDesc, direction, count, execute_once
static inline void
sfc_executor_run(QueryDesc *queryDesc, ScanDirection direction, uint64 count)
{
	ExecutorRun(queryDesc, direction, count, true);
}
#define ExecutorRun(queryDesc, direction, count) \
	sfc_executor_run((queryDesc), (direction), (count))
#endif

/*
 * ---- 18: operators' index interpretation ----
 *
 * 18 names comparisons by CompareType (get_op_index_interpretation,
 * get_ordering_op_properties); older majors by btree strategy number, which
 * the COMPARE_ names stand for there.
 */

#if PG_VERSION_NUM >= 180000
#define SfcOpInterpretationCmp(interp)	((interp)->cmptype)
#else
#include "access/stratnum.h"
#include "utils/lsyscache.h"
typedef OpBtreeInterpretation OpIndexInterpretation;

typedef int16 CompareType;

#define get_op_index_interpretation(opno)	get_op_btree_interpretation(opno)
#define SfcOpInterpretationCmp(interp)	((interp)->strategy)
#define COMPARE_LT	BTLessStrategyNumber
#define COMPARE_LE	BTLessEqualStrategyNumber
#define COMPARE_EQ	BTEqualStrategyNumber
#define COMPARE_GE	BTGreaterEqualStrategyNumber
#define COMPARE_GT	BTGreaterStrategyNumber
#endif

/*
 * ---- 19: the planner is told about the EXPLAIN that plans ----
 *
 * planner_hook, standard_planner() and pg_plan_query() take the
 * ExplainState of the EXPLAIN that plans the statement (NULL otherwise).
 * Older majors plan without it.
 */
#if PG_VERSION_NUM >= 190000
#define SFC_PLANNER_PARAMS \
	Query *parse, const char *query_string, int cursorOptions, \
	ParamListInfo boundParams, ExplainState *es
#define SFC_PLANNER_ARGS	parse, query_string, cursorOptions, boundParams, es
#else
#define SFC_PLANNER_PARAMS \
	Query *parse, const char *query_string, int cursorOptions, \
	ParamListInfo boundParams
#define SFC_PLANNER_ARGS	parse, query_string, cursorOptions, boundParams
static inline PlannedStmt *
sfc_pg_plan_query(Query *query, const char *query_string, int cursorOptions,
				  ParamListInfo boundParams)
{
	return pg_plan_query(query, query_string, cursorOptions, boundParams);
}
static inline PlannedStmt *
sfc_standard_planner(Query *query, const char *query_string, int cursorOptions,
					 ParamListInfo boundParams)
{
	return standard_planner(query, query_string, cursorOptions, boundParams);
}
#define pg_plan_query(query, query_string, cursorOptions, boundParams, es) \
	sfc_pg_plan_query((query), (query_string), (cursorOptions), (boundParams))
#define standard_planner(query, query_string, cursorOptions, boundParams, es) \
	sfc_standard_planner((query), (query_string), (cursorOptions), (boundParams))
#endif

/*
 * ---- 19: build_simple_rel_hook replaces get_relation_info_hook ----
 *
 * 19 lets an extension edit each new RelOptInfo, with its range table
 * entry, once build_simple_rel() has filled it in. Older majors get the
 * same hook variable, called by a get_relation_info_hook that
 * SfcCompatHooksInit() installs (compat.c); it chains to the
 * get_relation_info_hook installed before it.
 */
#if PG_VERSION_NUM >= 190000
#include "optimizer/pathnode.h"
#define SfcCompatHooksInit()	((void) 0)
#else
#include "nodes/pathnodes.h"
#define build_simple_rel_hook	sfc_build_simple_rel_hook
typedef void (*build_simple_rel_hook_type) (PlannerInfo *root,
											RelOptInfo *rel,
											RangeTblEntry *rte);
extern build_simple_rel_hook_type build_simple_rel_hook;
extern void SfcCompatHooksInit(void);
#endif

/*
 * ---- 18 and 19: scans and slots take more arguments ----
 *
 * 18's index_beginscan() takes the instrumentation of the scan (NULL:
 * none); 19's index_beginscan(), table_beginscan() and ExecAllocTableSlot()
 * take flags (0: the defaults). Older majors drop what they lack.
 */
#include "access/genam.h"
#include "access/tableam.h"
#include "executor/tuptable.h"
#if PG_VERSION_NUM < 180000
static inline IndexScanDesc
sfc_index_beginscan(Relation heap, Relation index, Snapshot snapshot,
					int nkeys, int norderbys)
{
	return index_beginscan(heap, index, snapshot, nkeys, norderbys);
}
#define index_beginscan(heap, index, snapshot, instrument, nkeys, norderbys, flags) \
	sfc_index_beginscan((heap), (index), (snapshot), (nkeys), (norderbys))
#elif PG_VERSION_NUM < 190000
static inline IndexScanDesc
sfc_index_beginscan(Relation heap, Relation index, Snapshot snapshot,
					IndexScanInstrumentation *instrument, int nkeys, int norderbys)
{
	return index_beginscan(heap, index, snapshot, instrument, nkeys, norderbys);
}
#define index_beginscan(heap, index, snapshot, instrument, nkeys, norderbys, flags) \
	sfc_index_beginscan((heap), (index), (snapshot), (instrument), (nkeys), (norderbys))
#endif
#if PG_VERSION_NUM < 190000
static inline TableScanDesc
sfc_table_beginscan(Relation rel, Snapshot snapshot, int nkeys, struct ScanKeyData *key)
{
	return table_beginscan(rel, snapshot, nkeys, key);
}
static inline TupleTableSlot *
sfc_exec_alloc_table_slot(List **tupleTable, TupleDesc desc,
						  const TupleTableSlotOps *tts_ops)
{
	return ExecAllocTableSlot(tupleTable, desc, tts_ops);
}
#define table_beginscan(rel, snapshot, nkeys, key, flags) \
	sfc_table_beginscan((rel), (snapshot), (nkeys), (key))
#define ExecAllocTableSlot(tupleTable, desc, tts_ops, flags) \
	sfc_exec_alloc_table_slot((tupleTable), (desc), (tts_ops))
#endif

/*
 * ---- 19: shared memory, LWLock tranches, result relations, instruments ----
 *
 * ShmemInitHash() takes one size (sfcache always gave the same initial
 * and maximum size); LWLockNewTrancheId() takes the tranche's name and
 * registers it for every backend, so LWLockRegisterTranche() is gone
 * (SfcLWLockRegisterTranche: what each backend did before 19);
 * PlannedStmt.resultRelations became a set, resultRelationRelids
 * (SfcResultRelationRelids); a plan node's instrumentation is a
 * NodeInstrumentation whose total time is an instr_time.
 */
#include "executor/instrument.h"
#include "nodes/bitmapset.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#if PG_VERSION_NUM >= 190000
#define SfcLWLockRegisterTranche(id, name)	((void) (id), (void) (name))
#define SfcResultRelationRelids(stmt)	((stmt)->resultRelationRelids)
#define SfcInstrNeedTimer(instr)	((instr)->instr.need_timer)
#define SfcInstrTotalMs(instr)	INSTR_TIME_GET_MILLISEC((instr)->instr.total)
#else
static inline HTAB *
sfc_shmem_init_hash(const char *name, long nelems, HASHCTL *infoP, int hash_flags)
{
	return ShmemInitHash(name, nelems, nelems, infoP, hash_flags);
}
#define ShmemInitHash(name, nelems, infoP, hash_flags) \
	sfc_shmem_init_hash((name), (nelems), (infoP), (hash_flags))
static inline int
sfc_lwlock_new_tranche_id(const char *name)
{
	int			id = LWLockNewTrancheId();

	LWLockRegisterTranche(id, name);
	return id;
}
#define LWLockNewTrancheId(name)	sfc_lwlock_new_tranche_id(name)
#define SfcLWLockRegisterTranche(id, name)	LWLockRegisterTranche((id), (name))
typedef Instrumentation NodeInstrumentation;
#define SfcInstrNeedTimer(instr)	((instr)->need_timer)
#define SfcInstrTotalMs(instr)	((instr)->total * 1000.0)

/* 19's set of the result relations' range table indexes, from 15-18's list */
static inline Bitmapset *
SfcResultRelationRelids(PlannedStmt *stmt)
{
	Bitmapset  *relids = NULL;
	ListCell   *lc;

	foreach(lc, stmt->resultRelations)
		relids = bms_add_member(relids, lfirst_int(lc));
	return relids;
}
#endif

/*
 * ---- 19: index scans allocate their instrumentation after EXPLAIN_ONLY ----
 *
 * An index scan started with EXEC_FLAG_EXPLAIN_ONLY leaves its
 * IndexScanInstrumentation unallocated on 19 (up to 18 it is part of the
 * node), while EXPLAIN ANALYZE reads it: a plan started only to be shown
 * under ANALYZE (a hit's child) gets zeroed ones (compat.c).
 */
#if PG_VERSION_NUM >= 190000
extern void SfcExplainOnlyInstrument(PlanState *planstate);
#else
#define SfcExplainOnlyInstrument(planstate)	((void) (planstate))
#endif

/*
 * ---- 19: post_parse_analyze_hook's JumbleState is const; the scanner has
 * no escape_string_warning (the setting is gone) ----
 */
#if PG_VERSION_NUM >= 190000
typedef const JumbleState SfcHookJumbleState;
#define SfcScannerQuiet(extra)	((void) (extra))
#else
typedef JumbleState SfcHookJumbleState;
#define SfcScannerQuiet(extra)	((extra).escape_string_warning = false)
#endif

#endif							/* SFCACHE_COMPAT_H */
