/*-------------------------------------------------------------------------
 *
 * bus.h
 *		The interface of extension/bus, the Redis invalidation bus, to core:
 *		its Init, which defines its settings and registers its shared memory,
 *		its commit callback and standby rule with the cache, and its
 *		background worker. Everything else goes through the cache's callbacks
 *		(cache.h); what the bus's own files share is in bus_internal.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef SFCACHE_BUS_H
#define SFCACHE_BUS_H

#include "base/base.h"

/* bus_init.c: from _PG_init */
extern void BusInit(void);

#endif							/* SFCACHE_BUS_H */
