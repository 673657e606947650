/*-------------------------------------------------------------------------
 *
 * advice_existing.c
 *		What a table's existing (valid) indexes already do for a candidate:
 *		a GIN index on the same key whose operator family has every
 *		operator used, a btree index that starts with the candidate's key
 *		columns, a btree index that the candidate would extend, or a
 *		unique index all of whose columns the candidate's equality
 *		columns fix (a primary key lookup: at most one row to find).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/table.h"
#include "catalog/pg_am.h"
#include "catalog/pg_index.h"
#include "catalog/pg_opfamily.h"
#include "nodes/nodeFuncs.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/syscache.h"

#include "advice/advice_internal.h"

typedef bool (*AdviceIndexVisitor) (Relation index, void *arg);

/* Call visit on every valid index of relid until it returns true. */
static bool
advice_any_index(Oid relid, AdviceIndexVisitor visit, void *arg)
{
	Relation	rel = table_open(relid, AccessShareLock);
	List	   *ids = RelationGetIndexList(rel);
	ListCell   *lc;
	bool		found = false;

	foreach(lc, ids)
	{
		Relation	index = index_open(lfirst_oid(lc), AccessShareLock);

		if (index->rd_index->indisvalid)
			found = visit(index, arg);
		index_close(index, AccessShareLock);
		if (found)
			break;
	}
	table_close(rel, AccessShareLock);
	return found;
}

/* Is key column 0 of index the candidate's key q? */
static bool
advice_first_key_is(Relation index, AdviceQual *q)
{
	AttrNumber	attnum = index->rd_index->indkey.values[0];
	List	   *exprs;

	if (attnum != 0 || q->attnum != 0)
		return attnum == q->attnum;
	exprs = RelationGetIndexExpressions(index);
	return exprs != NIL && equal(linitial(exprs), q->key);
}

typedef struct GinCheck
{
	AdviceQual *key;
	List	   *opnos;
} GinCheck;

static bool
advice_gin_serves(Relation index, void *arg)
{
	GinCheck   *check = arg;
	ListCell   *lc;

	if (index->rd_rel->relam != GIN_AM_OID || !advice_first_key_is(index, check->key) ||
		RelationGetIndexPredicate(index) != NIL)
		return false;
	foreach(lc, check->opnos)
	{
		if (!op_in_opfamily(lfirst_oid(lc), index->rd_opfamily[0]))
			return false;
	}
	return true;
}

/* Does a GIN index on key already support every operator in opnos? */
bool
AdviceGinServed(Oid relid, AdviceQual *key, List *opnos)
{
	GinCheck	check = {key, opnos};

	return advice_any_index(relid, advice_gin_serves, &check);
}

/*
 * Is key column i of the btree index under operator class opclass (by
 * name; NULL: the type's default, i.e. any class but a pattern one)?
 */
static bool
advice_opclass_is(Relation index, int i, const char *opclass)
{
	HeapTuple	tup = SearchSysCache1(OPFAMILYOID, ObjectIdGetDatum(index->rd_opfamily[i]));
	bool		result;

	if (!HeapTupleIsValid(tup))
		return false;
	if (opclass == NULL)
		result = strstr(NameStr(((Form_pg_opfamily) GETSTRUCT(tup))->opfname),
						"_pattern_ops") == NULL;
	else
		result = strcmp(NameStr(((Form_pg_opfamily) GETSTRUCT(tup))->opfname), opclass) == 0;
	ReleaseSysCache(tup);
	return result;
}

typedef struct BtreeCheck
{
	List	   *keys;			/* AdviceQual * */
	bool		partial;
	char	   *name;
	List	   *prefix;			/* AdviceQual * of eq, in the index's order */
} BtreeCheck;

static bool
advice_btree_serves(Relation index, void *arg)
{
	BtreeCheck *check = arg;
	ListCell   *lc;
	int			i = 0;

	if (index->rd_rel->relam != BTREE_AM_OID ||
		index->rd_index->indnkeyatts < list_length(check->keys) ||
		(RelationGetIndexPredicate(index) != NIL && !check->partial))
		return false;
	foreach(lc, check->keys)
	{
		AdviceQual *q = lfirst(lc);

		if (q->attnum == 0 || index->rd_index->indkey.values[i] != q->attnum ||
			!advice_opclass_is(index, i, q->opclass))
			return false;
		i++;
	}
	return true;
}

/* Does a btree index start with exactly these key columns? */
bool
AdviceBtreeServed(Oid relid, List *keys, bool partial)
{
	BtreeCheck	check = {keys, partial, NULL, NIL};

	return advice_any_index(relid, advice_btree_serves, &check);
}

static AdviceQual *
advice_eq_column(List *eq, AttrNumber attnum)
{
	ListCell   *lc;

	foreach(lc, eq)
	{
		AdviceQual *q = lfirst(lc);

		if (q->attnum == attnum && attnum != 0)
			return q;
	}
	return NULL;
}

/* An ordinary btree index whose columns are all among the equality columns. */
static bool
advice_btree_extendable(Relation index, void *arg)
{
	BtreeCheck *check = arg;
	List	   *prefix = NIL;
	int			i;

	if (index->rd_rel->relam != BTREE_AM_OID || index->rd_index->indisunique ||
		RelationGetIndexPredicate(index) != NIL ||
		index->rd_index->indnatts > list_length(check->keys) ||
		index->rd_index->indnatts <= list_length(check->prefix))
		return false;
	for (i = 0; i < index->rd_index->indnatts; i++)
	{
		AdviceQual *q = advice_eq_column(check->keys, index->rd_index->indkey.values[i]);

		if (q == NULL)
			return false;
		prefix = lappend(prefix, q);
	}
	check->prefix = prefix;
	check->name = pstrdup(RelationGetRelationName(index));
	return false;				/* keep looking for a longer one */
}

/*
 * The name of the longest plain btree index (not unique, not partial) all
 * of whose columns are equality columns in eq, and those columns in the
 * index's order in *prefix; NULL if there is none.
 */
char *
AdviceBtreePrefix(Oid relid, List *eq, List **prefix)
{
	BtreeCheck	check = {eq, false, NULL, NIL};

	(void) advice_any_index(relid, advice_btree_extendable, &check);
	*prefix = check.prefix;
	return check.name;
}

/* A valid, non-partial unique index all of whose key columns are in eq. */
static bool
advice_unique_fixed(Relation index, void *arg)
{
	List	   *eq = arg;
	int			i;

	if (!index->rd_index->indisunique || RelationGetIndexPredicate(index) != NIL)
		return false;
	for (i = 0; i < index->rd_index->indnkeyatts; i++)
	{
		if (advice_eq_column(eq, index->rd_index->indkey.values[i]) == NULL)
			return false;
	}
	return true;
}

/*
 * Does a unique index already find the one row these equality quals allow
 * (a primary key or unique lookup, perhaps filtered further)?
 */
bool
AdviceUniqueServed(Oid relid, List *eq)
{
	return advice_any_index(relid, advice_unique_fixed, eq);
}
