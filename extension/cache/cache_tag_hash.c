/*-------------------------------------------------------------------------
 *
 * cache_tag_hash.c
 *		Which function hashes a value compared with a tracked column so
 *		that it names the same tag as a row holding an equal value: the
 *		rule readers (cache_tags.c, at planning) and writers
 *		(cache_capture_plan.c, at each ExecutorStart) share, with this
 *		backend's memo of its answers.
 *
 * The comparison must be a member of the column type's default hash
 * operator family, in the column's collation, which must be
 * deterministic; the value is then hashed with that family's function for
 * its own type, which for equal values returns what the column type's
 * function returns for the row's (cache_capture.c).
 *
 * The memo is forgotten when an operator family's members change (the
 * syscache callbacks of pg_amop, pg_amproc and pg_opclass).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/hash.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "cache/cache_internal.h"

#define TAG_HASH_MEMO 16

/* One answer of CacheTagHashProc. */
typedef struct TagHashMemo
{
	Oid			atttype;
	Oid			attcoll;
	Oid			opno;
	Oid			inputcollid;
	Oid			valuetype;
	Oid			hashproc;
} TagHashMemo;

static TagHashMemo memo[TAG_HASH_MEMO];
static int	nmemo = 0;
static int	next_slot = 0;
static bool callbacks_registered = false;

static void
forget_memo(Datum arg, int cacheid, uint32 hashvalue)
{
	nmemo = 0;
	next_slot = 0;
}

static Oid
lookup_hash_proc(Oid atttype, Oid attcoll, Oid opno, Oid inputcollid, Oid valuetype)
{
	TypeCacheEntry *typentry;

	if (OidIsValid(attcoll) &&
		(inputcollid != attcoll || !get_collation_isdeterministic(attcoll)))
		return InvalidOid;
	typentry = lookup_type_cache(atttype, TYPECACHE_HASH_OPFAMILY);
	if (!OidIsValid(typentry->hash_opf) || !op_in_opfamily(opno, typentry->hash_opf))
		return InvalidOid;
	return get_opfamily_proc(typentry->hash_opf, valuetype, valuetype, HASHSTANDARD_PROC);
}

/*
 * The function that hashes a value of valuetype compared by opno, in
 * inputcollid, with a column of type atttype and collation attcoll, so
 * that it names the tag of every row the comparison holds for; InvalidOid
 * when such a comparison names no tag.
 */
Oid
CacheTagHashProc(Oid atttype, Oid attcoll, Oid opno, Oid inputcollid, Oid valuetype)
{
	TagHashMemo *m;
	Oid			hashproc;

	for (int i = 0; i < nmemo; i++)
	{
		m = &memo[i];
		if (m->atttype == atttype && m->attcoll == attcoll && m->opno == opno &&
			m->inputcollid == inputcollid && m->valuetype == valuetype)
			return m->hashproc;
	}
	if (!callbacks_registered)
	{
		CacheRegisterSyscacheCallback(AMOPOPID, forget_memo, (Datum) 0);
		CacheRegisterSyscacheCallback(AMPROCNUM, forget_memo, (Datum) 0);
		CacheRegisterSyscacheCallback(CLAOID, forget_memo, (Datum) 0);
		callbacks_registered = true;
	}
	/* the lookup may run the callbacks: take the slot after it */
	hashproc = lookup_hash_proc(atttype, attcoll, opno, inputcollid, valuetype);
	m = &memo[next_slot];
	m->hashproc = hashproc;
	m->atttype = atttype;
	m->attcoll = attcoll;
	m->opno = opno;
	m->inputcollid = inputcollid;
	m->valuetype = valuetype;
	next_slot = (next_slot + 1) % TAG_HASH_MEMO;
	if (nmemo < TAG_HASH_MEMO)
		nmemo++;
	return hashproc;
}
