/*-------------------------------------------------------------------------
 *
 * cache_key.c
 *		Cache keys: 128 bits of hash over the analyzed and rewritten query
 *		tree with its constants (computed once, when the statement is
 *		planned), then over the database, the current role, the bound
 *		parameter values and types and the settings that change computed
 *		values (at each execution: cache_key_settings.c).
 *
 * Results are stored as tuples and converted to text or binary when each
 * client receives them, so result formats need not be part of the key.
 * Collations and row security policies are resolved in the query tree.
 *
 * The query key is split in two so that a statement shape seen before
 * need not be serialised again (cache_key_memo.c): the shape is the
 * nodeToString() text, token locations stripped, of the tree with every
 * Const the tree walkers reach blanked (value 0, null); the constants are
 * the blanked Consts' null flags and datum images, in walk order, as
 * outDatum() prints them. Two trees whose node strings differ (locations
 * aside) differ either in their blanked strings (anything but a reached
 * Const's value and null flag: its type, typmod, collation, length,
 * by-value flag are all printed) or, with equal blanked strings, hence
 * the same structure and the same walk order, in one constant's image.
 * A Const no walker reaches keeps its value in the shape.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/nodes.h"
#include "port/pg_crc32c.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"

#include "cache/cache_internal.h"

/*
 * 128 bits from one 64-bit hash, a CRC-32C (hardware-assisted where the CPU
 * has it) and the length: a second hash_bytes_extended pass over a long
 * node string costs as much again as the first.
 */
static CacheKey
hash128(const char *data, int len)
{
	CacheKey	key;
	pg_crc32c	crc;

	INIT_CRC32C(crc);
	COMP_CRC32C(crc, data, len);
	FIN_CRC32C(crc);
	key.hi = hash_bytes_extended((const unsigned char *) data, len, UINT64CONST(0x5fc0ffee));
	/* the low half feeds partitions and hash buckets: the CRC goes there */
	key.lo = ((uint64) (uint32) len << 32) | crc;
	return key;
}

/* Length of the location field name at p (just after a ':'), or 0. */
static size_t
location_field(const char *p)
{
	static const char *const fields[] = {"location ", "stmt_location ", "stmt_len "};
	static const size_t lengths[] = {9, 14, 9};

	for (int i = 0; i < lengthof(fields); i++)
		if (p[0] == fields[i][0] && strncmp(p, fields[i], lengths[i]) == 0)
			return lengths[i];
	return 0;
}

/*
 * Drop the token positions from a node string, in place: the same
 * statement written with other white space, or under EXPLAIN, is the same
 * statement. Returns the new length.
 */
static int
strip_locations(char *text)
{
	char	   *in = text;
	char	   *out = text;
	char	   *colon;
	size_t		tail;

	while ((colon = strchr(in, ':')) != NULL)
	{
		size_t		field = location_field(colon + 1);
		size_t		keep = colon - in + (field ? 0 : 1);

		memmove(out, in, keep);
		out += keep;
		in = colon + 1;
		if (field)
		{
			in += field;
			if (*in == '-')
				in++;
			while (*in >= '0' && *in <= '9')
				in++;
		}
	}
	tail = strlen(in);
	memmove(out, in, tail + 1);
	return out + tail - text;
}

static void *
grow(void *array, Size elem, int cap)
{
	return array ? repalloc(array, elem * cap) : palloc(elem * cap);
}

static bool
collect_consts(Node *node, CacheKeyConsts *consts)
{
	if (node == NULL)
		return false;
	if (IsA(node, Const))
	{
		Const	   *c = (Const *) node;

		if (consts->n == consts->cap)
		{
			consts->cap = consts->cap ? consts->cap * 2 : 16;
			consts->nodes = grow(consts->nodes, sizeof(Const *), consts->cap);
			consts->values = grow(consts->values, sizeof(Datum), consts->cap);
			consts->isnull = grow(consts->isnull, sizeof(bool), consts->cap);
		}
		/* a Const reached twice is saved once with its value, then blank */
		consts->nodes[consts->n] = c;
		consts->values[consts->n] = c->constvalue;
		consts->isnull[consts->n] = c->constisnull;
		consts->n++;
		c->constvalue = (Datum) 0;
		c->constisnull = true;
		return false;
	}
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, collect_consts, consts, 0);
	return expression_tree_walker(node, collect_consts, consts);
}

/*
 * Blank every Const of the tree the walkers reach, saving its value.
 * The tree must be given back with CacheKeyConstsRestore() before anything
 * else reads it (no error can be thrown in between by this file's code).
 */
void
CacheKeyConstsBlank(Query *query, CacheKeyConsts *consts)
{
	memset(consts, 0, sizeof(*consts));
	(void) query_tree_walker(query, collect_consts, consts, 0);
}

/* Put the saved values back, last first (a Const reached twice). */
void
CacheKeyConstsRestore(CacheKeyConsts *consts)
{
	for (int i = consts->n - 1; i >= 0; i--)
	{
		consts->nodes[i]->constvalue = consts->values[i];
		consts->nodes[i]->constisnull = consts->isnull[i];
	}
}

void
CacheKeyConstsFree(CacheKeyConsts *consts)
{
	if (consts->nodes != NULL)
	{
		pfree(consts->nodes);
		pfree(consts->values);
		pfree(consts->isnull);
	}
}

/*
 * The shape key of a tree whose Consts are blanked; on error the Consts
 * are restored before the error goes on (the tree may be a cached plan's).
 */
CacheKey
CacheKeyShape(Query *blanked, CacheKeyConsts *consts)
{
	char	   *text = NULL;
	CacheKey	key;

	PG_TRY();
	{
		text = nodeToString(blanked);
	}
	PG_CATCH();
	{
		CacheKeyConstsRestore(consts);
		PG_RE_THROW();
	}
	PG_END_TRY();
	key = hash128(text, strip_locations(text));
	pfree(text);
	return key;
}

/*
 * The query key: the shape's with the constants' images, as outDatum()
 * prints them; a windowed constant (its walk place in windowed) is one
 * mark instead, the same for every value (cache_window.c).
 */
CacheKey
CacheKeyCombine(CacheKey shape, const CacheKeyConsts *consts, const Bitmapset *windowed)
{
	StringInfoData buf;
	CacheKey	key;

	initStringInfo(&buf);
	appendBinaryStringInfo(&buf, (char *) &shape, sizeof(shape));
	appendBinaryStringInfo(&buf, (char *) &consts->n, sizeof(consts->n));
	for (int i = 0; i < consts->n; i++)
	{
		Const	   *c = consts->nodes[i];
		Datum		value = consts->values[i];

		if (consts->isnull[i])
		{
			/* outDatum() is not called for a null Const */
			appendStringInfoChar(&buf, 'n');
			continue;
		}
		if (bms_is_member(i, windowed))
		{
			appendStringInfoChar(&buf, 'w');
			continue;
		}
		if (c->constbyval)
		{
			appendStringInfoChar(&buf, 'v');
			appendBinaryStringInfo(&buf, (char *) &value, sizeof(Datum));
		}
		else if (DatumGetPointer(value) == NULL)
			appendStringInfoChar(&buf, '0');
		else
		{
			uint32		len = (uint32) datumGetSize(value, false, c->constlen);

			appendStringInfoChar(&buf, 'p');
			appendBinaryStringInfo(&buf, (char *) &len, sizeof(len));
			appendBinaryStringInfo(&buf, DatumGetPointer(value), len);
		}
	}
	key = hash128(buf.data, buf.len);
	pfree(buf.data);
	return key;
}

static void
append_param(StringInfo buf, ParamExternData *prm, bool windowed)
{
	int16		typlen;
	bool		typbyval;

	appendBinaryStringInfo(buf, (char *) &prm->ptype, sizeof(Oid));
	appendStringInfoChar(buf, prm->isnull ? 'n' : windowed ? 'w' : 'v');
	if (prm->isnull || windowed || !OidIsValid(prm->ptype))
		return;

	get_typlenbyval(prm->ptype, &typlen, &typbyval);
	if (typbyval)
		appendBinaryStringInfo(buf, (char *) &prm->value, sizeof(Datum));
	else if (typlen == -1)
	{
		struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(prm->value));
		int32		len = VARSIZE_ANY_EXHDR(v);

		appendBinaryStringInfo(buf, (char *) &len, sizeof(len));
		appendBinaryStringInfo(buf, VARDATA_ANY(v), len);
	}
	else
	{
		const char *p = DatumGetPointer(prm->value);
		int32		len = (typlen == -2) ? strlen(p) + 1 : typlen;

		appendBinaryStringInfo(buf, (char *) &len, sizeof(len));
		appendBinaryStringInfo(buf, p, len);
	}
}

/*
 * The full key: the query's, with database, role, parameters and settings;
 * the values of windowed_params (numbers from 1) are left out.
 */
CacheKey
CacheKeyWithParams(CacheKey query_key, ParamListInfo params,
				   const Bitmapset *windowed_params)
{
	StringInfoData buf;
	Oid			role = GetUserId();
	CacheKey	key;

	initStringInfo(&buf);
	appendBinaryStringInfo(&buf, (char *) &query_key, sizeof(query_key));
	appendBinaryStringInfo(&buf, (char *) &MyDatabaseId, sizeof(Oid));
	appendBinaryStringInfo(&buf, (char *) &role, sizeof(Oid));
	if (params != NULL)
	{
		for (int i = 0; i < params->numParams; i++)
			append_param(&buf, &params->params[i],
						 bms_is_member(i + 1, windowed_params));
	}
	CacheKeySettingsAppend(&buf);
	key = hash128(buf.data, buf.len);
	pfree(buf.data);
	return key;
}
