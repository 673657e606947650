/*-------------------------------------------------------------------------
 *
 * bus_msg.c
 *		Owns the wire format of the bus's messages: one line of
 *		space-separated fields, versioned by its first word.
 *
 *	sfc1 <node> <incarnation> <sysid> <p|s> <seq> <watermark> <highest>
 *		 <kind> <dbid> <lsn> <relid,relid,...|->
 *
 * node is sfcache.node_name (no spaces: its check hook), incarnation the
 * time the sender's worker connected (each connection starts its sequence
 * again), sysid its system identifier (relation OIDs name the
 * same relations only between nodes that share it), p or s whether it is
 * a primary, seq its sequence number (a heartbeat repeats the last one),
 * watermark and highest the WAL positions bus_shmem.c and bus_receive.c
 * describe, kind R (relations of database dbid), D (everything of
 * database dbid), F (everything the sender could have touched) or H
 * (heartbeat), and lsn the end of the commit record. LSNs and the sysid
 * are hexadecimal.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"

#include "bus/bus_internal.h"

/* The message as a palloc'd string. */
char *
BusMsgFormat(const BusMsg *msg)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "sfc1 %s " INT64_FORMAT " %llX %c " UINT64_FORMAT
					 " %X/%X %X/%X %c %u %X/%X ",
					 msg->node, msg->incarnation, (unsigned long long) msg->sysid,
					 msg->primary ? 'p' : 's', msg->seq,
					 LSN_FORMAT_ARGS(msg->watermark), LSN_FORMAT_ARGS(msg->highest_lsn),
					 (char) msg->kind, msg->dbid, LSN_FORMAT_ARGS(msg->lsn));
	for (int i = 0; i < msg->nrelids; i++)
		appendStringInfo(&buf, "%s%u", i ? "," : "", msg->relids[i]);
	if (msg->nrelids == 0)
		appendStringInfoChar(&buf, '-');
	return buf.data;
}

static bool
parse_lsn(const char *s, XLogRecPtr *out)
{
	uint32		hi,
				lo;
	int			used;

	if (sscanf(s, "%X/%X%n", &hi, &lo, &used) != 2 || s[used] != '\0')
		return false;
	*out = ((uint64) hi << 32) | lo;
	return true;
}

static bool
parse_u64(const char *s, int base, uint64 *out)
{
	char	   *end;

	errno = 0;
	*out = strtou64(s, &end, base);
	return errno == 0 && end != s && *end == '\0';
}

static bool
parse_relids(char *s, BusMsg *msg)
{
	char	   *save;

	msg->nrelids = 0;
	if (strcmp(s, "-") == 0)
		return true;
	for (char *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
	{
		uint64		relid;

		if (msg->nrelids >= BUS_MAX_RELS || !parse_u64(tok, 10, &relid) ||
			relid > PG_UINT32_MAX)
			return false;
		msg->relids[msg->nrelids++] = (Oid) relid;
	}
	return true;
}

/* Parse text (not NUL-terminated) into msg; false when malformed. */
bool
BusMsgParse(const char *text, size_t len, BusMsg *msg)
{
	char	   *copy = pnstrdup(text, len);
	char	   *field[12];
	char	   *save;
	int			n = 0;
	bool		ok;

	memset(msg, 0, sizeof(*msg));
	for (char *tok = strtok_r(copy, " ", &save); tok && n < 12; tok = strtok_r(NULL, " ", &save))
		field[n++] = tok;
	ok = n == 12 && strtok_r(NULL, " ", &save) == NULL &&
		strcmp(field[0], "sfc1") == 0 && strlen(field[1]) < BUS_NAME_LEN &&
		strlen(field[4]) == 1 && (field[4][0] == 'p' || field[4][0] == 's') &&
		strlen(field[8]) == 1 && strchr("RDFH", field[8][0]) != NULL;
	if (ok)
	{
		uint64		incarnation = 0;
		uint64		dbid = 0;

		strlcpy(msg->node, field[1], BUS_NAME_LEN);
		msg->primary = field[4][0] == 'p';
		msg->kind = (BusMsgKind) field[8][0];
		ok = parse_u64(field[2], 10, &incarnation) &&
			parse_u64(field[3], 16, &msg->sysid) &&
			parse_u64(field[5], 10, &msg->seq) &&
			parse_lsn(field[6], &msg->watermark) &&
			parse_lsn(field[7], &msg->highest_lsn) &&
			parse_u64(field[9], 10, &dbid) && dbid <= PG_UINT32_MAX &&
			parse_lsn(field[10], &msg->lsn) &&
			parse_relids(field[11], msg);
		msg->incarnation = (int64) incarnation;
		msg->dbid = (Oid) dbid;
	}
	pfree(copy);
	return ok;
}
