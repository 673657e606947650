/*-------------------------------------------------------------------------
 *
 * whatif_size.c
 *		Size estimates for hypothetical indexes: tuples, pages and tree
 *		height, from the table's statistics (pg_class, pg_statistic).
 *
 * btree: one index tuple per (matching) row, each the tuple header and the
 * columns' average widths, each column aligned as its type is (a varlena
 * shorter than 127 bytes has a one-byte header and no alignment), plus a
 * line pointer; 90% leaf fill, plus the inner levels and the metapage.  A
 * variable-length expression is taken to be no wider than the columns it
 * reads (lower(), upper(), ->, a cast).  Deduplication (PostgreSQL 13 and
 * later), which CREATE INDEX applies: when the index has no INCLUDE column
 * and every key's operator class says its equal values are equal images
 * (BTEQUALIMAGE_PROC), the rows of one key value share posting list tuples
 * (of at most half of BTMaxItemSize) that hold a 6-byte heap TID per row;
 * the number of key values is the product of the key columns' n_distinct
 * (pg_statistic) capped at the rows, an expression counting as all
 * distinct.  A plain index on a foreign key column of 2000 values over
 * 400000 rows is a third of its size without, and an INCLUDE column costs
 * more than its width.
 * gin: one posting list item per key per row, about 2 bytes: since
 * PostgreSQL 9.4 a posting list holds the deltas of sorted heap TIDs in a
 * varbyte encoding (1 to 3 bytes; 6 uncompressed, which overstated a GIN
 * index on a mostly empty jsonb column fivefold); the number of keys per
 * row is guessed from the column's average width (one per 16 bytes of
 * jsonb, one per element of an array).  This is a rough figure, as it is
 * for the planner, which only needs the order of magnitude
 * (gincostestimate copes with hypothetical indexes by itself).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/itup.h"
#include "access/relation.h"
#include "access/nbtree.h"
#include "catalog/pg_am.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "rewrite/rewriteManip.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "whatif/whatif_internal.h"

#define HYPO_FILL			0.90
#define HYPO_GIN_POSTING	2.0
#define HYPO_PAGE_SPACE \
	((double) (BLCKSZ - SizeOfPageHeaderData - MAXALIGN(sizeof(BTPageOpaqueData))))
/* BTMaxItemSize of a BLCKSZ page */
#define HYPO_MAX_ITEM \
	MAXALIGN_DOWN((BLCKSZ - MAXALIGN(SizeOfPageHeaderData + 3 * sizeof(ItemIdData) + \
									 3 * sizeof(ItemPointerData)) - \
				   MAXALIGN(sizeof(BTPageOpaqueData))) / 3)

/*
 * The average widths of the columns expr reads (each with its own varlena
 * header, as pg_statistic measures it): what a variable-length expression
 * of them (lower(), upper(), ->, a cast) is at most, as ORMs write them.
 */
static int32
whatif_vars_width(Oid relid, Node *expr)
{
	List	   *vars = pull_var_clause(expr, 0);
	ListCell   *lc;
	int32		width = 0;

	foreach(lc, vars)
	{
		Var		   *var = lfirst(lc);
		int32		w = var->varattno > 0 ? get_attavgwidth(relid, var->varattno) : 0;

		width += w > 0 ? w : 32;
	}
	list_free(vars);
	return width;
}

/* Average width in bytes of column i, and its type. */
static int32
whatif_key_width(const WhatifIndex *windex, int i, ListCell **expr_cell, Oid *type)
{
	int32		width = 0;

	*type = InvalidOid;
	if (windex->indexkeys[i] != 0)
	{
		width = get_attavgwidth(windex->relid, windex->indexkeys[i]);
		*type = get_atttype(windex->relid, windex->indexkeys[i]);
	}
	else if (*expr_cell != NULL)
	{
		Node	   *expr = lfirst(*expr_cell);

		*type = exprType(expr);
		width = get_typavgwidth(*type, exprTypmod(expr));
		if (get_typlen(*type) == -1)
			width = Min(width, whatif_vars_width(windex->relid, expr));
		*expr_cell = lnext(windex->indexprs, *expr_cell);
	}
	return width > 0 ? width : 8;
}

/* Add a column of this width and type to a tuple's data of length len. */
static double
whatif_add_column(double len, int32 width, Oid type)
{
	int16		typlen = -1;
	bool		byval;
	char		align = TYPALIGN_INT;

	if (OidIsValid(type))
		get_typlenbyvalalign(type, &typlen, &byval, &align);
	if (typlen == -1 && width < 127)
		align = TYPALIGN_CHAR;	/* a short varlena: not aligned */
	return att_align_nominal((Size) len, align) + width;
}

/* The tuple header and the aligned columns of windex, unaligned as a whole. */
static double
whatif_tuple_data(const WhatifIndex *windex, int ncolumns)
{
	ListCell   *expr_cell = list_head(windex->indexprs);
	double		len = sizeof(IndexTupleData);
	int			i;

	for (i = 0; i < ncolumns; i++)
	{
		Oid			type;
		int32		width = whatif_key_width(windex, i, &expr_cell, &type);

		len = whatif_add_column(len, width, type);
	}
	return len;
}

/* Does every key of windex deduplicate (no INCLUDE, equal image opclasses)? */
static bool
whatif_deduplicates(const WhatifIndex *windex)
{
	int			i;

	if (windex->nkeycolumns != windex->ncolumns)
		return false;
	for (i = 0; i < windex->nkeycolumns; i++)
	{
		Oid			proc = get_opfamily_proc(windex->opfamily[i], windex->opcintype[i],
											 windex->opcintype[i], BTEQUALIMAGE_PROC);

		if (!OidIsValid(proc) ||
			(type_is_collatable(windex->opcintype[i]) && !OidIsValid(windex->collations[i])) ||
			!DatumGetBool(OidFunctionCall1Coll(proc, windex->collations[i],
											   ObjectIdGetDatum(windex->opcintype[i]))))
			return false;
	}
	return true;
}

/* n_distinct of column attnum from pg_statistic (rows as of tuples), or tuples. */
static double
whatif_column_distinct(Oid relid, AttrNumber attnum, double tuples)
{
	HeapTuple	tup;
	double		distinct = tuples;

	if (attnum <= 0)
		return tuples;
	tup = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(relid),
						  Int16GetDatum(attnum), BoolGetDatum(false));
	if (HeapTupleIsValid(tup))
	{
		float4		d = ((Form_pg_statistic) GETSTRUCT(tup))->stadistinct;

		if (d > 0)
			distinct = d;
		else if (d < 0)
			distinct = -d * tuples;
		ReleaseSysCache(tup);
	}
	return distinct;
}

/* The number of distinct keys of windex over tuples rows, at least 1. */
static double
whatif_distinct_keys(const WhatifIndex *windex, double tuples)
{
	double		keys = 1;
	int			i;

	for (i = 0; i < windex->nkeycolumns && keys < tuples; i++)
		keys *= Max(1.0, whatif_column_distinct(windex->relid, windex->indexkeys[i], tuples));
	return Max(1.0, Min(keys, tuples));
}

/*
 * Fraction of the table a partial index holds: as measured by the caller
 * (pred_share), else as the planner estimates the predicate (1 without a
 * planner, from the catalog alone).
 */
static double
whatif_predicate_share(const WhatifIndex *windex, PlannerInfo *root, RelOptInfo *rel)
{
	List	   *pred;
	RelOptInfo *saved;
	Selectivity share;

	if (windex->indpred == NIL)
		return 1.0;
	if (windex->pred_share >= 0)
		return windex->pred_share;
	if (root == NULL)
		return 1.0;
	pred = copyObject(windex->indpred);
	if (rel->relid != 1)
		ChangeVarNodes((Node *) pred, 1, rel->relid, 0);

	/*
	 * get_relation_info_hook runs before build_simple_rel() has registered
	 * rel, and the selectivity functions look it up: register it meanwhile.
	 */
	saved = root->simple_rel_array[rel->relid];
	root->simple_rel_array[rel->relid] = rel;
	share = clauselist_selectivity(root, pred, rel->relid, JOIN_INNER, NULL);
	root->simple_rel_array[rel->relid] = saved;
	return share;
}

/*
 * Leaf bytes of a deduplicated index: per distinct key, posting list tuples
 * of at most half of BTMaxItemSize, each the key and a TID per row.
 */
static double
whatif_dedup_bytes(double keyed, double tuples, double keys)
{
	double		per_key = tuples / keys;
	double		max_tids = floor(((double) HYPO_MAX_ITEM / 2 - (double) MAXALIGN((Size) keyed)) /
								 sizeof(ItemPointerData));
	double		postings = ceil(per_key / Max(max_tids, 1.0));

	return keys * (postings * (MAXALIGN((Size) keyed) + sizeof(ItemIdData)) +
				   per_key * sizeof(ItemPointerData));
}

static void
whatif_estimate_btree(WhatifIndex *windex, double tuples)
{
	double		keyed = whatif_tuple_data(windex, windex->ncolumns);
	double		itemsz = MAXALIGN((Size) keyed) + sizeof(ItemIdData);
	double		leaf_bytes = tuples * itemsz;
	double		per_page;
	double		leaves;

	if (tuples >= 2 && whatif_deduplicates(windex))
	{
		double		keys = whatif_distinct_keys(windex, tuples);

		if (tuples / keys >= 2)
			leaf_bytes = Min(leaf_bytes, whatif_dedup_bytes(keyed, tuples, keys));
	}
	per_page = Max(2.0, floor(HYPO_PAGE_SPACE * HYPO_FILL / itemsz));
	leaves = Max(1.0, ceil(leaf_bytes / (HYPO_PAGE_SPACE * HYPO_FILL)));
	windex->tree_height = leaves <= 1.0 ? 0 : (int) ceil(log(leaves) / log(per_page));
	windex->pages = (BlockNumber) (leaves + ceil(leaves / per_page) + 1);
}

static void
whatif_estimate_gin(WhatifIndex *windex, double tuples)
{
	ListCell   *expr_cell = list_head(windex->indexprs);
	double		keys = 0;
	int			i;

	for (i = 0; i < windex->ncolumns; i++)
	{
		Oid			coltype;
		int32		width = whatif_key_width(windex, i, &expr_cell, &coltype);
		Oid			type = windex->opcintype[i];

		keys += Max(1.0, type == JSONBOID ? width / 16.0 : width / 8.0);
	}
	windex->pages = (BlockNumber) (ceil(tuples * keys * HYPO_GIN_POSTING /
										(HYPO_PAGE_SPACE * HYPO_FILL)) + 2);
	windex->tree_height = 1;
}

/* Estimate windex's tuples, pages and height for rel as the planner sees it. */
void
WhatifEstimateSize(WhatifIndex *windex, PlannerInfo *root, RelOptInfo *rel)
{
	double		reltuples = rel->tuples > 0 ? rel->tuples : 0;

	windex->tuples = clamp_row_est(reltuples * whatif_predicate_share(windex, root, rel));
	if (windex->amoid == GIN_AM_OID)
		whatif_estimate_gin(windex, windex->tuples);
	else
		whatif_estimate_btree(windex, windex->tuples);
}

/* The estimated size in bytes, as of the last planning that used windex. */
int64
WhatifSizeBytes(const WhatifIndex *windex)
{
	return (int64) windex->pages * BLCKSZ;
}

/* Estimate windex's size from pg_class alone, before any planner has seen it. */
void
WhatifEstimateSizeFromCatalog(WhatifIndex *windex)
{
	Relation	rel = relation_open(windex->relid, AccessShareLock);
	double		reltuples = Max(rel->rd_rel->reltuples, 0);

	relation_close(rel, AccessShareLock);
	windex->tuples = reltuples * whatif_predicate_share(windex, NULL, NULL);
	if (windex->amoid == GIN_AM_OID)
		whatif_estimate_gin(windex, windex->tuples);
	else
		whatif_estimate_btree(windex, windex->tuples);
}
