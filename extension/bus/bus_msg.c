/*-------------------------------------------------------------------------
 *
 * bus_msg.c
 *		Owns the wire format of the bus's messages: one line of
 *		space-separated fields, versioned by its first word.
 *
 *	sfc1 <node> <incarnation> <sysid> <p|s> <seq> <watermark> <highest>
 *		 <kind> <dbid> <lsn> <relid,relid,...|->
 *	sfc2 <the same twelve fields> <relid,relid,...|-> <tag,tag,...|->
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
 * are hexadecimal. An R message whose commit wrote relations by captured
 * rows only is an sfc2: its thirteenth field lists those relations, whose
 * results drop only for the tags of the fourteenth, each
 * relid:column_hash:value_hash (hashes in hexadecimal). Every other
 * message is an sfc1, which a node of an older version reads too (it
 * counts an sfc2 as malformed; the gap that leaves in the sequence makes
 * it flush).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"

#include "bus/bus_internal.h"

static void
append_relids(StringInfo buf, int n, const Oid *relids)
{
	for (int i = 0; i < n; i++)
		appendStringInfo(buf, "%s%u", i ? "," : "", relids[i]);
	if (n == 0)
		appendStringInfoChar(buf, '-');
}

/* The message as a palloc'd string. */
char *
BusMsgFormat(const BusMsg *msg)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "sfc%d %s " INT64_FORMAT " %llX %c " UINT64_FORMAT
					 " %X/%X %X/%X %c %u %X/%X ",
					 msg->nrow_relids > 0 ? 2 : 1, msg->node, msg->incarnation, (unsigned long long) msg->sysid,
					 msg->primary ? 'p' : 's', msg->seq,
					 LSN_FORMAT_ARGS(msg->watermark), LSN_FORMAT_ARGS(msg->highest_lsn),
					 (char) msg->kind, msg->dbid, LSN_FORMAT_ARGS(msg->lsn));
	append_relids(&buf, msg->nrelids, msg->relids);
	if (msg->nrow_relids > 0)
	{
		appendStringInfoChar(&buf, ' ');
		append_relids(&buf, msg->nrow_relids, msg->row_relids);
		appendStringInfoChar(&buf, ' ');
		for (int i = 0; i < msg->ntags; i++)
			appendStringInfo(&buf, "%s%u:%X:%X", i ? "," : "", msg->tags[i].relid,
							 msg->tags[i].column_hash, msg->tags[i].value_hash);
		if (msg->ntags == 0)
			appendStringInfoChar(&buf, '-');
	}
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
parse_relids(char *s, int *n, Oid *relids)
{
	char	   *save;

	*n = 0;
	if (strcmp(s, "-") == 0)
		return true;
	for (char *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
	{
		uint64		relid;

		if (*n >= BUS_MAX_RELS || !parse_u64(tok, 10, &relid) ||
			relid > PG_UINT32_MAX)
			return false;
		relids[(*n)++] = (Oid) relid;
	}
	return true;
}

/* relid:column_hash:value_hash,... or - */
static bool
parse_tags(char *s, BusMsg *msg)
{
	char	   *save;

	msg->ntags = 0;
	if (strcmp(s, "-") == 0)
		return true;
	for (char *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
	{
		unsigned int relid;
		unsigned int column_hash;
		unsigned int value_hash;
		int			used;

		if (msg->ntags >= BUS_MAX_TAGS ||
			sscanf(tok, "%u:%X:%X%n", &relid, &column_hash, &value_hash, &used) != 3 ||
			tok[used] != '\0')
			return false;
		msg->tags[msg->ntags].relid = (Oid) relid;
		msg->tags[msg->ntags].column_hash = (uint32) column_hash;
		msg->tags[msg->ntags].value_hash = (uint32) value_hash;
		msg->ntags++;
	}
	return true;
}

/* Parse text (not NUL-terminated) into msg; false when malformed. */
bool
BusMsgParse(const char *text, size_t len, BusMsg *msg)
{
	char	   *copy = pnstrdup(text, len);
	char	   *field[14];
	char	   *save;
	int			n = 0;
	int			want;
	bool		ok;

	memset(msg, 0, sizeof(*msg));
	for (char *tok = strtok_r(copy, " ", &save); tok && n < 14; tok = strtok_r(NULL, " ", &save))
		field[n++] = tok;
	want = n > 0 && strcmp(field[0], "sfc2") == 0 ? 14 : 12;
	ok = n == want && strtok_r(NULL, " ", &save) == NULL &&
		(want == 14 || strcmp(field[0], "sfc1") == 0) &&
		strlen(field[1]) < BUS_NAME_LEN &&
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
			parse_relids(field[11], &msg->nrelids, msg->relids);
		if (ok && want == 14)
			ok = msg->kind == BUS_MSG_RELATIONS &&
				parse_relids(field[12], &msg->nrow_relids, msg->row_relids) &&
				msg->nrow_relids > 0 && parse_tags(field[13], msg);
		msg->incarnation = (int64) incarnation;
		msg->dbid = (Oid) dbid;
	}
	pfree(copy);
	return ok;
}
