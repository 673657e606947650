/*-------------------------------------------------------------------------
 *
 * whatif_size.c
 *		Size estimates for hypothetical indexes: tuples, pages and tree
 *		height, from the table's statistics (pg_class, pg_statistic).
 *
 * btree: one index tuple per (matching) row, each the aligned sum of the
 * key widths plus tuple and line pointer headers, 90% leaf fill, plus the
 * inner levels and the metapage.
 * gin: one posting entry (about 6 bytes once compressed) per key per row;
 * the number of keys per row is guessed from the column's average width
 * (one per 16 bytes of jsonb, one per element of an array).  This is a
 * rough figure, as it is for the planner, which only needs the order of
 * magnitude (gincostestimate copes with hypothetical indexes by itself).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/itup.h"
#include "access/relation.h"
#include "access/nbtree.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "rewrite/rewriteManip.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "whatif.h"

#define HYPO_FILL			0.90
#define HYPO_GIN_POSTING	6.0
#define HYPO_PAGE_SPACE \
	((double) (BLCKSZ - SizeOfPageHeaderData - MAXALIGN(sizeof(BTPageOpaqueData))))

/* Average width in bytes of key column i. */
static int32
hypo_key_width(const HypoIndex *hypo, int i, ListCell **expr_cell)
{
	int32		width = 0;

	if (hypo->indexkeys[i] != 0)
		width = get_attavgwidth(hypo->relid, hypo->indexkeys[i]);
	else if (*expr_cell != NULL)
	{
		Node	   *expr = lfirst(*expr_cell);

		width = get_typavgwidth(exprType(expr), exprTypmod(expr));
		*expr_cell = lnext(hypo->indexprs, *expr_cell);
	}
	return width > 0 ? width : 8;
}

/* Fraction of the table a partial index holds. */
static double
hypo_predicate_share(const HypoIndex *hypo, PlannerInfo *root, RelOptInfo *rel)
{
	List	   *pred;
	RelOptInfo *saved;
	Selectivity share;

	if (hypo->indpred == NIL || root == NULL)
		return 1.0;
	pred = copyObject(hypo->indpred);
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

static void
hypo_estimate_btree(HypoIndex *hypo, double tuples)
{
	ListCell   *expr_cell = list_head(hypo->indexprs);
	double		itemsz = sizeof(IndexTupleData);
	double		per_page;
	double		leaves;
	int			i;

	for (i = 0; i < hypo->ncolumns; i++)
		itemsz += hypo_key_width(hypo, i, &expr_cell);
	itemsz = MAXALIGN((Size) itemsz) + sizeof(ItemIdData);
	per_page = Max(2.0, floor(HYPO_PAGE_SPACE * HYPO_FILL / itemsz));
	leaves = Max(1.0, ceil(tuples / per_page));
	hypo->tree_height = leaves <= 1.0 ? 0 : (int) ceil(log(leaves) / log(per_page));
	hypo->pages = (BlockNumber) (leaves + ceil(leaves / per_page) + 1);
}

static void
hypo_estimate_gin(HypoIndex *hypo, double tuples)
{
	ListCell   *expr_cell = list_head(hypo->indexprs);
	double		keys = 0;
	int			i;

	for (i = 0; i < hypo->ncolumns; i++)
	{
		int32		width = hypo_key_width(hypo, i, &expr_cell);
		Oid			type = hypo->opcintype[i];

		keys += Max(1.0, type == JSONBOID ? width / 16.0 : width / 8.0);
	}
	hypo->pages = (BlockNumber) (ceil(tuples * keys * HYPO_GIN_POSTING /
									  (HYPO_PAGE_SPACE * HYPO_FILL)) + 2);
	hypo->tree_height = 1;
}

/* Estimate hypo's tuples, pages and height for rel as the planner sees it. */
void
WhatifEstimateSize(HypoIndex *hypo, PlannerInfo *root, RelOptInfo *rel)
{
	double		reltuples = rel->tuples > 0 ? rel->tuples : 0;

	hypo->tuples = clamp_row_est(reltuples * hypo_predicate_share(hypo, root, rel));
	if (hypo->amoid == GIN_AM_OID)
		hypo_estimate_gin(hypo, hypo->tuples);
	else
		hypo_estimate_btree(hypo, hypo->tuples);
}

/* The estimated size in bytes, as of the last planning that used hypo. */
int64
WhatifSizeBytes(const HypoIndex *hypo)
{
	return (int64) hypo->pages * BLCKSZ;
}

/* Estimate hypo's size from pg_class alone, before any planner has seen it. */
void
WhatifEstimateSizeFromCatalog(HypoIndex *hypo)
{
	Relation	rel = relation_open(hypo->relid, AccessShareLock);
	double		reltuples = Max(rel->rd_rel->reltuples, 0);

	relation_close(rel, AccessShareLock);
	hypo->tuples = reltuples;
	if (hypo->amoid == GIN_AM_OID)
		hypo_estimate_gin(hypo, hypo->tuples);
	else
		hypo_estimate_btree(hypo, hypo->tuples);
}
