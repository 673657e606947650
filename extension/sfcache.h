/*-------------------------------------------------------------------------
 *
 * sfcache.h
 *		Declarations shared by the files of the sfcache module: each file's
 *		initialisation entry point, called from _PG_init().
 *
 *-------------------------------------------------------------------------
 */
#ifndef SFCACHE_H
#define SFCACHE_H

#include "datatype/timestamp.h"

/* shmem.c */
extern void SfcacheShmemInit(void);
extern TimestampTz SfcacheSharedStartedAt(void);

/* advice_hooks.c: index advice and hypothetical indexes */
extern void AdviceInit(void);

#endif							/* SFCACHE_H */
