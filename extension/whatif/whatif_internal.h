/*-------------------------------------------------------------------------
 *
 * whatif_internal.h
 *		What the files whatif*.c of extension/whatif, the hypothetical
 *		indexes, share beyond whatif.h: size estimates, the session's
 *		indexes, privilege checks, error positions.
 *
 *-------------------------------------------------------------------------
 */
#ifndef SFCACHE_WHATIF_INTERNAL_H
#define SFCACHE_WHATIF_INTERNAL_H

#include "nodes/pathnodes.h"

#include "whatif/whatif.h"

/* whatif_size.c */
extern void WhatifEstimateSize(WhatifIndex *windex, PlannerInfo *root,
							   RelOptInfo *rel);

/* whatif.c */
extern void WhatifAddSessionIndex(WhatifIndex *windex);
extern List *WhatifSessionIndexes(void);
extern void WhatifResetSession(void);

/* whatif_plan.c */
extern void WhatifCheckSelectPrivileges(Query *query);
extern void WhatifCheckIndexPrivileges(const WhatifIndex *windex);
extern void WhatifErrorPositionPush(ErrorContextCallback *cb, const char *text);
extern void WhatifErrorPositionPop(ErrorContextCallback *cb);

#endif							/* SFCACHE_WHATIF_INTERNAL_H */
