/*-------------------------------------------------------------------------
 *
 * cache_key_memo.c
 *		A backend-local memo of the query keys of statements this backend
 *		sends again and again: an application's connection re-issues the
 *		same statement text, and for the simple protocol PostgreSQL parses
 *		and analyzes it every time before the planner hook sees it.
 *		Computing the key (nodeToString() of the tree, then a hash) costs
 *		about as much as that analysis; comparing the new tree with a saved
 *		one with equal() costs a fraction of it.
 *
 * The memo cannot change a key: a key is a function of the query tree
 * alone, and a saved key is reused only for a tree equal() to the saved
 * tree (equal() ignores token locations and display-only coercion forms,
 * which the key does not depend on either). The statement text only finds
 * the candidate. A text is memoized the second time this backend sees it,
 * so statements that never repeat pay one hash of their text, not a copy
 * of their tree.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "nodes/nodes.h"
#include "nodes/parsenodes.h"
#include "utils/memutils.h"

#include "cache/cache.h"

#define MEMO_ENTRIES 32			/* trees kept */
#define SEEN_SLOTS 256			/* texts remembered as seen once */

typedef struct KeyMemoEntry
{
	uint32		text_hash;		/* 0: empty */
	Query	   *tree;			/* a copy, in cxt */
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

/*
 * The key of an analyzed statement, as CacheKeyForQuery() computes it;
 * text and len are the statement's own source text (NULL when unknown).
 */
CacheKey
CacheKeyForStatement(Query *query, const char *text, int len)
{
	uint32		text_hash;
	uint32	   *seen_slot;
	CacheKey	key;

	if (text == NULL || len <= 0)
		return CacheKeyForQuery(query);

	/* 0 marks an empty slot */
	text_hash = hash_bytes((const unsigned char *) text, len) | 1;
	for (int i = 0; i < MEMO_ENTRIES; i++)
	{
		if (memo[i].text_hash == text_hash && equal(memo[i].tree, query))
			return memo[i].key;
	}

	key = CacheKeyForQuery(query);
	seen_slot = &seen[text_hash % SEEN_SLOTS];
	if (*seen_slot == text_hash)
		memo_insert(text_hash, query, key);
	else
		*seen_slot = text_hash;
	return key;
}
