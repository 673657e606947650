/*-------------------------------------------------------------------------
 *
 * advice_internal.h
 *		What the files advice_*.c of extension/advice, the index advice,
 *		share; what core sees is in advice.h.
 *
 * The advice depends on base, on the hypothetical indexes (whatif/, to
 * verify its suggestions) and on the result cache only to register its
 * invalidation callback; none of them calls into the advice.
 *
 *	advice_guc.c	settings
 *	advice_hooks.c	Init, executor and utility hooks, sampling
 *	advice_walk.c	walk of a finished PlanState tree into observations
 *	advice_qual.c	classification of one qual (column or expression,
 *					operator, kind)
 *	advice_store.c	the shared-memory record (quals, statements, tables)
 *	advice_persist.c the record's file: written at clean shutdown, read at
 *					start (pg_stat/sfcache_advice.stat)
 *	advice_build.c	candidate indexes from a re-planned statement
 *	advice_rules.c	the suggestion rules (column order, opclass, partial)
 *	advice_existing.c what the table's existing indexes already serve
 *	advice_verify.c per-statement verification of candidates (the mode
 *					of sfcache.advice_search = off) and their variants
 *	advice_merge.c	merged candidates across statements of one table
 *	advice_search.c the configuration search over the whole workload
 *	advice_window.c	windows of the result cache starved for want of an
 *					index: recorded, and read back as window advice
 *	advice_sql.c	the SQL-callable functions behind the views
 *
 *-------------------------------------------------------------------------
 */
#ifndef SFCACHE_ADVICE_INTERNAL_H
#define SFCACHE_ADVICE_INTERNAL_H

#include "datatype/timestamp.h"
#include "executor/execdesc.h"
#include "nodes/plannodes.h"
#include "nodes/primnodes.h"

#include "advice/advice.h"
#include "cache/cache.h"
#include "whatif/whatif.h"

#define ADVICE_EXPR_LEN		64	/* deparsed column or expression, shown */
#define ADVICE_QUERYIDS		4	/* query ids kept per qual */
#define ADVICE_TEXT_LEN		2048	/* longest statement kept for re-planning */
#define ADVICE_PATH_LEN		256 /* longest search_path kept with it */

/* Where in the plan a qual was evaluated. */
typedef enum AdviceRole
{
	ADVICE_ROLE_SEQSCAN = 0,	/* qual of a sequential scan */
	ADVICE_ROLE_FILTER,			/* filter after an index */
	ADVICE_ROLE_INDEXCOND,		/* index condition of a partly served scan */
	ADVICE_ROLE_SORT,			/* ORDER BY key of a LIMIT over the scan */
	ADVICE_ROLE_WINDOW			/* a result cache window starved for want of
								 * an index on it (calls: windows) */
} AdviceRole;

/* What kind of index could serve a qual. */
typedef enum AdviceKind
{
	ADVICE_KIND_EQ = 'e',		/* =, IN, = ANY: btree, equality */
	ADVICE_KIND_BOOL = 'b',		/* col, NOT col: btree equality or predicate */
	ADVICE_KIND_NULL = 'n',		/* IS NULL: btree equality */
	ADVICE_KIND_RANGE = 'r',	/* <, <=, >, >=, LIKE 'x%': btree range */
	ADVICE_KIND_GIN = 'g',		/* jsonb, array, trigram or other GIN operator */
	ADVICE_KIND_SORT = 's',		/* ORDER BY key */
	ADVICE_KIND_WINDOW = 'w'	/* windowed range column: btree, alone */
} AdviceKind;

/* One classified qual, backend-local. */
typedef struct AdviceQual
{
	AdviceKind	kind;
	AttrNumber	attnum;			/* column, or 0 for an expression */
	Expr	   *key;			/* the indexable side (Var or expression) */
	Oid			opno;			/* operator with key on the left, or 0 */
	bool		is_const;		/* compared to a constant? */
	uint32		const_hash;		/* hash of that constant */
	Expr	   *clause;			/* the whole qual, key on the left */
	const char *opclass;		/* operator class the key needs, or NULL */
	bool		pred_only;		/* only an index predicate serves it (IS NOT
								 * TRUE) */
} AdviceQual;

/*
 * advice_persist.c saves the record's entries (AdviceQualKey,
 * AdviceQualStats, advice_store.c's entry structs) byte for byte: change
 * ADVICE_FILE_FORMAT (advice_persist.c) with any of their fields. A file
 * whose entry sizes differ is refused anyway.
 */

/* The shared-memory key of a recorded qual. */
typedef struct AdviceQualKey
{
	Oid			dbid;
	Oid			userid;
	Oid			relid;
	Oid			opno;
	uint32		exprhash;		/* hash of the deparsed key */
	AttrNumber	attnum;
	int16		role;			/* AdviceRole */
} AdviceQualKey;

/* What one sampled execution observed about one qual. */
typedef struct AdviceObservation
{
	AdviceQualKey key;
	char		kind;
	char		expr[ADVICE_EXPR_LEN];
	bool		is_const;
	uint32		const_hash;
	int64		rows_scanned;
	int64		rows_removed;
	int64		rows_returned;
	double		time_ms;
} AdviceObservation;

/* A recorded qual as copied out of shared memory. */
typedef struct AdviceQualStats
{
	AdviceQualKey key;
	char		kind;
	char		expr[ADVICE_EXPR_LEN];
	bool		const_varies;	/* compared to more than one constant */
	int64		calls;
	int64		rows_scanned;
	int64		rows_removed;
	int64		rows_returned;
	double		time_ms;
	int			nqueryids;
	uint64		queryids[ADVICE_QUERYIDS];
} AdviceQualStats;

/* A recorded statement as copied out of shared memory. */
typedef struct AdviceStatement
{
	Oid			userid;
	uint64		queryid;
	int64		calls;
	char	   *search_path;
	char	   *text;
} AdviceStatement;

/* A table's observed writes as copied out of shared memory. */
typedef struct AdviceTableStats
{
	Oid			relid;
	int64		writes;
	int64		invalidations;	/* committed transactions that wrote it */
	TimestampTz first_seen;		/* first write or invalidation */
	TimestampTz last_write;		/* 0: none seen */
	TimestampTz last_invalidation;	/* 0: none seen */
} AdviceTableStats;

/* One statement re-planned for the advice. */
typedef struct AdvicePlanned
{
	AdviceStatement *stmt;
	Query	   *query;			/* analysed, to be planned again */
	double		cost;			/* estimated cost without hypothetical indexes */
	List	   *relids;			/* tables its plan scans */
} AdvicePlanned;

/* A candidate index, backend-local. */
typedef struct AdviceCandidate
{
	Oid			relid;
	bool		gin;
	List	   *eq;				/* AdviceQual *: =, IN, IS NULL, boolean */
	List	   *range;			/* AdviceQual *: <, <=, >, >= */
	List	   *sort;			/* AdviceQual *: ORDER BY keys under a LIMIT */
	List	   *ginquals;		/* AdviceQual *: GIN operators on one key */
	double		share;			/* share of the table the scan returns */
	List	   *sources;		/* AdvicePlanned * it was found in */
	/* columns, as attnum - FirstLowInvalidHeapAttributeNumber */
	bool		columns_known;	/* output and filtered are known */
	Bitmapset  *output;			/* what the statement returns from it */
	Bitmapset  *filtered;		/* what its clauses test */
	List	   *include;		/* AttrNumber of INCLUDE columns (int list) */
	/* set by the rules and the verification */
	char	   *ddl;
	char	   *name;
	char	   *replaces;		/* existing index it extends, or NULL */
	const char *opclass;		/* GIN operator class named in the DDL */
	List	   *keys;			/* AdviceQual * of the key columns, in order */
	List	   *pred;			/* AdviceQual * turned into the WHERE clause */
	struct WhatifIndex *windex;
	double		cost_before;
	double		cost_after;
	/* set by the configuration search (advice_search.c) */
	double		gain;			/* last evaluated saving, upkeep deducted */
	double		improved;		/* cost before of the statements it improved */
	double		upkeep;			/* maintenance cost under the write rate */
	double		marginal;		/* its share of the configuration's saving */
	List	   *served;			/* AdvicePlanned * whose plan uses it */
	double	   *costs;			/* per ctx->planned: cost with it, last
								 * evaluation */
	bool		chosen;
	bool		stale;			/* gain to be evaluated again */
} AdviceCandidate;

/* Budgets and bounds of one configuration search. */
typedef struct AdviceSearchLimits
{
	int64		max_size;		/* bytes; -1: none */
	int			max_indexes;	/* -1: none */
} AdviceSearchLimits;

/* The work one configuration search did, for sfcache.index_advice_work. */
typedef struct AdviceSearchWork
{
	int			statements;		/* recorded statements costed */
	int			candidates;		/* candidate indexes (variants, merged) */
	int64		plannings;		/* plannings made */
	int64		max_plannings;	/* the bound (sfcache.advice_max_plannings) */
	bool		truncated;		/* the bound stopped the search */
	int			chosen;
	double		cost_before;	/* workload cost (calls x cost) without */
	double		cost_after;		/* and with the configuration */
} AdviceSearchWork;

/* Everything one computation of sfcache.index_advice works with. */
typedef struct AdviceContext
{
	List	   *planned;		/* AdvicePlanned * */
	List	   *quals;			/* AdviceQualStats * recorded */
	List	   *candidates;		/* AdviceCandidate * */
} AdviceContext;

/* advice_build.c */
extern bool AdviceTry(void (*fn) (void *arg), void *arg);
extern void AdviceAsRole(Oid userid, const char *search_path,
						 void (*fn) (void *arg), void *arg);
extern void AdviceBuildCandidates(AdviceContext *ctx);
extern double AdviceRelTuples(Oid relid);

/* advice_existing.c */
extern bool AdviceGinServed(Oid relid, AdviceQual *key, List *opnos);
extern bool AdviceBtreeServed(Oid relid, List *keys, bool partial);
extern char *AdviceBtreePrefix(Oid relid, List *eq, List **prefix);
extern bool AdviceUniqueServed(Oid relid, List *eq);

/* advice_rules.c */
extern List *AdviceCandidateVariants(AdviceContext *ctx, AdviceCandidate *c);
extern void AdviceCandidateDdl(AdviceCandidate *c);

/* advice_verify.c */
extern List *AdviceVerify(AdviceContext *ctx);
extern List *AdviceAllVariants(AdviceContext *ctx, AdviceCandidate *c);

/* advice_merge.c */
extern List *AdviceMergeCandidates(AdviceContext *ctx);

/* advice_search.c */
extern List *AdviceSearch(AdviceContext *ctx, const AdviceSearchLimits *limits,
						  AdviceSearchWork *work);

/* advice_guc.c */
extern void AdviceGucInit(void);
extern bool advice_enabled;
extern double advice_sample_rate;
extern int	advice_max;
extern double advice_min_benefit;
extern bool advice_search;
extern int	advice_max_plannings;
extern int	advice_test_activity_age_s;

/* advice_qual.c */
extern bool AdviceClassifyQual(Expr *clause, Index varno, AdviceQual *out);
extern List *AdviceClassifyOrArms(Expr *clause, Index varno);
extern bool AdviceSameKey(AdviceQual *a, AdviceQual *b);
extern bool AdviceBitmapAnd(Plan *plan);
extern char *AdviceKeyText(Expr *key, Index varno, Oid relid);
extern uint32 AdviceHashText(const char *text);

/* advice_walk.c */
extern void AdviceRecordExecution(QueryDesc *queryDesc);

/* A column whose windows starved, with the evidence, for the view. */
typedef struct AdviceWindow
{
	Oid			relid;
	AttrNumber	attnum;
	char		column[ADVICE_EXPR_LEN];
	int64		starved;		/* point windows computed for want of it */
	int			nqueryids;
	uint64		queryids[ADVICE_QUERYIDS * 2];
	int64		calls;			/* sampled executions that scanned it (the
								 * qual that scanned most) */
	int64		rows_scanned;	/* and their rows and time */
	double		time_ms;
	AdviceCandidate *index;		/* the btree index on the column */
} AdviceWindow;

/* advice_window.c */
extern void AdviceWindowInit(void);
extern List *AdviceWindows(void);

/* advice_store.c */
extern const SfcShmemPart AdviceShmemPart;
extern void AdviceStoreObservations(AdviceObservation *obs, int n,
									uint64 queryid);
extern void AdviceStoreStatement(Oid userid, uint64 queryid,
								 const char *search_path, const char *text,
								 int len);
extern void AdviceStoreActivity(int n, const Oid *relids, const int *writes,
								List *invalidated);

/* advice_activity.c: a transaction's writes and invalidations */
extern void AdviceActivityWrite(Oid relid);
extern void AdviceActivityCommitted(List *relids);
extern void AdviceActivityEnd(bool drop);
extern List *AdviceCopyQuals(void);
extern List *AdviceCopyStatements(void);
extern List *AdviceCopyTables(void);
extern void AdviceReset(void);

/* The three tables of the record, as advice_persist.c saves them. */
typedef enum AdviceRecordKind
{
	ADVICE_RECORD_QUALS = 0,
	ADVICE_RECORD_STATEMENTS,
	ADVICE_RECORD_TABLES
} AdviceRecordKind;
#define ADVICE_RECORD_KINDS 3

typedef bool (*AdviceEntryFn) (AdviceRecordKind kind, const void *entry,
							   void *arg);
extern Size AdviceStoreEntrySize(AdviceRecordKind kind);
extern Oid	AdviceStoreEntryDatabase(const void *saved);
extern bool AdviceStoreForEach(AdviceEntryFn fn, void *arg);
extern bool AdviceStoreRestore(AdviceRecordKind kind, const void *saved);

/* advice_persist.c */
extern const SfcShmemPart AdvicePersistShmemPart;

#endif							/* SFCACHE_ADVICE_INTERNAL_H */
