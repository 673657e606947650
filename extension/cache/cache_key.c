/*-------------------------------------------------------------------------
 *
 * cache_key.c
 *		Cache keys: 128 bits of hash over the analyzed and rewritten query
 *		tree with its constants (computed once, when the statement is
 *		planned), then over the database, the current role, the bound
 *		parameter values and types and the settings that change computed
 *		values (at each execution: cache_settings.c).
 *
 * Results are stored as tuples and converted to text or binary when each
 * client receives them, so result formats need not be part of the key.
 * Collations and row security policies are resolved in the query tree.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/nodes.h"
#include "port/pg_crc32c.h"
#include "utils/lsyscache.h"

#include "cache/cache.h"

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

/* The key of a query tree, constants included, parameters not. */
CacheKey
CacheKeyForQuery(Query *query)
{
	char	   *text = nodeToString(query);
	CacheKey	key = hash128(text, strip_locations(text));

	pfree(text);
	return key;
}

static void
append_param(StringInfo buf, ParamExternData *prm)
{
	int16		typlen;
	bool		typbyval;

	appendBinaryStringInfo(buf, (char *) &prm->ptype, sizeof(Oid));
	appendStringInfoChar(buf, prm->isnull ? 'n' : 'v');
	if (prm->isnull || !OidIsValid(prm->ptype))
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

/* The full key: the query's, with database, role, parameters and settings. */
CacheKey
CacheKeyWithParams(CacheKey query_key, ParamListInfo params)
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
			append_param(&buf, &params->params[i]);
	}
	CacheSettingsAppend(&buf);
	key = hash128(buf.data, buf.len);
	pfree(buf.data);
	return key;
}
