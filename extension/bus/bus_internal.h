/*-------------------------------------------------------------------------
 *
 * bus_internal.h
 *		What the files of extension/bus, the Redis invalidation bus, share:
 *		its settings, its shared memory (the commit queue, the peers, the
 *		standby's horizon), the wire format of its messages, the
 *		hiredis connections and the background worker that publishes and
 *		receives (doc/DESIGN.md, "The Redis bus").
 *
 * Files: bus_init.c (Init), bus_guc.c (settings), bus_url.c (redis URLs, masking),
 * bus_shmem.c (shared state, the committing backends' side), bus_msg.c
 * (messages), bus_receive.c (applying others' messages), bus_standby.c
 * (the hot standby's rule), bus_redis.c (hiredis), bus_results.c (the
 * shared result tier's Redis side, in backends), bus_worker.c (the
 * worker's loop), bus_sql.c (sfcache.bus, sfcache.bus_peers).
 *
 *-------------------------------------------------------------------------
 */
#ifndef SFCACHE_BUS_INTERNAL_H
#define SFCACHE_BUS_INTERNAL_H

#include "access/xlogdefs.h"
#include "datatype/timestamp.h"
#include "port/atomics.h"
#include "storage/latch.h"
#include "storage/lwlock.h"

#include "bus/bus.h"
#include "cache/cache.h"

#define BUS_NAME_LEN 64			/* node names */
#define BUS_MAX_RELS 32			/* more relations travel as "global" */
#define BUS_MAX_TAGS CACHE_MAX_COMMIT_TAGS	/* tags of one message */
#define BUS_QUEUE_LEN 1024		/* commits waiting for the worker */
#define BUS_MAX_PEERS 32		/* other nodes remembered */
#define BUS_ERROR_LEN 160
#define BUS_RUN_ID_LEN 64		/* a Redis run id (40 hex digits) */
/* counter fields one message raises: two per relation, one per tag */
#define BUS_MAX_RAISE (4 * BUS_MAX_RELS + BUS_MAX_TAGS)

/* ---- settings (bus_guc.c) ---- */

extern char *bus_redis_url_masked;	/* the GUC's own value */
extern char *bus_redis_url;		/* the real URL, password included */
extern char *bus_redis_channel;
extern char *bus_node_name;
extern char *bus_redis_password_file;
extern int	bus_heartbeat_ms;
extern int	bus_liveness_s;
extern bool bus_redis_results;
extern int	bus_redis_results_timeout_ms;

extern void BusGucInit(void);
extern bool BusConfigured(void);

/* ---- redis URLs (bus_url.c) ---- */

typedef struct BusUrl
{
	char	   *host;			/* NULL for a Unix socket */
	int			port;
	char	   *path;			/* Unix socket path, or NULL */
	char	   *user;			/* NULL: AUTH with the password alone */
	char	   *password;		/* NULL: no AUTH */
	int			db;
} BusUrl;

extern bool BusUrlParse(const char *url, BusUrl *out, const char **error);
extern char *BusUrlMask(const char *url);

/* ---- shared memory (bus_shmem.c) ---- */

/* The worker's link to Redis, as sfcache.bus shows it. */
typedef enum BusState
{
	BUS_NOT_CONFIGURED,
	BUS_CONNECTING,
	BUS_CONNECTED
} BusState;

/* One committed transaction waiting to be published. */
typedef struct BusQueueEntry
{
	Oid			dbid;
	bool		everything;
	int			nrelids;
	XLogRecPtr	lsn;
	Oid			relids[BUS_MAX_RELS];
	int			nrow_relids;	/* written by captured rows: tags below */
	Oid			row_relids[BUS_MAX_RELS];
	int			ntags;
	CacheTag	tags[BUS_MAX_TAGS];
} BusQueueEntry;

/* Another node, as its messages and its liveness key describe it. */
typedef struct BusPeer
{
	bool		used;
	char		name[BUS_NAME_LEN];
	int64		incarnation;	/* when it connected to Redis */
	uint64		sysid;			/* its system identifier */
	bool		primary;
	uint64		last_seq;
	XLogRecPtr	watermark;		/* its commits up to here were published */
	XLogRecPtr	highest_lsn;	/* its highest published commit LSN */
	TimestampTz last_heard;
	bool		alive;			/* its liveness key exists */
} BusPeer;

typedef enum BusCounter
{
	BUS_SENT,
	BUS_RECEIVED,
	BUS_OWN,					/* own messages, skipped */
	BUS_DROPPED,				/* commits not published (queue full, publish
								 * failed) */
	BUS_DUPLICATES,
	BUS_GAPS,
	BUS_FLUSHES,
	BUS_MALFORMED,
	BUS_NUM_COUNTERS
} BusCounter;

typedef struct BusShared
{
	LWLock	   *lock;			/* queue, peers, state, error */
	/* the queue: entries [tail, head) modulo BUS_QUEUE_LEN */
	uint64		head;
	uint64		tail;
	BusQueueEntry queue[BUS_QUEUE_LEN];
	pg_atomic_uint32 overflow;	/* a commit found the queue full */
	BusPeer		peers[BUS_MAX_PEERS];
	BusState	state;
	char		error[BUS_ERROR_LEN];	/* last connection error */
	char		node[BUS_NAME_LEN];
	TimestampTz state_since;
	Latch	   *worker_latch;
	int			worker_pid;
	pg_atomic_uint64 counters[BUS_NUM_COUNTERS];
	/* the hot standby's rule (bus_standby.c) */
	pg_atomic_uint32 usable;	/* connected to Redis */
	pg_atomic_uint64 horizon;	/* upstream watermark, 0 = none */
	/* committing backends' insert position, 0 = not committing */
	int			ncommitting;
	pg_atomic_uint64 committing[FLEXIBLE_ARRAY_MEMBER];
} BusShared;

extern BusShared *bus_shared;
extern const SfcShmemPart BusShmemPart;

extern void BusCommitCallback(CacheCommitPhase phase, const CacheCommitInfo *info);
extern int	BusQueueTake(BusQueueEntry *out, int max);
extern XLogRecPtr BusWatermark(void);
extern void BusCount(BusCounter counter);
extern void BusSetState(BusState state, const char *error);

/* ---- messages (bus_msg.c) ---- */

typedef enum BusMsgKind
{
	BUS_MSG_RELATIONS = 'R',	/* these relations of a database */
	BUS_MSG_DATABASE = 'D',		/* everything (a global invalidation) */
	BUS_MSG_FLUSH = 'F',		/* everything the sender could have touched */
	BUS_MSG_HEARTBEAT = 'H'		/* nothing: sequence and watermark only */
} BusMsgKind;

typedef struct BusMsg
{
	char		node[BUS_NAME_LEN];
	int64		incarnation;
	uint64		sysid;
	bool		primary;
	uint64		seq;			/* heartbeats repeat the last one sent */
	XLogRecPtr	watermark;
	XLogRecPtr	highest_lsn;
	BusMsgKind	kind;
	Oid			dbid;
	XLogRecPtr	lsn;
	int			nrelids;
	Oid			relids[BUS_MAX_RELS];
	int			nrow_relids;	/* R: written by captured rows, with tags */
	Oid			row_relids[BUS_MAX_RELS];
	int			ntags;
	CacheTag	tags[BUS_MAX_TAGS];
} BusMsg;

extern char *BusMsgFormat(const BusMsg *msg);
extern bool BusMsgParse(const char *text, size_t len, BusMsg *msg);

/* ---- receiving (bus_receive.c) ---- */

extern void BusReceive(const BusMsg *msg);
extern void BusFlushAll(XLogRecPtr replay_needed);
extern void BusFlushJoin(XLogRecPtr replay_needed);
extern void BusForgetPeers(void);
extern void BusRecomputeHorizon(void);
extern void BusPeerLiveness(const char *name, bool alive);

/* ---- the hot standby's rule (bus_standby.c) ---- */

extern CacheBypass BusStandbyCheck(void);

/* ---- hiredis (bus_redis.c) ---- */

struct redisContext;

/*
 * What one script raises in a primary's late-joiner hash (doc/DESIGN.md,
 * "Late joiners"); InvalidXLogRecPtr: nothing.
 */
typedef struct BusRaise
{
	XLogRecPtr	floor;			/* k, if the hash must be created */
	XLogRecPtr	known_from;		/* raise k (a flush, a connection) */
	XLogRecPtr	watermark;		/* raise w (a heartbeat) */
	XLogRecPtr	lsn;			/* raise the fields to it (a commit) */
	int			nfields;
	uint32		fields[BUS_MAX_RAISE];
} BusRaise;

extern struct redisContext *BusRedisOpen(const char *url, int timeout_ms, char *error);
extern bool BusRedisConnect(const char *url, const char *channel, char *error);
extern void BusRedisDisconnect(void);
extern bool BusRedisConnected(void);
extern int	BusRedisSubscriberSocket(void);
extern bool BusRedisPublish(const char *channel, const char *payload, char *error);
extern bool BusRedisRunId(struct redisContext *ctx, char *out, char *error);
extern bool BusRedisPrepareRaise(char *error);
extern bool BusRedisRaiseAndPublish(const char *hash, const BusRaise *raise,
									const char *channel, const char *payload,
									char *error);
extern bool BusRedisDelete(const char *key, char *error);
extern bool BusRedisSetLiveness(const char *key, const char *value, int ttl_s,
								char *error);
extern int	BusRedisExists(const char *key, char *error);
extern bool BusRedisReadMessages(void (*deliver) (const char *payload, size_t len),
								 char *error);

/* ---- the shared result tier's Redis side (bus_results.c) ---- */

#define BUS_CHANGES_NAME_LEN 64

extern const CacheSharedTier BusSharedTier;
extern void BusChangesName(char *out, uint64 sysid, TimeLineID timeline);

/* ---- the worker (bus_worker.c) ---- */

extern void BusRegisterWorker(void);
extern PGDLLEXPORT void sfcache_bus_worker_0_3(Datum main_arg);

#endif							/* SFCACHE_BUS_INTERNAL_H */
