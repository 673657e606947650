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

#include "whatif/whatif.h"

#define HYPO_FILL			0.90
#define HYPO_GIN_POSTING	6.0
#define HYPO_PAGE_SPACE \
	((double) (BLCKSZ - SizeOfPageHeaderData - MAXALIGN(sizeof(BTPageOpaqueData))))

/* Average width in bytes of key column i. */
static int32
whatif_key_width(const WhatifIndex *windex, int i, ListCell **expr_cell)
{
	int32		width = 0;

	if (windex->indexkeys[i] != 0)
		width = get_attavgwidth(windex->relid, windex->indexkeys[i]);
	else if (*expr_cell != NULL)
	{
		Node	   *expr = lfirst(*expr_cell);

		width = get_typavgwidth(exprType(expr), exprTypmod(expr));
		*expr_cell = lnext(windex->indexprs, *expr_cell);
	}
	return width > 0 ? width : 8;
}

/* Fraction of the table a partial index holds. */
static double
whatif_predicate_share(const WhatifIndex *windex, PlannerInfo *root, RelOptInfo *rel)
{
	List	   *pred;
	RelOptInfo *saved;
	Selectivity share;

	if (windex->indpred == NIL || root == NULL)
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

static void
whatif_estimate_btree(WhatifIndex *windex, double tuples)
{
	ListCell   *expr_cell = list_head(windex->indexprs);
	double		itemsz = sizeof(IndexTupleData);
	double		per_page;
	double		leaves;
	int			i;

	for (i = 0; i < windex->ncolumns; i++)
		itemsz += whatif_key_width(windex, i, &expr_cell);
	itemsz = MAXALIGN((Size) itemsz) + sizeof(ItemIdData);
	per_page = Max(2.0, floor(HYPO_PAGE_SPACE * HYPO_FILL / itemsz));
	leaves = Max(1.0, ceil(tuples / per_page));
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
		int32		width = whatif_key_width(windex, i, &expr_cell);
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
	windex->tuples = reltuples;
	if (windex->amoid == GIN_AM_OID)
		whatif_estimate_gin(windex, windex->tuples);
	else
		whatif_estimate_btree(windex, windex->tuples);
}
