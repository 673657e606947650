/*-------------------------------------------------------------------------
 *
 * advice_persist.c
 *		Owns the file that carries the index advice's record (quals,
 *		statements, table activity) across a clean restart, as
 *		pg_stat_statements carries its statistics: the postmaster writes
 *		it when it exits after a clean shutdown (on_shmem_exit), and reads
 *		it back, then removes it, when it creates shared memory at start.
 *
 * Statements are written only with sfcache.literal_texts on: their texts
 * keep their constants, which the statements are re-planned with, and the
 * file must not carry data that no view shows (base_normalize.c). Without
 * them a restart keeps the quals and table activity; a statement's advice
 * comes back when it is sampled again.
 *
 * The file is pg_stat/sfcache_advice.stat: a header (magic number, file
 * format, PostgreSQL major version, library version, the size of each
 * kind of entry), the entries (a kind byte, then the entry as it is in
 * shared memory), a trailer with the number of entries, and a CRC-32C of
 * all that. It is written to a temporary name, then durably renamed. A file
 * of a format this build does not read (ADVICE_FILE_FORMAT), of another
 * PostgreSQL major or library version, or one whose CRC or length does not
 * match, is ignored with a LOG line and removed: the record starts empty.
 * Nothing is written after a crash (the postmaster then exits with a
 * non-zero code) or an immediate shutdown (it exits with 0, but the control
 * file does not say "shut down": no shutdown checkpoint ran, and backends
 * were killed wherever they were), and the file is
 * removed as soon as it is read, so a crash loses what was recorded
 * since the last start, and the file never reaches a base backup of a
 * running server.
 *
 * Dropped databases: DROP DATABASE frees the database's entries at its
 * commit (advice_store.c), so they are not in the file. A standby that
 * replays a DROP DATABASE runs no hook and keeps them until it stops; so at
 * start an entry is restored only if its database still has a directory
 * (base/<oid>, or <oid> under a tablespace's pg_tblspc/<spc>/<version>
 * directory): the postmaster cannot read pg_database, but DROP DATABASE
 * and its replay remove those directories before they commit.
 *
 * Note about locking issues: none are taken. The file is read before any
 * backend exists (the postmaster's shmem_startup_hook) and written after
 * every backend has exited (the postmaster's on_shmem_exit).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <unistd.h>

#include <sys/stat.h>

#include "catalog/pg_control.h"
#include "catalog/pg_tablespace_d.h"
#include "common/controldata_utils.h"
#include "common/relpath.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/pg_crc32c.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/shmem.h"

#include "advice/advice_internal.h"

#define ADVICE_FILE			PGSTAT_STAT_PERMANENT_DIRECTORY "/sfcache_advice.stat"
#define ADVICE_FILE_TMP		ADVICE_FILE ".tmp"
#define ADVICE_FILE_MAGIC	0x53464144	/* "SFAD" */
/*
 * Format 2: quals may have role ADVICE_ROLE_WINDOW (a reader of format 1
 * would not know it). A file of format 1 has the same entries without it,
 * and is read.
 */
#define ADVICE_FILE_FORMAT	2
#define ADVICE_FILE_FORMAT_MIN 1	/* oldest format still read */
#define ADVICE_FILE_END		0xFF	/* kind byte of the trailer */

typedef struct AdviceFileHeader
{
	uint32		magic;
	uint32		format;
	uint32		pg_major;
	char		library[16];	/* SFCACHE_VERSION */
	uint32		entry_size[ADVICE_RECORD_KINDS];
} AdviceFileHeader;

/* What one restore keeps and drops. */
typedef struct AdviceRestoreCounts
{
	uint32		restored[ADVICE_RECORD_KINDS];
	uint32		discarded;		/* entries of databases that are gone */
	HTAB	   *databases;		/* dbid -> exists, as checked */
} AdviceRestoreCounts;

typedef struct AdviceDatabaseSeen
{
	Oid			dbid;			/* hash key */
	bool		exists;
} AdviceDatabaseSeen;

/* State of one write of the file. */
typedef struct AdviceWriter
{
	FILE	   *file;
	pg_crc32c	crc;
	uint32		count;
} AdviceWriter;

/* Shared memory only to know whether this is its first initialisation. */
typedef struct AdvicePersistShared
{
	bool		restored;
} AdvicePersistShared;

static void
advice_header(AdviceFileHeader *h)
{
	memset(h, 0, sizeof(*h));
	h->magic = ADVICE_FILE_MAGIC;
	h->format = ADVICE_FILE_FORMAT;
	h->pg_major = PG_VERSION_NUM / 100;
	strlcpy(h->library, SFCACHE_VERSION, sizeof(h->library));
	for (int kind = 0; kind < ADVICE_RECORD_KINDS; kind++)
		h->entry_size[kind] = AdviceStoreEntrySize(kind);
}

/* Write len bytes and add them to the CRC; false on error (errno set). */
static bool
advice_write(AdviceWriter *w, const void *data, size_t len)
{
	COMP_CRC32C(w->crc, data, len);
	return fwrite(data, 1, len, w->file) == len;
}

/*
 * A statement's entry holds its text with its constants (re-planning needs
 * them): it is written only if sfcache.literal_texts allows the data on disk.
 */
static bool
advice_write_entry(AdviceRecordKind kind, const void *entry, void *arg)
{
	AdviceWriter *w = arg;
	uint8		k = kind;

	if (kind == ADVICE_RECORD_STATEMENTS && !sfc_literal_texts)
		return true;
	w->count++;
	return advice_write(w, &k, 1) &&
		advice_write(w, entry, AdviceStoreEntrySize(kind));
}

/* The header, every entry, the trailer; false on error (errno set). */
static bool
advice_write_all(AdviceWriter *w)
{
	AdviceFileHeader h;
	uint8		end = ADVICE_FILE_END;

	advice_header(&h);
	INIT_CRC32C(w->crc);
	if (!advice_write(w, &h, sizeof(h)) ||
		!AdviceStoreForEach(advice_write_entry, w) ||
		!advice_write(w, &end, 1) ||
		!advice_write(w, &w->count, sizeof(w->count)))
		return false;
	FIN_CRC32C(w->crc);
	return fwrite(&w->crc, sizeof(w->crc), 1, w->file) == 1;
}

/*
 * Did the server shut down cleanly: does the control file say so (the
 * shutdown checkpoint completed)? An immediate shutdown leaves it "in
 * production". Any error reading it counts as no.
 */
static bool
advice_shut_down_cleanly(void)
{
	volatile bool clean = false;

	PG_TRY();
	{
		bool		crc_ok;
		ControlFileData *control = get_controlfile(DataDir, &crc_ok);

		clean = crc_ok && (control->state == DB_SHUTDOWNED ||
						   control->state == DB_SHUTDOWNED_IN_RECOVERY);
		pfree(control);
	}
	PG_CATCH();
	{
		FlushErrorState();
	}
	PG_END_TRY();
	return clean;
}

/*
 * on_shmem_exit of the postmaster: write the record, unless the server is
 * exiting after a crash (code != 0) or an immediate shutdown.
 */
static void
advice_persist_shutdown(int code, Datum arg)
{
	AdviceWriter w = {0};

	if (code != 0 || !advice_shut_down_cleanly())
		return;
	if ((w.file = AllocateFile(ADVICE_FILE_TMP, PG_BINARY_W)) == NULL ||
		!advice_write_all(&w) || FreeFile(w.file) != 0)
	{
		int			save_errno = errno;

		if (w.file != NULL)
			FreeFile(w.file);
		errno = save_errno;
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", ADVICE_FILE_TMP),
				 errdetail("The index advice recorded since the server started is lost.")));
		unlink(ADVICE_FILE_TMP);
		return;
	}
	/* nothing recorded (every database dropped the extension): no file */
	if (w.count == 0)
	{
		unlink(ADVICE_FILE_TMP);
		return;
	}
	(void) durable_rename(ADVICE_FILE_TMP, ADVICE_FILE, LOG);
}

/* LOG that the file is ignored, and why. */
static void
advice_ignore(const char *why)
{
	ereport(LOG,
			(errmsg("ignoring index advice file \"%s\"", ADVICE_FILE),
			 errdetail("%s", why),
			 errhint("The index advice starts empty.")));
}

/*
 * Check the header, the trailer and the CRC of a file read into data; NULL
 * if they are right, else why not.
 */
static const char *
advice_file_problem(const char *data, size_t len)
{
	AdviceFileHeader want;
	AdviceFileHeader got;
	pg_crc32c	crc;

	if (len < sizeof(AdviceFileHeader) + 1 + sizeof(uint32) + sizeof(pg_crc32c))
		return "The file is truncated.";
	advice_header(&want);
	memcpy(&got, data, sizeof(got));
	if (got.magic != want.magic)
		return "The file does not start with the magic number of sfcache's index advice.";
	if (got.format < ADVICE_FILE_FORMAT_MIN || got.format > want.format ||
		got.pg_major != want.pg_major ||
		memcmp(got.library, want.library, sizeof(got.library)) != 0 ||
		memcmp(got.entry_size, want.entry_size, sizeof(got.entry_size)) != 0)
		return psprintf("The file was written by sfcache %.15s (file format %u) on PostgreSQL major version %u; this is sfcache %s (file format %u) on %u.",
						got.library, got.format, got.pg_major,
						SFCACHE_VERSION, want.format, want.pg_major);
	INIT_CRC32C(crc);
	COMP_CRC32C(crc, data, len - sizeof(pg_crc32c));
	FIN_CRC32C(crc);
	if (memcmp(&crc, data + len - sizeof(pg_crc32c), sizeof(crc)) != 0)
		return "Its checksum does not match its contents: the file is corrupt.";
	return NULL;
}

static bool
advice_path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Has database dbid a directory, in pg_default or any other tablespace? */
static bool
advice_database_dir_exists(Oid dbid)
{
	char	   *path = GetDatabasePath(dbid, DEFAULTTABLESPACE_OID);
	bool		exists = advice_path_exists(path);
	DIR		   *dir;
	struct dirent *de;

	pfree(path);
	if (exists || (dir = AllocateDir("pg_tblspc")) == NULL)
		return exists;
	while (!exists && (de = ReadDir(dir, "pg_tblspc")) != NULL)
	{
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		path = psprintf("pg_tblspc/%s/%s/%u", de->d_name,
						TABLESPACE_VERSION_DIRECTORY, dbid);
		exists = advice_path_exists(path);
		pfree(path);
	}
	FreeDir(dir);
	return exists;
}

/* Does the database of a saved entry still exist?  Checked once per dbid. */
static bool
advice_database_exists(AdviceRestoreCounts *c, const void *saved)
{
	Oid			dbid = AdviceStoreEntryDatabase(saved);
	AdviceDatabaseSeen *seen;
	bool		found;

	if (c->databases == NULL)
	{
		HASHCTL		info;

		info.keysize = sizeof(Oid);
		info.entrysize = sizeof(AdviceDatabaseSeen);
		c->databases = hash_create("sfcache advice databases", 16, &info,
								   HASH_ELEM | HASH_BLOBS);
	}
	seen = hash_search(c->databases, &dbid, HASH_ENTER, &found);
	if (!found)
		seen->exists = advice_database_dir_exists(dbid);
	return seen->exists;
}

/* Put back one saved entry of a checked file, unless its database is gone. */
static void
advice_restore_entry(AdviceRestoreCounts *c, AdviceRecordKind kind,
					 const void *saved)
{
	if (!advice_database_exists(c, saved))
		c->discarded++;
	else if (AdviceStoreRestore(kind, saved))
		c->restored[kind]++;
}

/*
 * Walk the entries of a checked file; NULL if its structure is right, else
 * why not. Restores (and counts in *c) only when c is not NULL.
 */
static const char *
advice_file_entries(const char *data, size_t len, AdviceRestoreCounts *c)
{
	size_t		pos = sizeof(AdviceFileHeader);
	size_t		end = len - sizeof(pg_crc32c);
	uint32		total = 0;
	uint32		trailer;

	while (pos < end && (uint8) data[pos] != ADVICE_FILE_END)
	{
		uint8		kind = data[pos++];

		if (kind >= ADVICE_RECORD_KINDS ||
			end - pos < AdviceStoreEntrySize(kind))
			return "An entry is of an unknown kind or truncated: the file is corrupt.";
		if (c != NULL)
			advice_restore_entry(c, kind, data + pos);
		pos += AdviceStoreEntrySize(kind);
		total++;
	}
	if (end - pos != 1 + sizeof(uint32))
		return "The file does not end where its trailer says: the file is corrupt.";
	memcpy(&trailer, data + pos + 1, sizeof(trailer));
	if (trailer != total)
		return "The number of entries does not match the trailer: the file is corrupt.";
	return NULL;
}

/* Read the whole file into palloc'd memory; NULL if absent or unreadable. */
static char *
advice_read_file(size_t *len)
{
	FILE	   *file = AllocateFile(ADVICE_FILE, PG_BINARY_R);
	StringInfoData buf;
	char		chunk[8192];
	size_t		n;

	if (file == NULL)
	{
		if (errno != ENOENT)
			ereport(LOG,
					(errcode_for_file_access(),
					 errmsg("could not read file \"%s\": %m", ADVICE_FILE)));
		return NULL;
	}
	initStringInfo(&buf);
	while ((n = fread(chunk, 1, sizeof(chunk), file)) > 0)
		appendBinaryStringInfo(&buf, chunk, n);
	if (ferror(file))
	{
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("could not read file \"%s\": %m", ADVICE_FILE)));
		FreeFile(file);
		pfree(buf.data);
		return NULL;
	}
	FreeFile(file);
	*len = buf.len;
	return buf.data;
}

static void
advice_log_restored(const AdviceRestoreCounts *c)
{
	if (c->discarded == 0)
		ereport(LOG,
				(errmsg("restored the index advice from file \"%s\"", ADVICE_FILE),
				 errdetail("Quals: %u, statements: %u, tables: %u.",
						   c->restored[ADVICE_RECORD_QUALS],
						   c->restored[ADVICE_RECORD_STATEMENTS],
						   c->restored[ADVICE_RECORD_TABLES])));
	else
		ereport(LOG,
				(errmsg("restored the index advice from file \"%s\"", ADVICE_FILE),
				 errdetail("Quals: %u, statements: %u, tables: %u; %u entries of databases that no longer exist were discarded.",
						   c->restored[ADVICE_RECORD_QUALS],
						   c->restored[ADVICE_RECORD_STATEMENTS],
						   c->restored[ADVICE_RECORD_TABLES],
						   c->discarded)));
}

/*
 * Read the file into the (empty) record, then remove it. All or nothing:
 * its structure is checked before anything is restored.
 */
static void
advice_restore(void)
{
	size_t		len;
	char	   *data = advice_read_file(&len);
	AdviceRestoreCounts c = {{0}};
	const char *problem;

	if (data == NULL)
		return;
	if ((problem = advice_file_problem(data, len)) != NULL ||
		(problem = advice_file_entries(data, len, NULL)) != NULL)
		advice_ignore(problem);
	else
	{
		(void) advice_file_entries(data, len, &c);
		advice_log_restored(&c);
	}
	if (c.databases != NULL)
		hash_destroy(c.databases);
	pfree(data);
	/* A new file is written at the next clean shutdown. */
	unlink(ADVICE_FILE);
}

static Size
advice_persist_size(void)
{
	return sizeof(AdvicePersistShared);
}

/*
 * From shmem_startup_hook, after the record's part, caller holding
 * AddinShmemInitLock. The postmaster registers the write at its exit; the
 * record is read when shared memory is first created (at a crash restart
 * the file is gone).
 */
static void
advice_persist_init(void)
{
	bool		found;
	AdvicePersistShared *shared = ShmemInitStruct("sfcache advice file",
												  sizeof(AdvicePersistShared),
												  &found);

	if (!IsUnderPostmaster)
		on_shmem_exit(advice_persist_shutdown, (Datum) 0);
	if (found)
		return;
	shared->restored = true;
	advice_restore();
}

const SfcShmemPart AdvicePersistShmemPart = {
	NULL, 0, advice_persist_size, advice_persist_init
};
