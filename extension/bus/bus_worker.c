/*-------------------------------------------------------------------------
 *
 * bus_worker.c
 *		Owns the bus's background worker (worker_spi's pattern, one per
 *		server, connected to no database): connecting to Redis with backoff,
 *		publishing the queued commits and heartbeats, refreshing this
 *		node's liveness key and checking the peers', and handing received
 *		messages to bus_receive.c. Logs once per change of state.
 *
 * On every (re)connection the node flushes its results (others may have
 * written while it was away), forgets its peers, so that each one's first
 * message flushes again, and starts a new incarnation, so that peers flush
 * for the commits it could not publish meanwhile. A standby serves nothing
 * until a primary's watermark arrives (bus_standby.c).
 *
 * A primary with the shared tier on also keeps the late joiners' hash
 * (doc/DESIGN.md, "Late joiners"): each message goes out through a script
 * that first raises what its receivers raise, and each connection raises
 * the hash's knowledge start past every commit made off the bus.
 *
 * A stopped or slow Redis blocks the worker for at most the command
 * timeout (bus_redis.c); committing backends never wait for it: they only
 * fill the queue (bus_shmem.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <unistd.h>

#include "access/xlog.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "postmaster/postmaster.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "bus/bus_internal.h"

#define BUS_BACKOFF_MIN_MS 100
#define BUS_BACKOFF_MAX_MS 2000
#define BUS_LIVENESS_EVERY_MS 1000
#define BUS_BATCH 64
#define BUS_IDLE_HEARTBEAT_MS 1000	/* when the watermark did not move */

/* The worker's own state. */
static int64 incarnation;		/* time of the current connection */
static uint64 seq = 0;
static XLogRecPtr highest_lsn = InvalidXLogRecPtr;
static char node[BUS_NAME_LEN];
static char config[1024];		/* URL, channel and node it connected with */
static char last_logged[BUS_ERROR_LEN];
static TimestampTz next_attempt = 0;
static int	backoff_ms = BUS_BACKOFF_MIN_MS;
static TimestampTz last_publish = 0;
static XLogRecPtr last_watermark = InvalidXLogRecPtr;	/* last one published */
static TimestampTz last_liveness = 0;
static bool hash_kept = false;	/* the tier was on at this connection */

void
BusRegisterWorker(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	/* a hot standby runs it too: from consistency on */
	worker.bgw_start_time = BgWorkerStart_ConsistentState;
	worker.bgw_restart_time = 1;
	strlcpy(worker.bgw_library_name, "sfcache", BGW_MAXLEN);
	strlcpy(worker.bgw_function_name, "sfcache_bus_worker_0_3", BGW_MAXLEN);
	strlcpy(worker.bgw_name, "sfcache bus", BGW_MAXLEN);
	strlcpy(worker.bgw_type, "sfcache bus", BGW_MAXLEN);
	RegisterBackgroundWorker(&worker);
}

/* sfcache.node_name, or host name and port. */
static void
choose_node_name(void)
{
	char		host[128];

	if (bus_node_name && bus_node_name[0])
		strlcpy(node, bus_node_name, BUS_NAME_LEN);
	else
	{
		if (gethostname(host, sizeof(host)) != 0)
			strlcpy(host, "localhost", sizeof(host));
		host[sizeof(host) - 1] = '\0';
		snprintf(node, BUS_NAME_LEN, "%s:%d", host, PostPortNumber);
	}
	LWLockAcquire(bus_shared->lock, LW_EXCLUSIVE);
	strlcpy(bus_shared->node, node, BUS_NAME_LEN);
	LWLockRelease(bus_shared->lock);
}

static void
current_config(char *out, size_t len)
{
	snprintf(out, len, "%s %s %s %s %d", bus_redis_url ? bus_redis_url : "",
			 bus_redis_channel, bus_node_name, bus_redis_password_file,
			 (int) bus_redis_results);
}

/*
 * Does this node keep the late joiners' hash (doc/DESIGN.md, "Late
 * joiners")? A primary whose shared tier was on when it connected: the
 * setting is part of the connection's config, so changing it reconnects
 * (and raises k, or deletes the hash).
 */
static bool
raising(void)
{
	return hash_kept && !RecoveryInProgress();
}

static void
changes_name(char *out)
{
	BusChangesName(out, GetSystemIdentifier(), GetWALInsertionTimeLine());
}

/* What the receivers of msg raise in their changed-at LSNs, for the hash. */
static void
raise_of(const BusMsg *msg, BusRaise *raise)
{
	memset(raise, 0, sizeof(*raise));
	raise->floor = GetXLogInsertRecPtr();
	switch (msg->kind)
	{
		case BUS_MSG_RELATIONS:
			raise->lsn = msg->lsn;
			raise->nfields = CacheCommitCounters(msg->dbid, msg->nrelids, msg->relids,
												 msg->nrow_relids, msg->row_relids,
												 msg->ntags, msg->tags, raise->fields,
												 BUS_MAX_RAISE);
			if (raise->nfields < 0)
			{
				/* cannot happen with the message's bounds; refuse more then */
				raise->nfields = 0;
				raise->known_from = msg->lsn;
			}
			break;
		case BUS_MSG_DATABASE:
		case BUS_MSG_FLUSH:
			/* the flush a receiver makes: every commit dropped ends before */
			raise->known_from = Max(msg->lsn, msg->highest_lsn);
			break;
		case BUS_MSG_HEARTBEAT:
			raise->watermark = msg->watermark;
			break;
	}
}

/*
 * A primary at each connection, before it publishes anything: with the
 * tier on, r to this Redis's run id and k past every commit it made while
 * off the bus (none raised a field); with it off, no hash at all (it
 * would go stale, its commits raising nothing).
 */
static bool
connect_changes(char *error)
{
	char		name[BUS_CHANGES_NAME_LEN];
	BusRaise	raise = {0};

	hash_kept = bus_redis_results;
	/* a standby loads the script too: it raises the hash once promoted */
	if (hash_kept && !BusRedisPrepareRaise(error))
		return false;
	if (RecoveryInProgress())
		return true;
	changes_name(name);
	if (!hash_kept)
		return BusRedisDelete(name, error);
	raise.floor = raise.known_from = GetXLogInsertRecPtr();
	return BusRedisRaiseAndPublish(name, &raise, NULL, NULL, error);
}

static void
disconnect(BusState state, const char *error)
{
	BusRedisDisconnect();
	BusSetState(state, error);
	BusRecomputeHorizon();
}

/* The connection broke: log it once, retry soon. */
static void
lost(const char *error)
{
	ereport(LOG,
			(errmsg("sfcache bus: lost the connection to Redis at \"%s\"", bus_redis_url_masked),
			 errdetail("%s", error)));
	strlcpy(last_logged, error, sizeof(last_logged));
	disconnect(BUS_CONNECTING, error);
	backoff_ms = BUS_BACKOFF_MIN_MS;
	next_attempt = GetCurrentTimestamp();
}

static bool
publish(BusMsg *msg, char *error)
{
	char	   *text;
	bool		ok;

	strlcpy(msg->node, node, BUS_NAME_LEN);
	msg->incarnation = incarnation;
	msg->sysid = GetSystemIdentifier();
	msg->primary = !RecoveryInProgress();
	msg->seq = seq;
	msg->highest_lsn = highest_lsn;
	last_watermark = Max(last_watermark, msg->watermark);
	text = BusMsgFormat(msg);

	if (raising())
	{
		BusRaise	raise;
		char		name[BUS_CHANGES_NAME_LEN];

		raise_of(msg, &raise);
		changes_name(name);
		ok = BusRedisRaiseAndPublish(name, &raise, bus_redis_channel, text, error);
	}
	else
		ok = BusRedisPublish(bus_redis_channel, text, error);
	pfree(text);
	if (ok)
	{
		BusCount(BUS_SENT);
		last_publish = GetCurrentTimestamp();
	}
	return ok;
}

/*
 * A primary: a flush if commits were dropped, then the queued commits. Their
 * messages carry the watermark already published: the new one is announced
 * by the heartbeat that follows the drain, once every commit it covers has
 * been published (a standby reading the new watermark from the first message
 * of a batch could serve a result that a later message of that batch
 * invalidates).
 */
static bool
publish_queue(char *error)
{
	BusQueueEntry batch[BUS_BATCH];
	int			n;

	if (pg_atomic_exchange_u32(&bus_shared->overflow, 0) != 0)
	{
		BusMsg		msg = {0};

		seq++;
		highest_lsn = Max(highest_lsn, GetXLogInsertRecPtr());
		msg.kind = BUS_MSG_FLUSH;
		msg.lsn = highest_lsn;
		msg.watermark = last_watermark;
		if (!publish(&msg, error))
			return false;
	}
	while ((n = BusQueueTake(batch, BUS_BATCH)) > 0)
	{
		for (int i = 0; i < n; i++)
		{
			BusMsg		msg = {0};

			seq++;
			highest_lsn = Max(highest_lsn, batch[i].lsn);
			msg.kind = batch[i].everything ? BUS_MSG_DATABASE : BUS_MSG_RELATIONS;
			msg.dbid = batch[i].dbid;
			msg.lsn = batch[i].lsn;
			msg.watermark = last_watermark;
			msg.nrelids = batch[i].nrelids;
			memcpy(msg.relids, batch[i].relids, sizeof(Oid) * msg.nrelids);
			msg.nrow_relids = batch[i].nrow_relids;
			memcpy(msg.row_relids, batch[i].row_relids, sizeof(Oid) * msg.nrow_relids);
			msg.ntags = batch[i].ntags;
			memcpy(msg.tags, batch[i].tags, sizeof(CacheTag) * msg.ntags);
			if (!publish(&msg, error))
			{
				/*
				 * Lost with the rest of the batch: peers flush on our return,
				 * with our highest LSN as what they must replay past, so it
				 * must cover the lost commits too (model/sfcache.pml,
				 * AS_CODED_BATCH_DROP).
				 */
				for (int j = i; j < n; j++)
				{
					highest_lsn = Max(highest_lsn, batch[j].lsn);
					BusCount(BUS_DROPPED);
				}
				return false;
			}
		}
	}
	return true;
}

/*
 * Publish what is due. A primary reads its watermark first, then (a full
 * barrier: the exchange) the overflow flag, then drains the queue, then
 * announces the watermark in a heartbeat: a commit dropped before the
 * watermark was read set the flag before clearing its mark, so its flush is
 * published before the watermark that covers it. The worker wakes at every
 * queued commit and every sfcache.redis_heartbeat_ms, and publishes a
 * heartbeat when its watermark moved (any WAL, written by anything, moves a
 * standby's replay past the last one) or once a second when idle.
 */
static bool
publish_due(TimestampTz now, char *error)
{
	XLogRecPtr	watermark = InvalidXLogRecPtr;
	BusMsg		msg = {0};

	if (!RecoveryInProgress())
	{
		watermark = BusWatermark();
		if (!publish_queue(error))
			return false;
	}
	if (!TimestampDifferenceExceeds(last_publish, now, BUS_IDLE_HEARTBEAT_MS) &&
		watermark <= last_watermark)
		return true;
	msg.kind = BUS_MSG_HEARTBEAT;
	msg.watermark = Max(watermark, last_watermark);
	return publish(&msg, error);
}

/* Every second: our liveness key, and whether the peers' still exist. */
static bool
liveness_due(TimestampTz now, char *error)
{
	char		key[BUS_NAME_LEN * 2 + 16];
	char		value[32];
	char		names[BUS_MAX_PEERS][BUS_NAME_LEN];
	int			n = 0;

	if (!TimestampDifferenceExceeds(last_liveness, now, BUS_LIVENESS_EVERY_MS))
		return true;
	last_liveness = now;
	snprintf(key, sizeof(key), "%s:live:%s", bus_redis_channel, node);
	snprintf(value, sizeof(value), INT64_FORMAT, incarnation);
	if (!BusRedisSetLiveness(key, value, bus_liveness_s, error))
		return false;

	LWLockAcquire(bus_shared->lock, LW_SHARED);
	for (int i = 0; i < BUS_MAX_PEERS; i++)
		if (bus_shared->peers[i].used)
			strlcpy(names[n++], bus_shared->peers[i].name, BUS_NAME_LEN);
	LWLockRelease(bus_shared->lock);
	for (int i = 0; i < n; i++)
	{
		int			exists;

		snprintf(key, sizeof(key), "%s:live:%s", bus_redis_channel, names[i]);
		if ((exists = BusRedisExists(key, error)) < 0)
			return false;
		BusPeerLiveness(names[i], exists == 1);
	}
	return true;
}

static void
deliver(const char *payload, size_t len)
{
	BusMsg		msg;

	if (!BusMsgParse(payload, len, &msg))
	{
		BusCount(BUS_MALFORMED);
		return;
	}
	BusReceive(&msg);
}

/* Not connected: try when the backoff allows, log a new failure once. */
static void
try_connect(TimestampTz now)
{
	char		error[BUS_ERROR_LEN];

	if (now < next_attempt)
		return;
	current_config(config, sizeof(config));
	choose_node_name();
	if (!BusRedisConnect(bus_redis_url, bus_redis_channel, error) ||
		!connect_changes(error))
	{
		BusRedisDisconnect();
		if (strcmp(error, last_logged) != 0)
			ereport(LOG,
					(errmsg("sfcache bus: cannot connect to Redis at \"%s\"", bus_redis_url_masked),
					 errdetail("%s", error),
					 errhint("Retrying with backoff; the cache works without the bus, and hot standbys bypass it.")));
		strlcpy(last_logged, error, sizeof(last_logged));
		BusSetState(BUS_CONNECTING, error);
		next_attempt = TimestampTzPlusMilliseconds(now, backoff_ms);
		backoff_ms = Min(backoff_ms * 2, BUS_BACKOFF_MAX_MS);
		return;
	}
	ereport(LOG,
			(errmsg("sfcache bus: connected to Redis at \"%s\", channel \"%s\", as node \"%s\"",
					bus_redis_url_masked, bus_redis_channel, node)));
	last_logged[0] = '\0';
	backoff_ms = BUS_BACKOFF_MIN_MS;

	/*
	 * A new incarnation per connection: commits made while we were off the
	 * bus were never published, so peers must treat us as a new sender and
	 * flush, whatever our sequence numbers say.
	 */
	incarnation = (int64) now;
	seq = 0;
	BusSetState(BUS_CONNECTED, NULL);
	/* others may have written while we were away */
	BusForgetPeers();
	if (RecoveryInProgress())
		BusFlushJoin(InvalidXLogRecPtr);
	else
		BusFlushAll(InvalidXLogRecPtr);
	last_publish = last_liveness = 0;
	last_watermark = InvalidXLogRecPtr;
}

/* One turn of the loop; returns the socket to wait on, or PGINVALID_SOCKET. */
static pgsocket
work(void)
{
	TimestampTz now = GetCurrentTimestamp();
	char		error[BUS_ERROR_LEN];
	char		now_config[sizeof(config)];

	current_config(now_config, sizeof(now_config));
	if (!BusConfigured())
	{
		if (bus_shared->state != BUS_NOT_CONFIGURED)
		{
			ereport(LOG, (errmsg("sfcache bus: sfcache.redis_url is empty, the bus is off")));
			disconnect(BUS_NOT_CONFIGURED, NULL);
		}
		return PGINVALID_SOCKET;
	}
	if (BusRedisConnected() && strcmp(now_config, config) != 0)
	{
		ereport(LOG, (errmsg("sfcache bus: settings changed, reconnecting")));
		disconnect(BUS_CONNECTING, NULL);
		next_attempt = now;
	}
	if (!BusRedisConnected())
		try_connect(now);
	if (BusRedisConnected() &&
		(!publish_due(now, error) || !liveness_due(now, error)))
		lost(error);
	return BusRedisSubscriberSocket();
}

static void
worker_exit(int code, Datum arg)
{
	LWLockAcquire(bus_shared->lock, LW_EXCLUSIVE);
	bus_shared->worker_latch = NULL;
	bus_shared->worker_pid = 0;
	LWLockRelease(bus_shared->lock);
	pg_atomic_write_u32(&bus_shared->usable, 0);
	pg_atomic_write_u64(&bus_shared->horizon, 0);
	BusRedisDisconnect();
}

void
sfcache_bus_worker_0_3(Datum main_arg)
{
	MemoryContext cxt;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	/* a clean shutdown stops the worker without a FATAL in the log */
	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	BackgroundWorkerUnblockSignals();

	cxt = AllocSetContextCreate(TopMemoryContext, "sfcache bus", ALLOCSET_DEFAULT_SIZES);
	LWLockAcquire(bus_shared->lock, LW_EXCLUSIVE);
	bus_shared->worker_latch = MyLatch;
	bus_shared->worker_pid = MyProcPid;
	LWLockRelease(bus_shared->lock);
	before_shmem_exit(worker_exit, 0);
	BusSetState(BUS_NOT_CONFIGURED, NULL);

	for (;;)
	{
		pgsocket	sock;
		int			events;
		int			rc;
		char		error[BUS_ERROR_LEN];

		CHECK_FOR_INTERRUPTS();

		/*
		 * Exit code 1, as the logical replication launcher's: a SIGTERM that
		 * is not a shutdown's gets the worker started again (code 0 would
		 * unregister it); the postmaster starts nothing during a shutdown.
		 */
		if (ShutdownRequestPending)
			proc_exit(1);
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		MemoryContextReset(cxt);
		MemoryContextSwitchTo(cxt);
		sock = work();
		events = WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH;
		if (sock != PGINVALID_SOCKET)
			events |= WL_SOCKET_READABLE;
		rc = WaitLatchOrSocket(MyLatch, events, sock,
							   BusConfigured() ? bus_heartbeat_ms : 1000,
							   SfcWaitEvent("SfcacheBus"));
		ResetLatch(MyLatch);
		if ((rc & WL_SOCKET_READABLE) && BusRedisConnected() &&
			!BusRedisReadMessages(deliver, error))
			lost(error);
	}
}
