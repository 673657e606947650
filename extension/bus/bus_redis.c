/*-------------------------------------------------------------------------
 *
 * bus_redis.c
 *		Owns the worker's two hiredis connections to Redis: one for commands
 *		(PUBLISH, or a script raising a primary's late-joiner hash and then
 *		publishing; SET ... EX, EXISTS, DEL), blocking with a one-second timeout so
 *		that a stopped Redis costs the worker a second, never a backend
 *		anything; one subscribed to the channel, read only when its socket
 *		is readable (the worker waits on it with its latch).
 *
 * Only the worker process calls these, but BusRedisOpen, which opens one
 * connection for a backend's shared result tier (bus_results.c). Error
 * texts are copied into the caller's buffer (BUS_ERROR_LEN); they never
 * contain the password, which only AUTH sends.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/time.h>

#include <hiredis/hiredis.h>

#include "storage/fd.h"

#include "bus/bus_internal.h"

static redisContext * cmd_ctx = NULL;
static redisContext * open_one_timeout(const BusUrl *url, int timeout_ms, char *error);
static redisContext * sub_ctx = NULL;
static char cmd_run_id[BUS_RUN_ID_LEN]; /* of the Redis cmd_ctx talks to */
#define BUS_SHA_LEN 41			/* a script's SHA1 in hex, and a NUL */
#define LSN_TEXT_LEN 17			/* an LSN as the script compares it */
#define FIELD_TEXT_LEN 12		/* a counter's number */

static char raise_sha[BUS_SHA_LEN]; /* raise_script's, loaded on cmd_ctx */

/*
 * A primary's late-joiner hash (doc/DESIGN.md, "Late joiners"), raised and
 * then, in the same script, the message published: KEYS[1] the hash;
 * ARGV: channel ('' to publish nothing: the connection's step), payload,
 * run id, floor, k, w ('' for none), the LSN of the counter fields that
 * follow. LSNs are 16 hex digits, compared by halves (Lua's numbers are
 * doubles, its string order the locale's). An absent hash, or a
 * connection, sets r and raises k to the floor: every commit whose raise
 * a lost hash took, or made off the bus, ends before it. A key of another
 * type, or a field that is no LSN, is replaced rather than failing every
 * message (replacing only refuses more: k is raised past it).
 */
static const char raise_script[] =
"local h = KEYS[1]\n"
"local t = redis.call('TYPE', h).ok\n"
"if t ~= 'hash' and t ~= 'none' then redis.call('DEL', h) end\n"
"local function gt(a, b)\n"
"  local ah, bh = tonumber(string.sub(a, 1, 8), 16), tonumber(string.sub(b, 1, 8), 16)\n"
"  if ah ~= bh then return ah > bh end\n"
"  return tonumber(string.sub(a, 9), 16) > tonumber(string.sub(b, 9), 16)\n"
"end\n"
"local function raise(f, v)\n"
"  local old = redis.call('HGET', h, f)\n"
"  if not old or not string.match(old, '^' .. string.rep('%x', 16) .. '$') or gt(v, old) then\n"
"    redis.call('HSET', h, f, v)\n"
"  end\n"
"end\n"
"if ARGV[1] == '' or not redis.call('HGET', h, 'k') then\n"
"  redis.call('HSET', h, 'r', ARGV[3])\n"
"  raise('k', ARGV[4])\n"
"end\n"
"if ARGV[5] ~= '' then raise('k', ARGV[5]) end\n"
"if ARGV[6] ~= '' then raise('w', ARGV[6]) end\n"
"for i = 8, #ARGV do raise(ARGV[i], ARGV[7]) end\n"
"if ARGV[1] ~= '' then return redis.call('PUBLISH', ARGV[1], ARGV[2]) end\n"
"return 0\n";

#define BUS_REDIS_TIMEOUT_MS 1000

static void
set_error(char *error, const char *what, redisContext * ctx, redisReply * reply)
{
	if (reply != NULL && reply->type == REDIS_REPLY_ERROR)
		snprintf(error, BUS_ERROR_LEN, "%s: %s", what, reply->str);
	else if (ctx != NULL && ctx->err)
		snprintf(error, BUS_ERROR_LEN, "%s: %s", what, ctx->errstr);
	else
		snprintf(error, BUS_ERROR_LEN, "%s: unexpected reply", what);
}

static redisContext *
open_one(const BusUrl *url, char *error)
{
	return open_one_timeout(url, BUS_REDIS_TIMEOUT_MS, error);
}

static redisContext *
open_one_timeout(const BusUrl *url, int timeout_ms, char *error)
{
	struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
	redisContext *ctx;
	redisReply *reply = NULL;

	ctx = url->path ? redisConnectUnixWithTimeout(url->path, tv)
		: redisConnectWithTimeout(url->host, url->port, tv);
	if (ctx == NULL || ctx->err)
	{
		set_error(error, "connect", ctx, NULL);
		goto fail;
	}
	redisSetTimeout(ctx, tv);
	if (url->password)
	{
		reply = url->user
			? redisCommand(ctx, "AUTH %s %s", url->user, url->password)
			: redisCommand(ctx, "AUTH %s", url->password);
		if (reply == NULL || reply->type == REDIS_REPLY_ERROR)
		{
			set_error(error, "AUTH", ctx, reply);
			goto fail;
		}
		freeReplyObject(reply);
	}
	if (url->db != 0)
	{
		reply = redisCommand(ctx, "SELECT %d", url->db);
		if (reply == NULL || reply->type == REDIS_REPLY_ERROR)
		{
			set_error(error, "SELECT", ctx, reply);
			goto fail;
		}
		freeReplyObject(reply);
	}
	return ctx;

fail:
	if (reply)
		freeReplyObject(reply);
	if (ctx)
		redisFree(ctx);
	return NULL;
}

static void
free_url(BusUrl *url)
{
	free(url->host);
	free(url->path);
	free(url->user);
	free(url->password);
}

/* The password from sfcache.redis_password_file (first line), malloc'd. */
static bool
read_password_file(BusUrl *url, char *error)
{
	FILE	   *f;
	char		line[1024];

	if (url->password != NULL || bus_redis_password_file == NULL ||
		bus_redis_password_file[0] == '\0')
		return true;
	f = AllocateFile(bus_redis_password_file, "r");
	if (f == NULL)
	{
		snprintf(error, BUS_ERROR_LEN, "could not open sfcache.redis_password_file \"%s\": %m",
				 bus_redis_password_file);
		return false;
	}
	if (fgets(line, sizeof(line), f) == NULL)
		line[0] = '\0';
	FreeFile(f);
	line[strcspn(line, "\r\n")] = '\0';
	url->password = strdup(line);
	return url->password != NULL;
}

/*
 * The run id of the Redis ctx talks to (INFO server), into out
 * (BUS_RUN_ID_LEN); false with error set. A restarted Redis, or another
 * one, has another.
 */
bool
BusRedisRunId(redisContext * ctx, char *out, char *error)
{
	redisReply *reply = redisCommand(ctx, "INFO server");
	const char *at;
	size_t		len;

	if (reply == NULL || reply->type != REDIS_REPLY_STRING)
	{
		set_error(error, "INFO", ctx, reply);
		if (reply)
			freeReplyObject(reply);
		return false;
	}
	at = strstr(reply->str, "run_id:");
	len = at ? strcspn(at + 7, "\r\n") : 0;
	if (len == 0 || len >= BUS_RUN_ID_LEN)
	{
		snprintf(error, BUS_ERROR_LEN, "INFO: no run_id");
		freeReplyObject(reply);
		return false;
	}
	memcpy(out, at + 7, len);
	out[len] = '\0';
	freeReplyObject(reply);
	return true;
}

/*
 * The command connection's Redis: its run id, and the raise script loaded
 * (only for a node with the shared tier on: a Redis user without the right
 * to run scripts keeps its bus otherwise).
 */
bool
BusRedisPrepareRaise(char *error)
{
	redisReply *reply;
	bool		ok;

	if (!BusRedisRunId(cmd_ctx, cmd_run_id, error))
		return false;
	reply = redisCommand(cmd_ctx, "SCRIPT LOAD %s", raise_script);
	ok = reply != NULL && reply->type == REDIS_REPLY_STRING &&
		reply->len < sizeof(raise_sha);
	if (ok)
		strlcpy(raise_sha, reply->str, sizeof(raise_sha));
	else
		set_error(error, "SCRIPT LOAD", cmd_ctx, reply);
	if (reply)
		freeReplyObject(reply);
	return ok;
}

/* Open both connections and subscribe to channel; false with error set. */
bool
BusRedisConnect(const char *url_text, const char *channel, char *error)
{
	BusUrl		url;
	const char *why;
	redisReply *reply = NULL;
	bool		ok = false;

	BusRedisDisconnect();
	if (!BusUrlParse(url_text, &url, &why))
	{
		snprintf(error, BUS_ERROR_LEN, "invalid sfcache.redis_url: %s", why);
		free_url(&url);
		return false;
	}
	if (!read_password_file(&url, error))
	{
		free_url(&url);
		return false;
	}
	cmd_ctx = open_one(&url, error);
	sub_ctx = cmd_ctx ? open_one(&url, error) : NULL;
	free_url(&url);
	if (sub_ctx != NULL)
	{
		reply = redisCommand(sub_ctx, "SUBSCRIBE %s", channel);
		ok = reply != NULL && reply->type == REDIS_REPLY_ARRAY;
		if (!ok)
			set_error(error, "SUBSCRIBE", sub_ctx, reply);
		if (reply)
			freeReplyObject(reply);
	}
	if (!ok)
		BusRedisDisconnect();
	return ok;
}

/*
 * One connection to url (the password file read as the worker does),
 * connecting and answering each command within timeout_ms; NULL with
 * error set.
 */
redisContext *
BusRedisOpen(const char *url_text, int timeout_ms, char *error)
{
	BusUrl		url;
	const char *why;
	redisContext *ctx = NULL;

	if (!BusUrlParse(url_text, &url, &why))
		snprintf(error, BUS_ERROR_LEN, "invalid sfcache.redis_url: %s", why);
	else if (read_password_file(&url, error))
		ctx = open_one_timeout(&url, timeout_ms, error);
	free_url(&url);
	return ctx;
}

void
BusRedisDisconnect(void)
{
	if (cmd_ctx)
		redisFree(cmd_ctx);
	if (sub_ctx)
		redisFree(sub_ctx);
	cmd_ctx = sub_ctx = NULL;
}

bool
BusRedisConnected(void)
{
	return cmd_ctx != NULL && sub_ctx != NULL;
}

int
BusRedisSubscriberSocket(void)
{
	return sub_ctx ? sub_ctx->fd : PGINVALID_SOCKET;
}

/* Run a command whose reply must not be an error; the reply or NULL. */
static redisReply *
command(char *error, const char *what, int argc, const char **argv)
{
	redisReply *reply;

	if (cmd_ctx == NULL)
	{
		snprintf(error, BUS_ERROR_LEN, "%s: not connected", what);
		return NULL;
	}
	reply = redisCommandArgv(cmd_ctx, argc, argv, NULL);
	if (reply == NULL || reply->type == REDIS_REPLY_ERROR)
	{
		set_error(error, what, cmd_ctx, reply);
		if (reply)
			freeReplyObject(reply);
		return NULL;
	}
	return reply;
}

bool
BusRedisPublish(const char *channel, const char *payload, char *error)
{
	const char *argv[] = {"PUBLISH", channel, payload};
	redisReply *reply = command(error, "PUBLISH", 3, argv);

	if (reply)
		freeReplyObject(reply);
	return reply != NULL;
}

/* Format an LSN as the raise script compares it. */
static void
lsn_text(char *out, XLogRecPtr lsn)
{
	if (lsn == InvalidXLogRecPtr)
		out[0] = '\0';
	else
		snprintf(out, LSN_TEXT_LEN, "%08X%08X", LSN_FORMAT_ARGS(lsn));
}

/*
 * Raise the late joiners' hash as raise says, then, in the same script
 * (channel not NULL), publish payload: the raise never lands after the
 * message, nor is one lost while the other goes out.
 */
bool
BusRedisRaiseAndPublish(const char *hash, const BusRaise *raise,
						const char *channel, const char *payload, char *error)
{
	char		floor[LSN_TEXT_LEN],
				k[LSN_TEXT_LEN],
				w[LSN_TEXT_LEN],
				lsn[LSN_TEXT_LEN];
	char		fields[BUS_MAX_RAISE][FIELD_TEXT_LEN];
	const char *argv[11 + BUS_MAX_RAISE];
	int			argc = 0;
	redisReply *reply;

	Assert(raise->nfields <= BUS_MAX_RAISE);
	lsn_text(floor, raise->floor);
	lsn_text(k, raise->known_from);
	lsn_text(w, raise->watermark);
	lsn_text(lsn, raise->lsn);
	argv[argc++] = "EVALSHA";
	argv[argc++] = raise_sha;
	argv[argc++] = "1";
	argv[argc++] = hash;
	argv[argc++] = channel ? channel : "";
	argv[argc++] = payload ? payload : "";
	argv[argc++] = cmd_run_id;
	argv[argc++] = floor;
	argv[argc++] = k;
	argv[argc++] = w;
	argv[argc++] = lsn;
	for (int i = 0; i < raise->nfields; i++)
	{
		snprintf(fields[i], sizeof(fields[i]), "%u", raise->fields[i]);
		argv[argc++] = fields[i];
	}
	reply = command(error, "EVALSHA", argc, argv);
	if (reply == NULL && strstr(error, "NOSCRIPT") != NULL)
	{
		/* the scripts were flushed since we connected: send it whole */
		argv[0] = "EVAL";
		argv[1] = raise_script;
		reply = command(error, "EVAL", argc, argv);
	}
	if (reply)
		freeReplyObject(reply);
	return reply != NULL;
}

/* Delete key (the late joiners' hash of a primary that stopped raising it). */
bool
BusRedisDelete(const char *key, char *error)
{
	const char *argv[] = {"DEL", key};
	redisReply *reply = command(error, "DEL", 2, argv);

	if (reply)
		freeReplyObject(reply);
	return reply != NULL;
}

bool
BusRedisSetLiveness(const char *key, const char *value, int ttl_s, char *error)
{
	char		ttl[16];
	const char *argv[] = {"SET", key, value, "EX", ttl};
	redisReply *reply;

	snprintf(ttl, sizeof(ttl), "%d", ttl_s);
	reply = command(error, "SET", 5, argv);
	if (reply)
		freeReplyObject(reply);
	return reply != NULL;
}

/* 1 if key exists, 0 if not, -1 on error. */
int
BusRedisExists(const char *key, char *error)
{
	const char *argv[] = {"EXISTS", key};
	redisReply *reply = command(error, "EXISTS", 2, argv);
	int			result;

	if (reply == NULL)
		return -1;
	result = reply->type == REDIS_REPLY_INTEGER && reply->integer > 0;
	freeReplyObject(reply);
	return result;
}

/*
 * The subscriber socket is readable: read what arrived and hand each
 * message's payload to deliver. False (error set) when the connection broke.
 */
bool
BusRedisReadMessages(void (*deliver) (const char *payload, size_t len), char *error)
{
	void	   *r;

	if (sub_ctx == NULL || redisBufferRead(sub_ctx) != REDIS_OK)
	{
		set_error(error, "read", sub_ctx, NULL);
		return false;
	}
	for (;;)
	{
		redisReply *reply;

		if (redisGetReplyFromReader(sub_ctx, &r) != REDIS_OK)
		{
			set_error(error, "read", sub_ctx, NULL);
			return false;
		}
		if (r == NULL)
			return true;
		reply = (redisReply *) r;
		if (reply->type == REDIS_REPLY_ARRAY && reply->elements == 3 &&
			reply->element[0]->type == REDIS_REPLY_STRING &&
			strcmp(reply->element[0]->str, "message") == 0 &&
			reply->element[2]->type == REDIS_REPLY_STRING)
			deliver(reply->element[2]->str, reply->element[2]->len);
		freeReplyObject(reply);
	}
}
