/*-------------------------------------------------------------------------
 *
 * cache_key_memo.c
 *		A backend-local memo of the shape keys of statements this backend
 *		sends again and again: an application's connection re-issues the
 *		same statements, often with other constants (pgbench -S, a simple
 *		protocol client's WHERE id = 42), and PostgreSQL parses and
 *		analyzes each before the planner hook sees it. Serialising the tree
 *		(nodeToString(), then a hash) costs about as much as that analysis;
 *		comparing the tree with a saved one with equal() costs a fraction.
 *
 * The memo cannot change a key: a key is a function of the query tree
 * alone (cache_key.c: the shape of the tree with its Consts blanked, then
 * the constants' values). A saved shape key is reused only for a blanked
 * tree equal() to the saved blanked tree; equal() compares every field
 * nodeToString() prints but token locations and display-only coercion
 * forms, which the key does not depend on either. The statement's query
 * id (the core's jumble, constants ignored) or, without one, its text only
 * finds the candidate. A shape is memoized the second time this backend
 * sees its candidate hash, so statements that never repeat pay one hash,
 * not a copy of their tree.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "nodes/nodes.h"
#include "nodes/parsenodes.h"
#include "utils/memutils.h"

#include "cache/cache_internal.h"

#define MEMO_ENTRIES 32			/* trees kept */
#define SEEN_SLOTS 256			/* texts remembered as seen once */

typedef struct KeyMemoEntry
{
	uint32		text_hash;		/* the candidate hash; 0: empty */
	Query	   *tree;			/* a copy of the blanked tree, in cxt */
	MemoryContext cxt;
	CacheKey	key;
} KeyMemoEntry;

static KeyMemoEntry memo[MEMO_ENTRIES];
static int	memo_next = 0;
static uint32 seen[SEEN_SLOTS];
static MemoryContext memo_cxt = NULL;

static void
memo_insert(uint32 text_hash, Query *query, CacheKey key)
{
	KeyMemoEntry *e = &memo[memo_next];
	MemoryContext old;

	memo_next = (memo_next + 1) % MEMO_ENTRIES;
	if (memo_cxt == NULL)
		memo_cxt = AllocSetContextCreate(TopMemoryContext, "sfcache key memo",
										 ALLOCSET_SMALL_SIZES);
	if (e->cxt != NULL)
		MemoryContextDelete(e->cxt);
	e->text_hash = 0;
	e->cxt = AllocSetContextCreate(memo_cxt, "sfcache key memo entry",
								   ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(e->cxt);
	e->tree = copyObject(query);
	MemoryContextSwitchTo(old);
	e->key = key;
	e->text_hash = text_hash;
}

/* A statement with no candidate hash: keyed from its tree alone, constants included. */
static CacheKey
key_unmemoized(Query *query, const Bitmapset *windowed)
{
	CacheKeyConsts consts;
	CacheKey	shape;

	CacheKeyConstsBlank(query, &consts);
	shape = CacheKeyShape(query, &consts);
	CacheKeyConstsRestore(&consts);
	shape = CacheKeyCombine(shape, &consts, windowed);
	CacheKeyConstsFree(&consts);
	return shape;
}

/*
 * The key of an analyzed statement (cache_key.c: its shape, then its
 * constants), with the windowed constants (walk places, cache_window.c)
 * marked only;
 * stmt_text and len are the statement's own source text (NULL when
 * unknown).
 */
CacheKey
CacheKeyForStatement(Query *query, const char *stmt_text, int len,
					 const Bitmapset *windowed)
{
	uint32		text_hash;
	uint32	   *seen_slot;
	CacheKeyConsts consts;
	CacheKey	shape;
	bool		found = false;

	if (query->queryId != 0)
		text_hash = (uint32) (query->queryId ^ (query->queryId >> 32));
	else if (stmt_text != NULL && len > 0)
		text_hash = hash_bytes((const unsigned char *) stmt_text, len);
	else
		return key_unmemoized(query, windowed);
	text_hash |= 1;				/* 0 marks an empty slot */

	/* the tree may be a cached plan's: it is given back even on error */
	CacheKeyConstsBlank(query, &consts);
	PG_TRY();
	{
		for (int i = 0; i < MEMO_ENTRIES && !found; i++)
		{
			if (memo[i].text_hash == text_hash && equal(memo[i].tree, query))
			{
				shape = memo[i].key;
				found = true;
			}
		}
		if (!found)
		{
			shape = CacheKeyShape(query, &consts);
			seen_slot = &seen[text_hash % SEEN_SLOTS];
			if (*seen_slot == text_hash)
				memo_insert(text_hash, query, shape);
			else
				*seen_slot = text_hash;
		}
	}
	PG_CATCH();
	{
		CacheKeyConstsRestore(&consts);
		PG_RE_THROW();
	}
	PG_END_TRY();
	CacheKeyConstsRestore(&consts);
	shape = CacheKeyCombine(shape, &consts, windowed);
	CacheKeyConstsFree(&consts);
	return shape;
}
