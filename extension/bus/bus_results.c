/*-------------------------------------------------------------------------
 *
 * bus_results.c
 *		The Redis side of the shared result tier (sfcache.redis_results),
 *		registered with the cache (CacheRegisterSharedTier): each backend's
 *		own hiredis connection, opened when first needed, the names of
 *		entries and cross-node locks, and the four commands: GET, SET ... PX
 *		(the entry, with the statement's TTL), SET ... NX PX (the lock,
 *		with a token of this backend), a script that deletes the lock
 *		only while it still holds that token, and the HMGET of the changes
 *		a primary published for late joiners.
 *
 * What an entry holds and when it may be served is the cache's
 * (cache_shared.c, doc/DESIGN.md "The shared result tier"). Here: Redis
 * failing never fails a query. The connection connects and answers every
 * command within sfcache.redis_results_timeout; any error or timeout
 * closes it, is reported to the cache (which counts it and goes on as if
 * the tier were empty), logs at DEBUG1, and no new connection is tried
 * for a second. The cache calls these with no lock held.
 *
 * Names: sfc:<system identifier>:<timeline>:r:<key> for an entry, the same
 * with l: for its lock; nodes of another cluster or timeline never meet.
 * For a late joiner, the hash its primary's bus worker keeps
 * (sfc:...:c:<layout>, doc/DESIGN.md "Late joiners"): an HMGET, read only
 * for an entry older than this node's join, with the run id of the Redis
 * this connection reached (INFO, once per connection).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <hiredis/hiredis.h>

#include "miscadmin.h"
#include "utils/timestamp.h"

#include "bus/bus_internal.h"

#define RESULTS_RETRY_MS 1000	/* after a failure, no connection for this */
#define RESULTS_NAME_LEN 96
#define FIELD_TEXT_LEN 12		/* a counter's number, as a hash's field */

static redisContext * results_ctx = NULL;
static char results_run_id[BUS_RUN_ID_LEN]; /* of results_ctx's Redis, or "" */
static char *results_url = NULL;	/* what results_ctx was opened with */
static TimestampTz results_retry_at = 0;
static char lock_token[64];
static uint64 lock_count = 0;

static const char unlock_script[] =
"if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/* On, and not within a second of a failure (then the tier is not asked). */
static bool
results_enabled(void)
{
	return bus_redis_results && BusConfigured() &&
		(results_ctx != NULL || GetCurrentTimestamp() >= results_retry_at);
}

/* Close the connection after error, and try none for a while. */
static void
results_failed(const char *what, const char *error)
{
	elog(DEBUG1, "sfcache shared results: %s: %s", what, error);
	if (results_ctx != NULL)
		redisFree(results_ctx);
	results_ctx = NULL;
	results_run_id[0] = '\0';
	results_retry_at = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), RESULTS_RETRY_MS);
}

/* This backend's connection, opened now if need be; NULL after a failure. */
static redisContext *
connection(void)
{
	char		error[BUS_ERROR_LEN];

	if (results_ctx != NULL && results_url != NULL &&
		strcmp(results_url, bus_redis_url) == 0)
		return results_ctx;
	if (results_ctx != NULL)
		redisFree(results_ctx); /* sfcache.redis_url changed */
	results_ctx = NULL;
	results_run_id[0] = '\0';
	if (GetCurrentTimestamp() < results_retry_at)
		return NULL;
	free(results_url);
	results_url = strdup(bus_redis_url);
	results_ctx = results_url ? BusRedisOpen(results_url, bus_redis_results_timeout_ms, error)
		: NULL;
	if (results_ctx == NULL)
		results_failed("connect", results_url ? error : "out of memory");
	return results_ctx;
}

static void
format_name(char *buf, const CacheSharedName *name, char kind)
{
	snprintf(buf, RESULTS_NAME_LEN, "sfc:%016llx:%08x:%c:%016llx%016llx",
			 (unsigned long long) name->sysid, name->timeline, kind,
			 (unsigned long long) name->key_hi, (unsigned long long) name->key_lo);
}

/*
 * Run a command; the reply, or NULL after a failure (counted by the
 * caller through *error, the connection closed).
 */
static redisReply *
run(const char *what, int argc, const char **argv, const size_t *lens, bool *error)
{
	redisContext *ctx = connection();
	redisReply *reply;
	char		message[BUS_ERROR_LEN];

	*error = true;
	if (ctx == NULL)
		return NULL;
	reply = redisCommandArgv(ctx, argc, argv, lens);
	if (reply == NULL)
	{
		results_failed(what, ctx->errstr);
		return NULL;
	}
	if (reply->type == REDIS_REPLY_ERROR)
	{
		strlcpy(message, reply->str, sizeof(message));
		freeReplyObject(reply);
		results_failed(what, message);
		return NULL;
	}
	*error = false;
	return reply;
}

/* GET: the entry's bytes, palloc'd, or NULL (none, or *error). */
static char *
results_get(const CacheSharedName *name, Size *len, bool *error)
{
	char		key[RESULTS_NAME_LEN];
	const char *argv[] = {"GET", key};
	size_t		lens[2] = {3, 0};
	redisReply *reply;
	char	   *data = NULL;

	format_name(key, name, 'r');
	lens[1] = strlen(key);
	reply = run("GET", 2, argv, lens, error);
	if (reply == NULL)
		return NULL;
	if (reply->type == REDIS_REPLY_STRING)
	{
		*len = reply->len;
		data = palloc(Max(reply->len, 1));
		memcpy(data, reply->str, reply->len);
	}
	freeReplyObject(reply);
	return data;
}

/* SET ... PX: the entry, for ttl_ms. */
static bool
results_put(const CacheSharedName *name, const char *data, Size len, int ttl_ms)
{
	char		key[RESULTS_NAME_LEN];
	char		ttl[16];
	const char *argv[] = {"SET", key, data, "PX", ttl};
	size_t		lens[5] = {3, 0, len, 2, 0};
	redisReply *reply;
	bool		error;

	format_name(key, name, 'r');
	snprintf(ttl, sizeof(ttl), "%d", Max(ttl_ms, 1));
	lens[1] = strlen(key);
	lens[4] = strlen(ttl);
	reply = run("SET", 5, argv, lens, &error);
	if (reply != NULL)
		freeReplyObject(reply);
	return !error;
}

/* SET ... NX PX: the cross-node lock, with a new token of this backend. */
static CacheSharedLock
results_lock(const CacheSharedName *name, int expire_ms)
{
	char		key[RESULTS_NAME_LEN];
	char		ms[16];
	const char *argv[] = {"SET", key, lock_token, "NX", "PX", ms};
	size_t		lens[6] = {3, 0, 0, 2, 2, 0};
	redisReply *reply;
	bool		error;
	bool		ours;

	format_name(key, name, 'l');
	snprintf(ms, sizeof(ms), "%d", expire_ms);
	snprintf(lock_token, sizeof(lock_token), "%d:" INT64_FORMAT ":" UINT64_FORMAT,
			 MyProcPid, (int64) MyStartTimestamp, ++lock_count);
	lens[1] = strlen(key);
	lens[2] = strlen(lock_token);
	lens[5] = strlen(ms);
	reply = run("SET NX", 6, argv, lens, &error);
	if (reply == NULL)
		return CACHE_SHARED_LOCK_ERROR;
	ours = reply->type == REDIS_REPLY_STATUS && strcmp(reply->str, "OK") == 0;
	freeReplyObject(reply);
	return ours ? CACHE_SHARED_LOCK_OURS : CACHE_SHARED_LOCK_HELD;
}

/* Delete the lock if it still holds this backend's token (else it expired). */
static void
results_unlock(const CacheSharedName *name)
{
	char		key[RESULTS_NAME_LEN];
	const char *argv[] = {"EVAL", unlock_script, "1", key, lock_token};
	size_t		lens[5] = {4, sizeof(unlock_script) - 1, 1, 0, 0};
	redisReply *reply;
	bool		error;

	format_name(key, name, 'l');
	lens[3] = strlen(key);
	lens[4] = strlen(lock_token);
	reply = run("EVAL", 5, argv, lens, &error);
	if (reply != NULL)
		freeReplyObject(reply);
}

/* The late joiners' hash of a cluster's timeline, for this build's layout. */
void
BusChangesName(char *out, uint64 sysid, TimeLineID timeline)
{
	snprintf(out, BUS_CHANGES_NAME_LEN, "sfc:%016llx:%08x:c:%08x",
			 (unsigned long long) sysid, timeline, CacheSharedLayout());
}

/* An LSN field as the raise script writes it; false if malformed. */
static bool
parse_lsn(const redisReply * field, XLogRecPtr *lsn)
{
	char	   *end;

	if (field->type != REDIS_REPLY_STRING || field->len != 16)
		return false;
	errno = 0;
	*lsn = strtou64(field->str, &end, 16);
	return errno == 0 && end == field->str + 16;
}

/*
 * HMGET of k, r, w and the counters' fields: usable only if k is there
 * (the hash exists), r is the run id of the Redis we read it from (one
 * that restarted on older data has another), and every field parses.
 */
static bool
results_changes(const CacheSharedName *name, const uint32 *counters, int ncounters,
				CacheSharedChanges *changes, bool *error)
{
	char		key[BUS_CHANGES_NAME_LEN];
	char		(*fields)[FIELD_TEXT_LEN] = palloc(sizeof(*fields) * Max(ncounters, 1));
	const char **argv = palloc(sizeof(char *) * (5 + ncounters));
	char		message[BUS_ERROR_LEN];
	redisReply *reply;
	bool		usable;

	*error = false;
	if (results_run_id[0] == '\0')
	{
		if (connection() == NULL)
		{
			*error = true;
			return false;
		}
		if (!BusRedisRunId(results_ctx, results_run_id, message))
		{
			results_failed("INFO", message);
			*error = true;
			return false;
		}
	}
	BusChangesName(key, name->sysid, name->timeline);
	argv[0] = "HMGET";
	argv[1] = key;
	argv[2] = "k";
	argv[3] = "r";
	argv[4] = "w";
	for (int i = 0; i < ncounters; i++)
	{
		snprintf(fields[i], sizeof(fields[i]), "%u", counters[i]);
		argv[5 + i] = fields[i];
	}
	reply = run("HMGET", 5 + ncounters, argv, NULL, error);
	if (reply == NULL)
		return false;
	memset(changes, 0, sizeof(*changes));
	usable = reply->type == REDIS_REPLY_ARRAY && reply->elements == (size_t) (3 + ncounters) &&
		parse_lsn(reply->element[0], &changes->known_from) &&
		reply->element[1]->type == REDIS_REPLY_STRING &&
		strcmp(reply->element[1]->str, results_run_id) == 0 &&
		(reply->element[2]->type == REDIS_REPLY_NIL ||
		 parse_lsn(reply->element[2], &changes->watermark));
	for (size_t i = 3; usable && i < reply->elements; i++)
	{
		XLogRecPtr	lsn = InvalidXLogRecPtr;

		if (reply->element[i]->type == REDIS_REPLY_NIL)
			continue;			/* not changed since k */
		usable = parse_lsn(reply->element[i], &lsn);
		changes->changed_at = Max(changes->changed_at, lsn);
	}
	freeReplyObject(reply);
	pfree(fields);
	pfree(argv);
	return usable;
}

const CacheSharedTier BusSharedTier = {
	.enabled = results_enabled,
	.get = results_get,
	.put = results_put,
	.lock = results_lock,
	.unlock = results_unlock,
	.changes = results_changes,
};
