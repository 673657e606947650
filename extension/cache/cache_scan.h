/*-------------------------------------------------------------------------
 *
 * cache_scan.h
 *		The sfcache custom scan: what its plan node carries, shared by the
 *		planner hook that builds it and the executor methods that run it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef SFCACHE_CACHE_SCAN_H
#define SFCACHE_CACHE_SCAN_H

#include "nodes/extensible.h"
#include "tcop/dest.h"
#include "utils/snapshot.h"

#include "sfcache.h"

/* The contents of CustomScan.custom_private, unpacked. */
typedef struct SfcScanPrivate
{
	Query	   *query;			/* analyzed and rewritten, never modified */
	CacheKey	key;			/* of the query tree */
	List	   *relids;			/* relations it reads */
	List	   *inh_roots;		/* those read with their descendants */
	List	   *funcids;		/* functions whose EXECUTE a hit checks */
	int			ttl_override_s; /* see CacheableInfo */
	bool		ttl_default;
	int			cursor_options;
	const char *query_string;
} SfcScanPrivate;

extern const CustomScanMethods sfc_scan_plan_methods;

extern List *SfcScanPrivateToList(const SfcScanPrivate *priv);
extern void SfcScanPrivateFromList(List *list, SfcScanPrivate *priv);

/* cache_run.c: running the saved query and capturing its rows */

typedef struct CaptureReceiver
{
	DestReceiver pub;
	Size		limit;			/* bytes kept in buf; beyond, spill */
	StringInfoData buf;			/* serialised minimal tuples */
	Tuplestorestate *spill;		/* every row, once over the limit */
	TupleTableSlot *tmp_slot;
	MemoryContext cxt;			/* where rows must outlive the query */
} CaptureReceiver;

extern CaptureReceiver *CaptureReceiverCreate(Size limit);
extern void RunSavedQuery(const SfcScanPrivate *priv, ParamListInfo params,
						  Snapshot snapshot, DestReceiver *dest);

#endif							/* SFCACHE_CACHE_SCAN_H */
