/*-------------------------------------------------------------------------
 *
 * cache_inval_wal.c
 *		Invalidations carried in the WAL (sfcache.wal_invalidations): the
 *		custom WAL resource manager "sfcache", the record a committing
 *		transaction writes before its commit record (what its commit
 *		invalidates: relations, tags, or everything), and the record's redo,
 *		which on a hot standby bumps the same counters in replay order, as
 *		PostgreSQL carries its relcache invalidations in commit records.
 *
 * The redo first marks the record's transaction in flight, then bumps
 * (cache_inval_wal_standby.c keeps the set and says when a standby may
 * store): a leader that reads the generations after the bump finds the
 * writer in flight until its commit record is replayed, which is when the
 * commit becomes visible, so it never stores a result computed before that
 * commit with a generation the commit already moved (doc/DESIGN.md,
 * "Invalidations in the WAL"; model/sfcache.pml, WAL_INVAL).
 *
 * A server replaying these records without the library fails recovery
 * with "resource manager with ID 128 not registered" (PostgreSQL's own
 * check): never a silent skip. So the setting is off by default, and
 * sfcache must be in shared_preload_libraries of every standby first.
 *
 * Locking: none here; see the two files the redo calls into.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/timestamp.h"

#include "cache/cache_internal.h"

/*
 * PostgreSQL's id for experiments (RM_EXPERIMENTAL_ID). An id of its own
 * must be reserved on https://wiki.postgresql.org/wiki/CustomWALResourceManagers
 * before a release; another extension registering the same id makes the
 * server refuse to start, with both names in the message.
 */
#define SFCACHE_RMGR_ID 128

#define XLOG_SFCACHE_INVALIDATE 0x00

#define SFCACHE_WAL_EVERYTHING 0x01

/* The record: this header, then relids, row_relids and tags, in that order. */
typedef struct xl_sfcache_invalidate
{
	Oid			dbid;
	uint16		flags;
	uint16		nrelids;
	uint16		nrow_relids;
	uint16		ntags;
} xl_sfcache_invalidate;

#define SizeOfSfcacheInvalidate (offsetof(xl_sfcache_invalidate, ntags) + sizeof(uint16))

/*
 * The OIDs of a list as an array (palloc'd in the current context). A
 * List's cells are a union as wide as a pointer: &linitial_oid(list) is not
 * an array of Oid (its second "element" is the first cell's upper half).
 */
Oid *
CacheOidArray(List *oids)
{
	Oid		   *a = palloc(Max(list_length(oids), 1) * sizeof(Oid));
	int			i = 0;
	ListCell   *lc;

	foreach(lc, oids)
		a[i++] = lfirst_oid(lc);
	return a;
}

/*
 * Before the commit record (PRE_COMMIT or PRE_PREPARE, or COMMIT PREPARED
 * with everything), after the counters' first bump: what the commit
 * invalidates, for the standbys to bump when they replay it. Only on a
 * primary that keeps WAL for standbys and has the setting on. The record's
 * transaction id (XLogInsert takes the current one) is the writer's.
 */
void
CacheWalLogInvalidations(bool everything, List *relids, List *row_relids,
						 int ntags, const CacheTag *tags)
{
	xl_sfcache_invalidate xlrec;
	Oid		   *whole;
	Oid		   *rows;

	if (!cache_wal_invalidations || !XLogStandbyInfoActive())
		return;
	/* beyond a record's counts, everything drops: as when tags overflow */
	if (list_length(relids) > PG_UINT16_MAX ||
		list_length(row_relids) > PG_UINT16_MAX || ntags > PG_UINT16_MAX)
		everything = true;

	memset(&xlrec, 0, sizeof(xlrec));
	xlrec.dbid = MyDatabaseId;
	xlrec.flags = everything ? SFCACHE_WAL_EVERYTHING : 0;
	if (!everything)
	{
		xlrec.nrelids = list_length(relids);
		xlrec.nrow_relids = list_length(row_relids);
		xlrec.ntags = ntags;
	}

	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, SizeOfSfcacheInvalidate);

	/*
	 * A List's cells are wider than an Oid (a union with a pointer): copy the
	 * OIDs into arrays, never register &linitial_oid(list) as one.
	 */
	if (xlrec.nrelids > 0)
	{
		whole = CacheOidArray(relids);
		XLogRegisterData((char *) whole, xlrec.nrelids * sizeof(Oid));
	}
	if (xlrec.nrow_relids > 0)
	{
		rows = CacheOidArray(row_relids);
		XLogRegisterData((char *) rows, xlrec.nrow_relids * sizeof(Oid));
	}
	if (xlrec.ntags > 0)
		XLogRegisterData((char *) tags, xlrec.ntags * sizeof(CacheTag));
	(void) XLogInsert(SFCACHE_RMGR_ID, XLOG_SFCACHE_INVALIDATE);
}

/* The record's parts, checked against its length. */
static const xl_sfcache_invalidate *
record_parts(XLogReaderState *record, const Oid **relids, const Oid **row_relids,
			 const CacheTag **tags)
{
	const char *data = XLogRecGetData(record);
	const xl_sfcache_invalidate *xlrec = (const xl_sfcache_invalidate *) data;
	Size		need;

	if (XLogRecGetDataLen(record) < SizeOfSfcacheInvalidate)
		elog(PANIC, "sfcache: invalidation record too short");
	need = SizeOfSfcacheInvalidate +
		(xlrec->nrelids + xlrec->nrow_relids) * sizeof(Oid) +
		xlrec->ntags * sizeof(CacheTag);
	if (XLogRecGetDataLen(record) < need)
		elog(PANIC, "sfcache: invalidation record too short");
	*relids = (const Oid *) (data + SizeOfSfcacheInvalidate);
	*row_relids = *relids + xlrec->nrelids;
	*tags = (const CacheTag *) (*row_relids + xlrec->nrow_relids);
	return xlrec;
}

static void
sfcache_redo(XLogReaderState *record)
{
	const Oid  *relids;
	const Oid  *row_relids;
	const CacheTag *tags;
	const xl_sfcache_invalidate *xlrec;

	if ((XLogRecGetInfo(record) & ~XLR_INFO_MASK) != XLOG_SFCACHE_INVALIDATE)
		elog(PANIC, "sfcache_redo: unknown op code %u", XLogRecGetInfo(record));
	xlrec = record_parts(record, &relids, &row_relids, &tags);

	/* in flight first, then the bumps (the header says why) */
	CacheWalNoteRecord(XLogRecGetXid(record));
#ifdef SFCACHE_PLANT_STANDBY_STALE
	{
		/* planted bug (bench/soak, issue 33): one record in 20 bumps nothing */
		static uint32 planted_n = 0;

		if (++planted_n % 20 == 0 && !(xlrec->flags & SFCACHE_WAL_EVERYTHING))
			return;
	}
#endif
	if (xlrec->flags & SFCACHE_WAL_EVERYTHING)
		CacheInvalidateAllNow(InvalidXLogRecPtr);
	else
	{
		CacheInvalidateRelationsOf(xlrec->dbid, xlrec->nrelids, relids,
								   InvalidXLogRecPtr);
		CacheInvalidateRowsOf(xlrec->dbid, xlrec->nrow_relids, row_relids,
							  xlrec->ntags, tags, InvalidXLogRecPtr);
	}
}

/* For pg_waldump and pg_walinspect (they need the library loaded). */
static void
sfcache_desc(StringInfo buf, XLogReaderState *record)
{
	const Oid  *relids;
	const Oid  *row_relids;
	const CacheTag *tags;
	const xl_sfcache_invalidate *xlrec;

	xlrec = record_parts(record, &relids, &row_relids, &tags);
	appendStringInfo(buf, "db %u;", xlrec->dbid);
	if (xlrec->flags & SFCACHE_WAL_EVERYTHING)
		appendStringInfoString(buf, " everything");
	for (int i = 0; i < xlrec->nrelids; i++)
		appendStringInfo(buf, " rel %u", relids[i]);
	for (int i = 0; i < xlrec->nrow_relids; i++)
		appendStringInfo(buf, " rows of %u", row_relids[i]);
	if (xlrec->ntags > 0)
		appendStringInfo(buf, "; %u tags", xlrec->ntags);
}

static const char *
sfcache_identify(uint8 info)
{
	if ((info & ~XLR_INFO_MASK) == XLOG_SFCACHE_INVALIDATE)
		return "INVALIDATE";
	return NULL;
}

static RmgrData sfcache_rmgr = {
	.rm_name = "sfcache",
	.rm_redo = sfcache_redo,
	.rm_desc = sfcache_desc,
	.rm_identify = sfcache_identify,
	.rm_startup = CacheWalRedoStartup,
};

/* From CacheInit, in _PG_init of shared_preload_libraries. */
void
CacheWalInit(void)
{
	RegisterCustomRmgr(SFCACHE_RMGR_ID, &sfcache_rmgr);
}
