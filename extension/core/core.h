/*-------------------------------------------------------------------------
 *
 * core.h
 *		The entry's own interface: extension/core is the library's top
 *		layer, _PG_init (sfcache.c), which lets each subsystem define its
 *		settings, shared memory parts and callbacks, and the hook points
 *		(core_hooks.c), which call the subsystems in a written order. No
 *		subsystem includes this header.
 *
 *-------------------------------------------------------------------------
 */
#ifndef SFCACHE_CORE_H
#define SFCACHE_CORE_H

#include "base/base.h"

/* core_hooks.c: install every hook, from _PG_init after the subsystems' Init */
extern void CoreHooksInit(void);

#endif							/* SFCACHE_CORE_H */
