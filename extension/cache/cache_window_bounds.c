/*-------------------------------------------------------------------------
 *
 * cache_window_bounds.c
 *		Validity windows at execution: a leader computes, with the snapshot
 *		its result was computed with, the window of each windowed constant
 *		(cache_window.c); a lookup serves an entry only if every constant
 *		of this execution lies inside its window.
 *
 * For "column <= c" (and "column > c") the rows passing are unchanged
 * while c' lies in [max{v <= c}, min{v > c}); for "column < c" (and
 * "column >= c") while c' lies in (max{v < c}, min{v >= c}], v ranging
 * over the column's non-null values among the rows of the relation that
 * pass the conjunct's filters, compared with the conjunct's btree order
 * procedure and collation; a side with no such row is open.
 *
 * The neighbours are found, first, by the leader's own scan, when it read
 * every row that passes the filters (cache_window_scan.c): no scan is
 * added. Otherwise through a btree index whose first column is the column,
 * in the same operator family and collation, with no predicate: from c
 * towards each side, the first row that passes the filters. After
 * CACHE_WINDOW_INDEX_ROWS rows failing them the scan stops and the bound
 * is the last value seen, exclusive (every row between c and it was seen
 * and failed: the window is narrower, never wider). Otherwise, or for a
 * relation with descendants, or for a result that will not be stored, the
 * window is the constant itself (its image: served again only for the same
 * constant, as an exact key). Nothing ever reads the table a second time.
 * A point for want of an index, the only one an index would widen, is
 * told to the callback registered (the index advice's).
 *
 * The windows of an entry are one byte string, stored with its result
 * (cache_store.c): per windowed constant a WindowHeader, then MAXALIGNed
 * images (uint32 length, bytes) of the leader's constant, the lower and
 * the upper bound when they are not open.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/nbtree.h"
#include "access/relscan.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_index.h"
#include "executor/executor.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "cache/cache_internal.h"

#define CACHE_WINDOW_INDEX_ROWS 1000	/* rows failing the filters, per side */

static CacheWindowStarvedCallback window_starved_callback = NULL;

typedef enum WindowKind
{
	WINDOW_KEYED,				/* the constant is in the key: nothing to
								 * check */
	WINDOW_POINT,				/* only the leader's constant image */
	WINDOW_RANGE
} WindowKind;

typedef enum BoundKind
{
	BOUND_OPEN,
	BOUND_INCLUSIVE,
	BOUND_EXCLUSIVE
} BoundKind;

typedef struct WindowHeader
{
	uint8		kind;			/* WindowKind */
	uint8		lo;				/* BoundKind */
	uint8		hi;
} WindowHeader;

/* One side's bound, found by a scan. */
typedef struct Bound
{
	BoundKind	kind;
	Datum		value;			/* a copy, of the column's type */
} Bound;

/* What the scans of one window need. */
typedef struct BoundScan
{
	const CacheWindowValue *v;
	Relation	rel;
	Snapshot	snapshot;
	int16		collen;
	bool		colbyval;
	ExprState  *filters;
	ExprContext *econtext;
	TupleTableSlot *slot;
	uint64		queryid;		/* the statement's, for the starved callback */
} BoundScan;

/* Does "column <= c" (or > c) split the values at c itself? */
static bool
splits_after(int strategy)
{
	return strategy == BTLessEqualStrategyNumber || strategy == BTGreaterStrategyNumber;
}

static int
cmp_col_const(const CacheWindowValue *v, Datum col)
{
	return DatumGetInt32(FunctionCall2Coll((FmgrInfo *) &v->cmp, v->spec->collid,
										   col, v->value));
}

/* Does the row in the scan's slot pass the filters? */
static bool
passes_filters(BoundScan *bs)
{
	bool		pass;

	if (bs->filters == NULL)
		return true;
	bs->econtext->ecxt_scantuple = bs->slot;
	pass = ExecQual(bs->filters, bs->econtext);
	ResetExprContext(bs->econtext);
	return pass;
}

/* A copy of a column value, detoasted: it outlives the scan. */
static Datum
copy_value(BoundScan *bs, Datum value)
{
	if (bs->collen == -1)
		return PointerGetDatum(pg_detoast_datum_copy((struct varlena *) DatumGetPointer(value)));
	return datumCopy(value, bs->colbyval, bs->collen);
}

/* The column's value in the slot, copied; false if null. */
static bool
slot_column(BoundScan *bs, Datum *value)
{
	bool		isnull;
	Datum		d = slot_getattr(bs->slot, bs->v->spec->attno, &isnull);

	if (isnull)
		return false;
	*value = copy_value(bs, d);
	return true;
}

/* ---- through an index ---- */

/* A btree index that orders the column as the comparison does, or NULL. */
static Relation
usable_index(BoundScan *bs)
{
	List	   *indexes = RelationGetIndexList(bs->rel);
	ListCell   *lc;

	foreach(lc, indexes)
	{
		Relation	index = index_open(lfirst_oid(lc), AccessShareLock);
		Form_pg_index form = index->rd_index;

		if (index->rd_rel->relam == BTREE_AM_OID && form->indisvalid &&
			form->indkey.values[0] == bs->v->spec->attno &&
			heap_attisnull(index->rd_indextuple, Anum_pg_index_indpred, NULL) &&
			index->rd_opfamily[0] == bs->v->spec->opfamily &&
			index->rd_opcintype[0] == bs->v->spec->lefttype &&
			index->rd_indcollation[0] == bs->v->spec->collid)
		{
			list_free(indexes);
			return index;
		}
		index_close(index, AccessShareLock);
	}
	list_free(indexes);
	return NULL;
}

/*
 * The nearest value on one side of c: towards smaller values with the key
 * "column strategy c" (< or <=), towards larger ones with > or >=.
 */
static Bound
index_bound(BoundScan *bs, Relation index, int strategy, bool inclusive_hit)
{
	const CacheWindowSpec *s = bs->v->spec;
	bool		smaller = strategy == BTLessStrategyNumber ||
	strategy == BTLessEqualStrategyNumber;
	bool		desc = (index->rd_indoption[0] & INDOPTION_DESC) != 0;
	ScanDirection dir = (smaller != desc) ? BackwardScanDirection : ForwardScanDirection;
	Oid			opno = get_opfamily_member(s->opfamily, s->lefttype, s->righttype, strategy);
	ScanKeyData key;
	IndexScanDesc scan;
	Bound		bound = {BOUND_OPEN, (Datum) 0};
	int			failed = 0;

	ScanKeyEntryInitialize(&key, 0, 1, strategy, s->righttype, s->collid,
						   get_opcode(opno), bs->v->value);
	scan = index_beginscan(bs->rel, index, bs->snapshot, NULL, 1, 0, 0);
	index_rescan(scan, &key, 1, NULL, 0);
	while (index_getnext_slot(scan, dir, bs->slot))
	{
		Datum		value;

		if (!slot_column(bs, &value))
			continue;
		if (passes_filters(bs))
		{
			bound.kind = inclusive_hit ? BOUND_INCLUSIVE : BOUND_EXCLUSIVE;
			bound.value = value;
			break;
		}
		if (++failed >= CACHE_WINDOW_INDEX_ROWS)
		{
			/* every row between c and this one failed: narrower, still true */
			bound.kind = BOUND_EXCLUSIVE;
			bound.value = value;
			break;
		}
	}
	index_endscan(scan);
	return bound;
}

/* ---- the byte string ---- */

static void
append_image(StringInfo out, Datum value, int16 typlen, bool typbyval)
{
	uint32		len;
	const char *p;

	if (typbyval)
	{
		len = sizeof(Datum);
		p = (const char *) &value;
	}
	else
	{
		if (typlen == -1)
			value = PointerGetDatum(pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value)));
		len = (uint32) datumGetSize(value, false, typlen);
		p = DatumGetPointer(value);
	}
	appendBinaryStringInfo(out, (const char *) &len, sizeof(len));
	while (out->len % MAXIMUM_ALIGNOF != 0)
		appendStringInfoChar(out, '\0');
	appendBinaryStringInfo(out, p, len);
	while (out->len % MAXIMUM_ALIGNOF != 0)
		appendStringInfoChar(out, '\0');
}

/* The image at *pos, as a Datum pointing into the string; advances *pos. */
static Datum
read_image(const char *windows, Size *pos, bool typbyval, uint32 *len)
{
	Datum		value;

	memcpy(len, windows + *pos, sizeof(uint32));
	*pos = MAXALIGN(*pos + sizeof(uint32));
	if (typbyval)
		memcpy(&value, windows + *pos, sizeof(Datum));
	else
		value = PointerGetDatum(windows + *pos);
	*pos = MAXALIGN(*pos + *len);
	return value;
}

static void
append_window(StringInfo out, const CacheWindowValue *v, WindowKind kind,
			  const Bound *lo, const Bound *hi, int16 collen, bool colbyval)
{
	WindowHeader h = {kind, lo->kind, hi->kind};

	appendBinaryStringInfo(out, (const char *) &h, sizeof(h));
	while (out->len % MAXIMUM_ALIGNOF != 0)
		appendStringInfoChar(out, '\0');
	if (kind == WINDOW_KEYED)
		return;
	append_image(out, v->value, v->typlen, v->typbyval);
	if (kind == WINDOW_POINT)
		return;
	if (lo->kind != BOUND_OPEN)
		append_image(out, lo->value, collen, colbyval);
	if (hi->kind != BOUND_OPEN)
		append_image(out, hi->value, collen, colbyval);
}

/* The bounds the leader's scan saw, with the kinds its strategy gives them. */
static bool
scanned_bounds(BoundScan *bs, const CacheWindowWatch *watch, int i, Bound *lo, Bound *hi)
{
	bool		after = splits_after(bs->v->spec->strategy);
	bool		has_lo;
	bool		has_hi;

	if (!CacheWindowWatchBounds(watch, i, &has_lo, &lo->value, &has_hi, &hi->value))
		return false;
	lo->kind = !has_lo ? BOUND_OPEN : after ? BOUND_INCLUSIVE : BOUND_EXCLUSIVE;
	hi->kind = !has_hi ? BOUND_OPEN : after ? BOUND_EXCLUSIVE : BOUND_INCLUSIVE;
	return true;
}

/* One window: its kind and bounds, from the leader's scan or an index. */
static WindowKind
compute_window(BoundScan *bs, const CacheWindowWatch *watch, int i, Bound *lo, Bound *hi)
{
	bool		after = splits_after(bs->v->spec->strategy);
	Relation	index;

	if (bs->rel->rd_rel->relhassubclass)
		return WINDOW_POINT;
	if (scanned_bounds(bs, watch, i, lo, hi))
		return WINDOW_RANGE;
	if ((index = usable_index(bs)) != NULL)
	{
		*lo = index_bound(bs, index, after ? BTLessEqualStrategyNumber : BTLessStrategyNumber,
						  after);
		*hi = index_bound(bs, index, after ? BTGreaterStrategyNumber : BTGreaterEqualStrategyNumber,
						  !after);
		index_close(index, AccessShareLock);
		return WINDOW_RANGE;
	}
	if (window_starved_callback != NULL)
		window_starved_callback(bs->v->spec->relid, bs->v->spec->attno,
								get_opfamily_member(bs->v->spec->opfamily, bs->v->spec->lefttype,
													bs->v->spec->righttype, bs->v->spec->strategy),
								bs->queryid);
	return WINDOW_POINT;
}

/*
 * A leader, once its result is computed and with the same snapshot: the
 * windows of its constants, into out (empty without windows). watch holds
 * what the leader's scan saw (NULL: nothing); without ranges (a result
 * that will not be stored) every window is a point, computed from nothing.
 */
void
CacheWindowsCompute(const CacheWindowProbe *probe, const CacheWindowWatch *watch, bool ranges,
					ParamListInfo params, Snapshot snapshot, uint64 queryid, StringInfo out)
{
	EState	   *estate;

	if (probe == NULL)
		return;
	estate = CreateExecutorState();
	estate->es_param_list_info = params;
	for (int i = 0; i < probe->n; i++)
	{
		const CacheWindowValue *v = &probe->values[i];
		BoundScan	bs = {v};
		Bound		lo = {BOUND_OPEN, (Datum) 0};
		Bound		hi = {BOUND_OPEN, (Datum) 0};
		WindowKind	kind;

		get_typlenbyval(v->spec->coltype, &bs.collen, &bs.colbyval);
		if (v->keyed || !ranges)
		{
			append_window(out, v, v->keyed ? WINDOW_KEYED : WINDOW_POINT, &lo, &hi,
						  bs.collen, bs.colbyval);
			continue;
		}
		bs.rel = table_open(v->spec->relid, AccessShareLock);
		bs.snapshot = snapshot;
		bs.queryid = queryid;
		bs.slot = table_slot_create(bs.rel, NULL);
		bs.econtext = GetPerTupleExprContext(estate);
		bs.filters = v->spec->filters ? ExecPrepareQual(v->spec->filters, estate) : NULL;
		kind = compute_window(&bs, watch, i, &lo, &hi);
		ExecDropSingleTupleTableSlot(bs.slot);
		table_close(bs.rel, AccessShareLock);
		append_window(out, v, kind, &lo, &hi, bs.collen, bs.colbyval);
	}
	FreeExecutorState(estate);
}

/* From an Init: tell callback of each point window an index would widen. */
void
CacheRegisterWindowStarvedCallback(CacheWindowStarvedCallback callback)
{
	if (window_starved_callback != NULL)
		elog(ERROR, "sfcache window starved callback already registered");
	window_starved_callback = callback;
}

/* ---- at a lookup ---- */

/* The header at *pos, if the string holds one; advances *pos past it. */
static inline bool
read_header(const char *windows, Size len, Size *pos, WindowHeader *h)
{
	if (*pos + sizeof(*h) > len)
		return false;
	memcpy(h, windows + *pos, sizeof(*h));
	*pos = MAXALIGN(*pos + sizeof(*h));
	return true;
}

static bool
inside(const CacheWindowValue *v, Datum bound, BoundKind kind, bool lower)
{
	int			r;

	if (kind == BOUND_OPEN)
		return true;
	r = cmp_col_const(v, bound);
	if (lower)
		return kind == BOUND_INCLUSIVE ? r <= 0 : r < 0;
	return kind == BOUND_INCLUSIVE ? r >= 0 : r > 0;
}

static bool
same_image(const CacheWindowValue *v, Datum image, uint32 len)
{
	Datum		value = v->value;

	if (v->typbyval)
		return datumIsEqual(value, image, true, v->typlen);
	if (v->typlen == -1)
		value = PointerGetDatum(pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value)));
	return datumGetSize(value, false, v->typlen) == len &&
		memcmp(DatumGetPointer(value), DatumGetPointer(image), len) == 0;
}

/*
 * Is every constant of this execution inside the entry's windows? Sets
 * probe->by_window when one of them differs from the leader's. Caller
 * holds the entry's partition lock: the comparisons are btree order
 * procedures, which neither wait nor take locks.
 */
bool
CacheWindowsContain(const char *windows, Size len, CacheWindowProbe *probe)
{
	Size		pos = 0;
	bool		other = false;

	if (probe == NULL)
		return true;
	for (int i = 0; i < probe->n; i++)
	{
		const CacheWindowValue *v = &probe->values[i];
		WindowHeader h;
		Datum		own;
		uint32		own_len;
		Datum		bound;
		uint32		blen;
		int16		collen;
		bool		colbyval;

		if (!read_header(windows, len, &pos, &h))
			return false;
		if ((h.kind == WINDOW_KEYED) != v->keyed)
			return false;
		if (h.kind == WINDOW_KEYED)
			continue;
		own = read_image(windows, &pos, v->typbyval, &own_len);
		if (!same_image(v, own, own_len))
		{
			if (h.kind == WINDOW_POINT)
				return false;
			other = true;
		}
		if (h.kind == WINDOW_POINT)
			continue;
		get_typlenbyval(v->spec->coltype, &collen, &colbyval);
		if (h.lo != BOUND_OPEN)
		{
			bound = read_image(windows, &pos, colbyval, &blen);
			if (!inside(v, bound, h.lo, true))
				return false;
		}
		if (h.hi != BOUND_OPEN)
		{
			bound = read_image(windows, &pos, colbyval, &blen);
			if (!inside(v, bound, h.hi, false))
				return false;
		}
	}
	probe->by_window = other;
	if (probe->keep_copy)
	{
		probe->copy = palloc(Max(len, 1));
		memcpy(probe->copy, windows, len);
		probe->copy_len = len;
	}
	return true;
}

/* Read the next image of each string; with compare, are their bytes equal? */
static bool
next_images(const char *a, Size *apos, const char *b, Size *bpos, bool compare)
{
	uint32		alen;
	uint32		blen;
	Datum		aimage = read_image(a, apos, false, &alen);
	Datum		bimage = read_image(b, bpos, false, &blen);

	/* a by-value image's bytes are its Datum's: compared as bytes too */
	return !compare || (alen == blen &&
						memcmp(DatumGetPointer(aimage), DatumGetPointer(bimage), alen) == 0);
}

/*
 * Do two entries' windows (of probe's statement) hold the same constants:
 * the same kinds and bounds, and for a point the same constant? A copy of a
 * window computed by another leader side by side (cache_singleflight.c)
 * differs only in the leader's own constant, which a range does not need.
 */
bool
CacheWindowsSame(const char *a, Size alen, const char *b, Size blen,
				 const CacheWindowProbe *probe)
{
	Size		apos = 0;
	Size		bpos = 0;

	for (int i = 0; i < probe->n; i++)
	{
		WindowHeader ha;
		WindowHeader hb;

		if (!read_header(a, alen, &apos, &ha) || !read_header(b, blen, &bpos, &hb) ||
			ha.kind != hb.kind || ha.lo != hb.lo || ha.hi != hb.hi)
			return false;
		if (ha.kind == WINDOW_KEYED)
			continue;
		if (!next_images(a, &apos, b, &bpos, ha.kind == WINDOW_POINT))
			return false;
		if (ha.kind == WINDOW_POINT)
			continue;
		if ((ha.lo != BOUND_OPEN && !next_images(a, &apos, b, &bpos, true)) ||
			(ha.hi != BOUND_OPEN && !next_images(a, &apos, b, &bpos, true)))
			return false;
	}
	return true;
}

/* ---- EXPLAIN ---- */

static const char *
strategy_name(int strategy)
{
	switch (strategy)
	{
		case BTLessStrategyNumber:
			return "<";
		case BTLessEqualStrategyNumber:
			return "<=";
		case BTGreaterEqualStrategyNumber:
			return ">=";
		case BTGreaterStrategyNumber:
			return ">";
	}
	return "?";
}

static char *
output_value(Oid type, Datum value)
{
	Oid			out;
	bool		varlena;

	getTypeOutputInfo(type, &out, &varlena);
	return OidOutputFunctionCall(out, value);
}

static void
append_bound(StringInfo buf, const CacheWindowValue *v, const char *windows, Size *pos,
			 BoundKind kind, bool lower)
{
	int16		collen;
	bool		colbyval;
	uint32		len;

	if (kind == BOUND_OPEN)
	{
		appendStringInfoString(buf, lower ? "(unbounded" : "unbounded)");
		return;
	}
	get_typlenbyval(v->spec->coltype, &collen, &colbyval);
	if (lower)
		appendStringInfoChar(buf, kind == BOUND_INCLUSIVE ? '[' : '(');
	appendStringInfoString(buf, output_value(v->spec->coltype,
											 read_image(windows, pos, colbyval, &len)));
	if (!lower)
		appendStringInfoChar(buf, kind == BOUND_INCLUSIVE ? ']' : ')');
}

/* One line per windowed constant: "column op $n in [lo, hi)". */
void
CacheWindowsExplain(const CacheWindowProbe *probe, const char *windows, Size len,
					ExplainState *es)
{
	Size		pos = 0;
	List	   *lines = NIL;

	if (probe == NULL || windows == NULL)
		return;
	for (int i = 0; i < probe->n && pos < len; i++)
	{
		const CacheWindowValue *v = &probe->values[i];
		WindowHeader h;
		StringInfoData buf;
		uint32		own_len;

		memcpy(&h, windows + pos, sizeof(h));
		pos = MAXALIGN(pos + sizeof(h));
		initStringInfo(&buf);
		appendStringInfo(&buf, "%s %s ", v->spec->colname, strategy_name(v->spec->strategy));
		if (IsA(v->spec->value, Param))
			appendStringInfo(&buf, "$%d", ((Param *) v->spec->value)->paramid);
		else
			appendStringInfoString(&buf, "constant");
		if (h.kind == WINDOW_KEYED)
			appendStringInfoString(&buf, " (keyed)");
		else
		{
			(void) read_image(windows, &pos, v->typbyval, &own_len);
			if (h.kind == WINDOW_POINT)
				appendStringInfoString(&buf, " (exact)");
			else
			{
				appendStringInfoString(&buf, " in ");
				append_bound(&buf, v, windows, &pos, h.lo, true);
				appendStringInfoString(&buf, ", ");
				append_bound(&buf, v, windows, &pos, h.hi, false);
			}
		}
		lines = lappend(lines, buf.data);
	}
	if (es->format == EXPLAIN_FORMAT_TEXT)
	{
		ListCell   *lc;

		foreach(lc, lines)
			ExplainPropertyText("Cache Window", lfirst(lc), es);
	}
	else
		ExplainPropertyList("Cache Windows", lines, es);
}
