/*-------------------------------------------------------------------------
 *
 * advice.h
 *		The interface of extension/advice, the index advice, to core: its
 *		Init and the entry points core_hooks.c calls. What the advice's own
 *		files share is in advice_internal.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef SFCACHE_ADVICE_H
#define SFCACHE_ADVICE_H

#include "access/xact.h"
#include "executor/execdesc.h"
#include "parser/parse_node.h"

#include "base/base.h"

/* advice_hooks.c: Init and the hooks' entry points (core_hooks.c) */
extern void AdviceInit(void);
extern bool AdviceWantsQueryId(ParseState *pstate);
extern void AdviceExecutorStart(QueryDesc *queryDesc, int eflags);
extern void AdviceExecutorEnd(QueryDesc *queryDesc);
extern void AdviceUtilityDone(Node *stmt);
extern void AdviceXactEvent(XactEvent event);
extern void AdviceXactEnd(XactEvent event);

/* advice_store.c: the commit of DROP DATABASE forgets that database's record */
extern void AdviceStoreForgetDatabase(Oid dbid);

#endif							/* SFCACHE_ADVICE_H */
