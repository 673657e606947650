/*-------------------------------------------------------------------------
 *
 * whatif.h
 *		The interface of extension/whatif, the hypothetical indexes: the
 *		entry points core_hooks.c calls and what the index advice uses.
 *		What the files whatif*.c share besides is in whatif_internal.h.
 *		It depends on base only.
 *
 * A hypothetical index lives in backend-local memory only.  It is added to
 * a relation's index list by get_relation_info_hook while sfcache plans a
 * statement for sfcache.whatif() or for the index advice, and while a plain
 * EXPLAIN (without ANALYZE) runs in a session that created some with
 * sfcache.hypothetical_index().  It is never seen by a statement that is
 * executed: only the planner call of the statement explained or costed is
 * offered one, not the planner calls nested in it (constant folding,
 * PL/pgSQL, SPI).
 *
 *-------------------------------------------------------------------------
 */
#ifndef SFCACHE_WHATIF_H
#define SFCACHE_WHATIF_H

#include "nodes/pathnodes.h"
#include "nodes/plannodes.h"

#include "base/base.h"

/* One hypothetical index, as parsed from its CREATE INDEX statement. */
typedef struct WhatifIndex
{
	Oid			oid;			/* an OID no relation uses */
	char		name[NAMEDATALEN];
	Oid			relid;			/* the table */
	Oid			amoid;			/* btree or gin */
	int			ncolumns;		/* key and INCLUDE columns */
	int			nkeycolumns;	/* key columns, first */
	int			indexkeys[INDEX_MAX_KEYS];	/* attnum, or 0 for expression */
	Oid			collations[INDEX_MAX_KEYS];
	Oid			opfamily[INDEX_MAX_KEYS];
	Oid			opcintype[INDEX_MAX_KEYS];
	bool		reverse_sort[INDEX_MAX_KEYS];
	bool		nulls_first[INDEX_MAX_KEYS];
	List	   *indexprs;		/* expressions, Vars with varno 1 */
	List	   *indpred;		/* implicit-AND predicate, varno 1 */
	double		pred_share;		/* share of the table the predicate holds,
								 * measured by the caller; -1: estimated from
								 * the statistics at each planning */
	bool		unique;
	/* the last size estimate, made when it was last given to the planner */
	BlockNumber pages;
	double		tuples;
	int			tree_height;
} WhatifIndex;

/* whatif.c: the hooks' entry points (core_hooks.c) */
extern void WhatifGetRelationInfo(PlannerInfo *root, Oid relid, bool inhparent,
								  RelOptInfo *rel);
extern const char *WhatifExplainIndexName(Oid indexid);
extern void WhatifPlannerBegin(void);
extern void WhatifPlannerEnd(void);

#define WHATIF_NOT_EXPLAIN (-2)
extern int	WhatifUtilityBegin(Node *stmt);
extern void WhatifUtilityEnd(int saved);

/* what the index advice uses: parse, size, plan with, walk a plan */
extern WhatifIndex *WhatifParseIndexDdl(const char *ddl);
extern int64 WhatifSizeBytes(const WhatifIndex *windex);
extern void WhatifEstimateSizeFromCatalog(WhatifIndex *windex);
extern PlannedStmt *WhatifPlan(Query *query, const char *sql, List *indexes);
extern Query *WhatifAnalyzeSelect(const char *sql);
typedef void (*WhatifPlanVisitor) (Plan *plan, Plan **ancestors, int depth,
								   void *arg);
extern void WhatifWalkPlan(PlannedStmt *stmt, WhatifPlanVisitor visit,
						   void *arg);
extern List *WhatifUsedIndexes(PlannedStmt *stmt, List *indexes);
extern void WhatifUseSearchPath(const char *search_path, int *nestlevel);

#endif							/* SFCACHE_WHATIF_H */
