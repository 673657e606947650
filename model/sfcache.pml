/*
 * model/sfcache.pml: the consistency protocol of sfcache's result cache,
 * for spin (doc/DESIGN.md, "The protocol, model-checked"; model/check runs
 * it and every planted variant).
 *
 * One relation R is cached; its content is a version: the number of
 * committed writes to R.  A result is the version its snapshot saw.  Two
 * nodes: the primary and one hot standby, each with its own cache of one
 * entry (one key).  The property, asserted wherever a cached result is
 * served:
 *
 *     served result >= the version the reader's snapshot sees
 *
 * i.e. no reader is ever served a result computed before a write that
 * committed before the reader's snapshot ("older than its snapshot
 * allows").  A newer result (computed after a write the reader's snapshot
 * does not see yet) is allowed, as in the code: READ COMMITTED.
 *
 * What each process and variable stands for is named next to it; C names
 * are those of extension/ (cache_inval_counters.c, cache_inval_commit.c,
 * cache_scan.c, cache_singleflight.c, bus/bus_*.c) and of PostgreSQL.
 *
 * Abstracted away: several relations and tags (one counter stands for the
 * counters of a result; global and per-relation generations are one, and
 * so are pending_global and pending[slot]), hash collisions (they only
 * invalidate more), TTLs, windows, eviction, singleflight followers (a
 * follower is served under the same check as a hit: cache_singleflight.c
 * follower_check), several databases and peers, liveness keys (a peer is
 * alive), aborts, LSN arithmetic (each WAL record is one unit long: a
 * record's end is its number), wrap-around.
 *
 * Faults: the bus channel delays, reorders (the standby takes any message
 * in flight), loses (LOSS messages), duplicates (DUPS messages); the
 * standby's worker reconnects (SRECONN times, messages published meanwhile
 * are lost), the primary's worker loses its connection while publishing
 * (PFAIL times) and reconnects with a new incarnation.
 *
 * Variants (model/check): -D macros below; each removes one protocol step
 * or switches one design:
 *   NO_PRECOMMIT_BUMP    the writer's bump before its commit is visible
 *   NO_COMMIT_BUMP       the writer's bump after its commit is visible
 *   NO_INFLIGHT_CHECK    the leader's refusal while a commit is in flight
 *   NO_PUBLISH_CHECK     the leader's "generations unchanged" at publish
 *   NO_PENDING_CHECK     the standby leader's "replayed past pending"
 *   NO_HORIZON_CHECK     the standby's "watermark at or past replay"
 *   NO_PENDING_BEFORE_BUMP  the receiver bumps before raising pending
 *   WATERMARK_IN_BATCH   the drained messages announce the new watermark
 *   NO_GAP_FLUSH         a gap in the sequence is applied, not flushed
 *   NO_NEW_SENDER_FLUSH  a new incarnation's first message is applied
 *   AS_CODED_REPLAY_PTR  the hit path compares with GetXLogReplayRecPtr
 *   AS_CODED_BATCH_DROP  a failed publish drops the rest of its batch
 *                        without raising highest_lsn
 *   WAIT_WATERMARK       design (a): wait (bounded) for the watermark
 *   WAL_INVAL            design (b): the invalidations in the WAL
 *   WAL_INVAL_AFTER_COMMIT  (b) with the record after the commit record
 *   NO_WAL_INFLIGHT      (b) without the "commit in flight" rule
 *   WAL_BUMP_BEFORE_ADD  (b) the redo bumps before adding the xid to the set
 *   WAL_REMOVE_IN_PROGRESS  (b) the redo, the set full, drops an xid still
 *                        in progress (not asking TransactionIdIsInProgress)
 *   OVF_IN_PROGRESS      (b) the overflow xid refuses only while that one
 *                        xid is in progress (instead of: until the
 *                        snapshot's xmin is past it)
 *   INFLEN               (b) the in-flight set's size (0..2; 0: every
 *                        record overflows, as when the set is full of
 *                        other transactions still in progress)
 *   START_MIDDLE         (b) the standby starts from a base backup taken at
 *                        any moment: replay begins at that redo point
 *   NO_START_HORIZON     (b) without "refuse until xmin >= the checkpoint's
 *                        next xid"
 *   WAL_SFCACHE_OFF      (b) the primary runs without sfcache: no records
 *   WAL_OFF_MIDWAY       (b) the primary's second writer writes no record
 *                        (sfcache turned off on the primary meanwhile)
 *   NO_TRUST_RULE        (b) the standby caches before it replayed a record
 *   ASSERT_NO_HIT        assert that the standby never serves a hit
 *   SHARED_TIER          the shared result tier: the primary's leader puts
 *                        its result with L into the shared store, a reader
 *                        on the standby is served it on a local miss (with
 *                        PRIMARY_SIDE: the standby's leader puts it, a
 *                        reader on the primary is served it)
 *   SHARED_NO_LSN_CHECK  the tier's "last-change LSN <= L" removed
 *   SHARED_L_FROM_INSERT the primary's leader puts its result with L, the
 *                        insert position, without the in-flight check
 *   SHARED_BUMP_AFTER_RECORD  (b) the sfcache record is inserted before
 *                        CacheCountersBeforeCommit, not after
 *   SHARED_NO_WAL_READER_INFLIGHT  (b) the tier's reader does not look at
 *                        the in-flight set
 *   SHARED_L_REPLAY_END  the standby's L is GetCurrentReplayRecPtr (the
 *                        record being replayed) instead of GetXLogReplayRecPtr
 *   SHARED_NO_INFLIGHT   the primary reader's "no commit in flight" removed
 *   SHARED_LAST_AFTER_INFLIGHT  the primary's last-change LSN is set after
 *                        the in-flight count drops (in the DONE callback)
 *   TIER_JOIN            (with SHARED_TIER, the bus) a late joiner: the
 *                        standby's worker subscribes at any moment (what
 *                        was published before never reaches it), its join
 *                        flush records J instead of raising the changed-at
 *                        LSN, and the primary's worker publishes the
 *                        changed-at LSNs in a Redis hash (R's field and k)
 *                        that a reader checks for an entry with L < J
 *                        (doc/DESIGN.md, "Late joiners")
 *   RLOSS                (TIER_JOIN) times Redis may lose the hash
 *                        (eviction, FLUSHALL, a restart without its data)
 *   TJ_NO_SET            (TIER_JOIN) the worker never raises R's field
 *   TJ_SET_AFTER_PUBLISH (TIER_JOIN) R's field raised after the PUBLISH of
 *                        its message, on the same connection
 *   TJ_SET_LATE          (TIER_JOIN) R's field raised after the PUBLISH, on
 *                        another connection: it may land after the
 *                        heartbeat that covers the commit
 *   TJ_NO_K_CHECK        (TIER_JOIN) the reader ignores k (the knowledge
 *                        start the worker raises at each connection)
 *   TJ_NO_CONNECT_RAISE  (TIER_JOIN) the worker's connection does not raise k
 *   TJ_MISSING_AS_ZERO   (TIER_JOIN) a missing hash read as "never changed"
 *   TJ_SEPARATE_KEYS     (TIER_JOIN) one Redis key per counter beside k:
 *                        eviction may drop R's key and keep k
 *   TJ_NO_JOIN_LSN       (TIER_JOIN) the join flush records no J
 *   TJ_HASH_BEFORE_CHECK (TIER_JOIN) the reader's HMGET before its standby
 *                        check (the horizon read)
 *   TJ_NO_LOCAL_CHECK    (TIER_JOIN) the reader, for L < J, skips its local
 *                        changed-at check
 *   TJ_SCENARIO          (TIER_JOIN, for the planted cases: a smaller search)
 *                        the entry was put at L = 1 before the commit (no
 *                        leader runs), and the reader starts once the
 *                        commit is replayed
 *   QUEUE_FULL           every commit finds the bus queue full (overflow)
 *   BLIND_CHECK          assert that no standby hit is served inside the
 *                        blind window (expected to hold with the bus, to
 *                        be violated, i.e. reachable, with WAL_INVAL)
 */

/*
 * Granularity: one step of a process is one access to shared memory (an
 * atomic read or write of the C code, or a section under an LWLock), with
 * the process's own local work folded into it; the order of the steps is
 * the C code's.
 */

#ifndef NWRITERS
#define NWRITERS 2				/* concurrent writing transactions on R (0..2) */
#endif
#ifndef QLEN
#define QLEN 2					/* the bus queue (BUS_QUEUE_LEN) */
#endif
#ifndef LOSS
#define LOSS 1					/* messages the channel may lose */
#endif
#ifndef DUPS
#define DUPS 1					/* messages the channel may deliver twice */
#endif
#ifndef SRECONN
#define SRECONN 1				/* reconnections of the standby's worker */
#endif
#ifndef PFAIL
#define PFAIL 1					/* publishes of the primary's worker that fail */
#endif
#ifndef OTHER
#define OTHER 1					/* WAL records that touch nothing cached (0..1) */
#endif

#define MAXLSN (2 + 2 * NWRITERS + OTHER)

#define max(a, b) ((a) > (b) -> (a) : (b))

mtype = { REC_COMMIT, REC_OTHER, REC_INVAL };	/* WAL record kinds */
mtype = { MSG_R, MSG_FLUSH, MSG_HB };	/* BUS_MSG_RELATIONS, _FLUSH, _HEARTBEAT */
mtype = { V_APPLY, V_DUP, V_FLUSH };	/* bus_receive.c Verdict (FLUSH_NEW, FLUSH_GAP: V_FLUSH) */

/* ---- the WAL (written by the primary's writers, replayed by the standby) ---- */
byte insert_lsn = 1;			/* GetXLogInsertRecPtr(): end of the last record */
mtype wal_kind[MAXLSN];
byte wal_xid[MAXLSN];			/* the writer of a commit or sfcache record */
byte other_lsn = 0;				/* ghost: the REC_OTHER record's end */
byte writers_done = 0;

/* ---- the primary's cache ---- */
byte p_visible = 0;				/* commits of R visible to a new snapshot */
byte p_gen = 1;					/* InvalShared.counters[c].gen */
byte p_inflight = 0;			/* InvalShared.counters[c].inflight */
bit p_stored = 0;				/* the primary's cache entry is ready */
byte p_res, p_res_gen;			/* its result and its stored generation */

/* ---- the primary's bus (bus_shmem.c) ---- */
byte mark[NWRITERS];			/* bus_shared->committing[pgprocno] */
byte queue[QLEN];				/* bus_shared->queue: commit LSNs */
byte q_head = 0, q_tail = 0;
bit overflow = 0;				/* bus_shared->overflow */
bit pworker_done = 0;

/* ---- the channel: Redis pub/sub, with its faults ---- */
typedef Msg {
	mtype kind;
	byte seq;					/* BusMsg.seq */
	byte lsn;					/* BusMsg.lsn: the commit's end */
	byte wm;					/* BusMsg.watermark */
	byte highest;				/* BusMsg.highest_lsn */
	bit inc;					/* BusMsg.incarnation */
	bit used
};
Msg ch[3];						/* messages in flight */
byte loss = LOSS, dups = DUPS;

/* ---- the standby ---- */
byte s_visible = 0;				/* commits of R replayed: visible to a new snapshot */
byte replay_end = 1;			/* XLogRecoveryCtl->replayEndRecPtr (GetCurrentReplayRecPtr) */
byte replayed = 1;				/* ->lastReplayedEndRecPtr (GetXLogReplayRecPtr) */
byte s_gen = 1;					/* the standby's counter */
bit s_stored = 0;				/* the standby's cache entry is ready */
byte s_res, s_res_gen;
byte horizon = 0;				/* bus_shared->horizon: 0 whenever !usable */
byte pending = 0;				/* bus_shared->pending_global and pending[slot] */
bit hb_covers_other = 0;		/* ghost: a watermark >= other_lsn reached the standby */

/*
 * ---- design (b) (cache_inval_wal.c): the primary's transaction ids, the
 * standby's in-flight set and what it knows of each xid ----
 */
#ifndef INFLEN
#define INFLEN 2				/* the in-flight set's entries (0..2) */
#endif
byte next_xid = 1;				/* ShmemVariableCache->nextXid: xids are 1..NWRITERS */
byte s_inf[2];					/* the in-flight set: an xid, or 0 (INFLEN used) */
byte s_ovf = 0;					/* the overflow xid: the highest that did not fit */
bit s_done[NWRITERS + 1];		/* xid's commit replayed: out of KnownAssignedXids */
byte s_hzn = 0;					/* H: the next xid of the checkpoint replay began at */
bit s_trusted = 0;				/* an sfcache record was replayed since the start */
#ifdef START_MIDDLE
bit s_started = 0;				/* replay began (reached consistency): queries run */
#else
bit s_started = 1;
#endif
byte s_last = 0;				/* (b) the slot's last-change LSN, set by the redo */

/* ---- the shared result tier (Redis): one entry, its result and its L ---- */
bit sh_stored = 0;
byte sh_res, sh_L;
byte p_last = 0;				/* the primary's last-change LSN of R (commit DONE) */

/*
 * ---- late joiners (TIER_JOIN): the standby's changed-at LSN of R split
 * from its replay-needed LSN (pending), its join LSN J, and the hash
 * sfc:<sysid>:<timeline>:c in Redis, which only the primary's worker
 * writes ----
 */
#ifndef RLOSS
#define RLOSS 1
#endif
bit s_sub = 0;					/* the standby's worker has subscribed */
byte s_chg = 0;					/* changed_at[R] and changed_at_all */
byte s_J = 0;					/* joined_at: knowledge starts here */
bit rh_present = 1;				/* the hash exists (its k field) */
byte rh_k = 1;					/* k: the worker's first connection, at 1 */
byte rh_c = 0;					/* R's field: 0 when absent */
byte rloss = RLOSS;
byte late_e = 0;				/* TJ_SET_LATE: a raise not yet landed */

/*
 * ---- a writing transaction on the primary (cache_inval_commit.c
 * CacheXactEvent; bus_shmem.c BusCommitCallback; (b) cache_inval_wal.c) ----
 */

/*
 * The commit record, then its visibility: one step, or two when a process
 * reads the insert position (the shared tier's L on the primary) and could
 * tell a record written from a commit visible.
 */
#if defined(SHARED_TIER) && !defined(PRIMARY_SIDE)
#define SPLIT_VISIBLE
#endif

/* (b): does this writer insert sfcache's record (is sfcache on)? */
#if defined(WAL_SFCACHE_OFF)
#define WRITES_RECORD(i) false
#elif defined(WAL_OFF_MIDWAY)
#define WRITES_RECORD(i) (i == 0)
#else
#define WRITES_RECORD(i) true
#endif

/* the primary's own counters: on the primary side, and for the shared tier */
#if defined(PRIMARY_SIDE) || defined(SHARED_TIER)
#define PRIMARY_COUNTERS
#endif

/* (b): XLogInsert of sfcache's record (its counters, its xid) */
inline inval_record()
{
	if
	:: WRITES_RECORD(i) ->
		d_step { insert_lsn++; wal_kind[insert_lsn] = REC_INVAL; wal_xid[insert_lsn] = xid }
	:: else -> skip
	fi
}

proctype Writer(byte i)
{
	byte lsn;
#ifdef WAL_INVAL
	byte xid;

	/* GetCurrentTransactionId, at its first write */
	d_step { xid = next_xid; next_xid++ }
#else
#define xid i
#endif

#if !defined(PRIMARY_SIDE) && !defined(WAL_INVAL)
	/* announce_commit(CACHE_COMMIT_BEGIN): the mark, before the commit record */
	mark[i] = insert_lsn;
#endif
#if defined(WAL_INVAL) && defined(SHARED_BUMP_AFTER_RECORD)
	inval_record();				/* planted: the record before the bump */
#endif
#ifdef PRIMARY_COUNTERS
	/* XACT_EVENT_PRE_COMMIT: CacheCountersBeforeCommit */
	d_step {
#ifndef NO_PRECOMMIT_BUMP
		p_gen++;
#endif
		p_inflight++
	}
#endif
#if defined(WAL_INVAL) && !defined(WAL_INVAL_AFTER_COMMIT) && !defined(SHARED_BUMP_AFTER_RECORD)
	/* (b): sfcache's record at PRE_COMMIT, after CacheCountersBeforeCommit */
	inval_record();
#endif
	/* RecordTransactionCommit, ProcArrayEndTransaction: the commit is visible */
	d_step {
		insert_lsn++; wal_kind[insert_lsn] = REC_COMMIT; wal_xid[insert_lsn] = xid;
		lsn = insert_lsn;		/* XactLastCommitEnd */
#ifndef SPLIT_VISIBLE
		p_visible++
#endif
	}
#ifdef SPLIT_VISIBLE
	p_visible++;
#endif
#if defined(WAL_INVAL) && defined(WAL_INVAL_AFTER_COMMIT)
	inval_record();
#endif
#ifdef PRIMARY_COUNTERS
	/*
	 * XACT_EVENT_COMMIT: CacheCountersAfterCommit, which raises the tier's
	 * changed-at LSN of R (XactLastCommitEnd) before the in-flight count
	 * drops
	 */
	d_step {
#ifndef NO_COMMIT_BUMP
		p_gen++;
#endif
#if defined(SHARED_TIER) && !defined(SHARED_LAST_AFTER_INFLIGHT)
		p_last = max(p_last, lsn);
#endif
#ifdef PRIMARY_SIDE
		writers_done++;
#endif
		p_inflight--
	}
#if defined(SHARED_TIER) && defined(SHARED_LAST_AFTER_INFLIGHT)
	/* planted: in announce_commit(CACHE_COMMIT_DONE), after the drop */
	p_last = max(p_last, lsn);
#endif
#endif
#if !defined(PRIMARY_SIDE) && !defined(WAL_INVAL)
	/* announce_commit(CACHE_COMMIT_DONE): enqueue (or the overflow flag), unmark */
	d_step {
		if
#ifndef QUEUE_FULL
		:: q_head - q_tail < QLEN -> queue[q_head % QLEN] = lsn; q_head++
#endif
		:: else -> overflow = 1
		fi;
		lsn = 0
	}
	d_step { mark[i] = 0; writers_done++ }
#elif !defined(PRIMARY_SIDE)
	d_step { writers_done++; lsn = 0; xid = 0 }
#endif
}
#undef xid

/* ---- autovacuum, a checkpoint, a write to a table nothing cached reads ---- */
proctype OtherWal()
{
	d_step { insert_lsn++; wal_kind[insert_lsn] = REC_OTHER; other_lsn = insert_lsn }
}

/* ---- a leader on the primary (cache_scan.c run_as_leader) ---- */
proctype PrimaryLeader()
{
	byte g, snap;
	bit quiet;

	/* CacheGenSnapshotTake: the generations, then the in-flight counts */
	g = p_gen;
	quiet = (p_inflight == 0);
#ifdef NO_INFLIGHT_CHECK
	quiet = 1;
#endif
	/* PushActiveSnapshot(GetTransactionSnapshot()); run_child */
	snap = p_visible;
	/* CacheSingleflightPublish, under the partition lock */
	d_step {
		if
#ifdef NO_PUBLISH_CHECK
		:: quiet -> p_stored = 1; p_res = snap; p_res_gen = g
#else
		:: quiet && p_gen == g -> p_stored = 1; p_res = snap; p_res_gen = g
#endif
		:: else -> skip
		fi;
		g = 0; snap = 0; quiet = 0	/* dead */
	}
}

/* ---- a hit on the primary (cache_singleflight.c serve_ready) ---- */
proctype PrimaryReader()
{
	byte snap;

	snap = p_visible;			/* the statement's snapshot (PortalStart) */
	/* CacheStoreEntryIsCurrent under the partition lock, then served */
	d_step {
		if
		:: p_stored && p_res_gen == p_gen -> assert(p_res >= snap)
		:: else -> skip
		fi;
		snap = 0	/* dead */
	}
}

/* ---- the primary's bus worker (bus_worker.c publish_due) ---- */

/*
 * TIER_JOIN: the script run before a message's PUBLISH, on the same
 * connection: re-create the hash if it is gone (k = the insert position,
 * at or past every commit whose raise it may have lost), then raise a
 * field to x (max: never lowered)
 */
#ifdef TJ_SEPARATE_KEYS
#define TJ_CREATE if :: !rh_present -> rh_present = 1; rh_k = insert_lsn :: else -> skip fi
#else
#define TJ_CREATE if :: !rh_present -> rh_present = 1; rh_k = insert_lsn; rh_c = 0 :: else -> skip fi
#endif
#define TJ_RAISE_C(x) TJ_CREATE; rh_c = max(rh_c, x)
#define TJ_RAISE_K(x) TJ_CREATE; rh_k = max(rh_k, x)

/* TIER_JOIN: Redis loses the hash (with TJ_SEPARATE_KEYS: R's key only) */
proctype RedisLoss()
{
	do
	:: rloss > 0 ->
		d_step {
			rloss--;
#ifdef TJ_SEPARATE_KEYS
			rh_c = 0
#else
			rh_present = 0; rh_k = 0; rh_c = 0
#endif
		}
	:: else -> break
	od
}

/* TJ_SET_LATE: the raise, sent on another connection, lands whenever */
proctype LateSet()
{
	do
	:: d_step { late_e != 0 -> TJ_RAISE_C(late_e); late_e = 0 }
	:: pworker_done && late_e == 0 -> break
	od
}

/*
 * bus_redis.c BusRedisPublish: into the first free slot of the channel
 * (waiting for one: delay), or it fails (PFAIL times).
 */
inline publish(k, s, l, w, h)
{
	atomic {
		(pfail > 0 || !ch[0].used || !ch[1].used || !ch[2].used);
		if
		:: pfail > 0 -> pfail--; ok = 0
		:: !ch[0].used || !ch[1].used || !ch[2].used ->
			ok = 1;
#ifdef TIER_JOIN
			/* pub/sub: no subscriber yet, nobody receives it */
			if
			:: !s_sub -> skip
			:: else ->
#endif
			n = (!ch[0].used -> 0 : (!ch[1].used -> 1 : 2));
			ch[n].kind = k; ch[n].seq = s; ch[n].lsn = l; ch[n].wm = w;
			ch[n].highest = h; ch[n].inc = inc; ch[n].used = 1;
			n = 0
#ifdef TIER_JOIN
			fi
#endif
		fi
	}
}

proctype PrimaryWorker()
{
	byte w, j, e, seq = 0, highest = 1, last_w = 0, n, pfail = PFAIL;
	byte batch[2];
	byte nb;
	bit ok, ovf, inc = 0, disconnected = 0;

	do
	:: atomic {
		!disconnected && (q_tail < q_head || overflow || insert_lsn > last_w) ->
		/* (a turn with nothing to do changes nothing: not modelled) */
		/* BusWatermark: the insert position, then (barrier) each mark */
		w = insert_lsn
	   }
		d_step { if :: mark[0] != 0 && mark[0] < w -> w = mark[0] :: else fi }
#if NWRITERS > 1
		d_step { if :: mark[1] != 0 && mark[1] < w -> w = mark[1] :: else fi }
#endif
#if QLEN < NWRITERS || defined(QUEUE_FULL)
		/* publish_queue: the overflow flag (an exchange: a full barrier) */
		d_step { ovf = overflow; overflow = 0 }
		if
		:: ovf ->
			d_step {
				seq++; highest = max(highest, insert_lsn); ovf = 0;
#ifdef TIER_JOIN
				TJ_RAISE_K(highest)	/* a flush: k covers what was dropped */
#endif
			}
			publish(MSG_FLUSH, seq, highest, last_w, highest);
			if
			:: !ok -> disconnected = 1; goto turn_end
			:: else -> skip
			fi
		:: else -> skip
		fi;
#endif
		/* BusQueueTake: the whole queue, oldest first */
		d_step {
			nb = 0;
			do
			:: q_tail < q_head -> batch[nb] = queue[q_tail % QLEN]; nb++; q_tail++
			:: else -> break
			od;
			j = 0
		}
		do
		:: j < nb ->
			atomic {
				e = batch[j]; seq++; highest = max(highest, e);
				/* the drained messages carry the watermark already published */
#ifdef WATERMARK_IN_BATCH
				last_w = max(w, last_w);
				publish(MSG_R, seq, e, last_w, highest);
#else
				publish(MSG_R, seq, e, last_w, highest);
#endif
#if defined(TIER_JOIN) && !defined(TJ_NO_SET) && !defined(TJ_SET_AFTER_PUBLISH) && !defined(TJ_SET_LATE)
				/* one script: raise R's field, then PUBLISH (here: the same step) */
				if :: ok -> TJ_RAISE_C(e) :: else -> skip fi;
#endif
#ifdef TJ_SET_LATE
				if :: ok -> late_e = e :: else -> skip fi;
#endif
				if
				:: !ok ->
					/* lost with the rest of the batch: peers flush on our return */
#ifndef AS_CODED_BATCH_DROP
					/* proposed fix: what is dropped counts in highest_lsn */
					do
					:: j < nb -> highest = max(highest, batch[j]); j++
					:: else -> break
					od;
#endif
					disconnected = 1; goto turn_end
				:: else -> j++
				fi
			}
#ifdef TJ_SET_AFTER_PUBLISH
			/* planted: the raise after the PUBLISH, next on the connection */
			d_step { TJ_RAISE_C(e) }
#endif
		:: else -> break
		od;
		/* the heartbeat that announces W, after the drain */
		if
		:: w > last_w ->
			atomic {
				publish(MSG_HB, seq, 0, w, highest);
				if
				:: ok -> last_w = w
				:: else -> disconnected = 1
				fi;
				goto turn_end
			}
		:: else -> skip
		fi;
turn_end:
		/* the turn's locals are dead now */
		atomic { w = 0; j = 0; e = 0; nb = 0; batch[0] = 0; batch[1] = 0; ok = 0 }
	:: disconnected ->
		/* try_connect: a new incarnation, sequence 0, no watermark published */
		d_step {
			inc = 1 - inc; seq = 0; last_w = 0; disconnected = 0;
#if defined(TIER_JOIN) && !defined(TJ_NO_CONNECT_RAISE)
			/* the connect script, before anything is published: k raised */
			TJ_RAISE_K(insert_lsn)
#endif
		}
	:: !disconnected && writers_done == NWRITERS && q_head == q_tail && !overflow &&
	   last_w == insert_lsn ->
		break
	od;
	pworker_done = 1
}

/* ---- the standby's startup process (xlogrecovery.c ApplyWalRecord) ---- */

/* (b): is the in-flight set full? */
#if INFLEN == 0
#define INF_FULL true
#elif INFLEN == 1
#define INF_FULL (s_inf[0] != 0)
#else
#define INF_FULL (s_inf[0] != 0 && s_inf[1] != 0)
#endif

/*
 * (b) the redo's first step: the xid into the in-flight set; the set full,
 * first drop the xids no longer in progress (TransactionIdIsInProgress),
 * then, still full, raise the overflow xid
 */
inline inflight_add(x)
{
	if
	:: INF_FULL ->
#ifdef WAL_REMOVE_IN_PROGRESS
		/* planted: the oldest entry leaves without asking */
		if :: INFLEN > 0 -> s_inf[0] = 0 :: else -> skip fi;
#else
		if :: INFLEN > 0 && s_done[s_inf[0]] -> s_inf[0] = 0 :: else -> skip fi;
		if :: INFLEN > 1 && s_done[s_inf[1]] -> s_inf[1] = 0 :: else -> skip fi;
#endif
	:: else -> skip
	fi;
	if
	:: INFLEN > 0 && s_inf[0] == 0 -> s_inf[0] = x
	:: INFLEN > 1 && s_inf[0] != 0 && s_inf[1] == 0 -> s_inf[1] = x
	:: else -> s_ovf = max(s_ovf, x)
	fi
}

/* (b) the redo's second step: the last-change LSN, then the bump */
#ifdef SHARED_TIER
#define WAL_BUMP s_last = max(s_last, next); s_gen++; s_trusted = 1
#else
#define WAL_BUMP s_gen++; s_trusted = 1
#endif

proctype Startup()
{
	byte next;
#ifdef START_MIDDLE
	byte k;

	/*
	 * A base backup taken now: replay begins at the redo point of the
	 * checkpoint taken now (the insert position), with what committed
	 * before it visible, and the rmgr's startup callback takes H, that
	 * checkpoint's next xid
	 */
	d_step {
		replayed = insert_lsn; replay_end = insert_lsn;
		k = 1;
		do
		:: k <= replayed ->
			if
			:: wal_kind[k] == REC_COMMIT -> s_visible++; s_done[wal_xid[k]] = 1
			:: else -> skip
			fi;
			k++
		:: else -> break
		od;
		k = 0;
#ifndef NO_START_HORIZON
		s_hzn = next_xid;
#endif
		s_started = 1
	}
#endif
	do
	:: replayed < insert_lsn && wal_kind[replayed + 1] == REC_COMMIT ->
		/* (streamed: the record is on the standby) before the redo */
		d_step { next = replayed + 1; replay_end = next }
		/*
		 * rm_redo: xact_redo_commit makes the commit visible, and the xid
		 * leaves KnownAssignedXids at the same moment (no sfcache hook)
		 */
		d_step { s_visible++; s_done[wal_xid[next]] = 1 }
		/* after the redo */
		d_step { replayed = next; next = 0 }
	:: replayed < insert_lsn && wal_kind[replayed + 1] == REC_INVAL ->
		/* (b) the custom resource manager's redo: in flight, then (barrier) bump */
#ifdef WAL_BUMP_BEFORE_ADD
		d_step { next = replayed + 1; replay_end = next; WAL_BUMP }
		d_step { inflight_add(wal_xid[next]); replayed = next; next = 0 }
#else
		d_step { next = replayed + 1; replay_end = next; inflight_add(wal_xid[next]) }
		d_step { WAL_BUMP; replayed = next; next = 0 }
#endif
	:: replayed < insert_lsn && wal_kind[replayed + 1] == REC_OTHER ->
		d_step { replay_end = replayed + 1; replayed = replay_end }
	:: replayed == insert_lsn && writers_done == NWRITERS -> break
	od
}

/* ---- the standby's bus worker (bus_receive.c BusReceive; bus_worker.c) ---- */
proctype StandbyWorker()
{
	byte k, sreconn = SRECONN;
	byte last_seq = 0, peer_wm = 0;
	bit peer_known = 0, peer_inc = 0;
	Msg m;
	mtype v;
#ifdef TIER_JOIN
	bit join = 0;
#endif

	do
#ifdef TIER_JOIN
	:: !s_sub ->
		/*
		 * try_connect, late (what was published before never reaches us):
		 * subscribed, the peers unknown, the connect flush, which records
		 * J (the replay position) and raises no changed-at LSN
		 */
		d_step {
			s_sub = 1;
#ifndef TJ_NO_JOIN_LSN
			s_J = max(s_J, replay_end);
#endif
			s_gen++
		}
#endif
	:: atomic {
			/* any message in flight: reordering */
			if
			:: ch[0].used -> k = 0
			:: ch[1].used -> k = 1
			:: ch[2].used -> k = 2
			fi;
			m.kind = ch[k].kind; m.seq = ch[k].seq; m.lsn = ch[k].lsn;
			m.wm = ch[k].wm; m.highest = ch[k].highest; m.inc = ch[k].inc;
			if
			:: loss > 0 -> loss--; ch[k].used = 0; v = V_DUP	/* lost */
			:: dups > 0 -> dups--	/* delivered now, and again later */
			:: true -> ch[k].used = 0
			fi;
			k = 0;
			/* judge (the peer table is the worker's: bus_shared->lock) */
			if
			:: v == V_DUP -> skip
			:: else ->
				if
				:: !peer_known || m.inc != peer_inc ->
#ifdef TIER_JOIN
					/* a join: the first message of a primary since we subscribed */
					join = !peer_known;
#endif
#ifdef NO_NEW_SENDER_FLUSH
					v = V_APPLY
#else
					v = V_FLUSH	/* FLUSH_NEW */
#endif
				:: else ->
					if
					:: m.seq < last_seq || (m.seq == last_seq && m.kind != MSG_HB) ->
						v = V_DUP	/* SKIP_DUPLICATE */
					:: m.seq > last_seq + (m.kind == MSG_HB -> 0 : 1) ->
#ifdef NO_GAP_FLUSH
						v = V_APPLY
#else
						v = V_FLUSH	/* FLUSH_GAP */
#endif
					:: else -> v = V_APPLY
					fi
				fi;
				if
				:: v != V_DUP ->
					peer_known = 1; peer_inc = m.inc; last_seq = m.seq; peer_wm = m.wm
				:: else -> skip
				fi
			fi;
			/* the pending LSN (BusFlushAll, apply), before the bump */
			if
			:: v == V_FLUSH -> m.lsn = max(m.highest, m.wm)
			:: v == V_APPLY && m.kind == MSG_FLUSH -> m.lsn = max(m.lsn, m.highest)
			:: v == V_APPLY && m.kind == MSG_R -> skip
			:: else -> m.lsn = 0	/* a heartbeat, a duplicate, a loss */
			fi;
#ifndef NO_PENDING_BEFORE_BUMP
			pending = max(pending, m.lsn);
#endif
#ifdef TIER_JOIN
			/*
			 * the changed-at LSN, before the bump: a join flush records J
			 * instead (gap and new-incarnation flushes raise it: messages
			 * were lost, and their raises may be too)
			 */
			if
			:: join ->
#ifndef TJ_NO_JOIN_LSN
				s_J = max(s_J, m.lsn);
#endif
				join = 0
			:: else -> s_chg = max(s_chg, m.lsn)
			fi
#else
			skip
#endif
		}
#ifdef NO_PENDING_BEFORE_BUMP
		if
		:: m.lsn != 0 -> s_gen++
		:: else -> skip
		fi;
		pending = max(pending, m.lsn);
#endif
		/*
		 * CacheInvalidateAllNow or CacheInvalidateRelationsOf, then
		 * BusRecomputeHorizon: one step (both readers read the horizon
		 * before the generations, so no reader tells them apart)
		 */
		d_step {
#ifndef NO_PENDING_BEFORE_BUMP
			if
			:: m.lsn != 0 -> s_gen++
			:: else -> skip
			fi;
#endif
			if
			:: v != V_DUP ->
				horizon = peer_wm;
				if
				:: other_lsn != 0 && horizon >= other_lsn -> hb_covers_other = 1
				:: else -> skip
				fi
			:: else -> skip
			fi;
			v = 0; m.kind = 0; m.seq = 0; m.lsn = 0; m.wm = 0; m.highest = 0; m.inc = 0
		}
	:: sreconn > 0 ->
		/* lost the connection: disconnect(BUS_CONNECTING), usable 0 */
		d_step { sreconn--; horizon = 0 }
		/*
		 * try_connect: connected, forget the peers (the horizon is 0 until a
		 * primary's message), flush; what was published while away never
		 * arrives
		 */
		d_step {
			ch[0].used = 0; ch[1].used = 0; ch[2].used = 0;
			peer_known = 0; peer_inc = 0; last_seq = 0; peer_wm = 0
		}
#if defined(TIER_JOIN) && !defined(TJ_NO_JOIN_LSN)
		/* the connect flush: J at the replay position */
		d_step { s_J = max(s_J, replay_end); s_gen++ }
#elif defined(SHARED_TIER)
		/* a flush with no LSN raises the changed-at LSN to the replay position */
		d_step { pending = max(pending, replay_end); s_gen++ }
#else
		s_gen++
#endif
	:: pworker_done && !ch[0].used && !ch[1].used && !ch[2].used -> break
	od
}

/*
 * The standby rule (bus_standby.c BusStandbyCheck), its reads in the
 * code's order: the horizon (0 when the bus is not usable: the usable
 * flag is not modelled), the replay position (read by the caller), the
 * pending LSN.
 */
inline standby_check(rp, ok)
{
	h = horizon;
	ok = (h != 0);
#ifndef NO_HORIZON_CHECK
	ok = ok && h >= rp;
#endif
#ifndef NO_PENDING_CHECK
	d_step { ok = ok && pending <= rp; h = 0 }
#endif
}

/*
 * (b): one entry of the in-flight set, read under its lock: in progress
 * (TransactionIdIsInProgress: still in KnownAssignedXids) refuses the
 * store; resolved, the leader drops it from the set (if still there)
 */
inline inflight_entry(e, k)
{
	if
	:: e != 0 ->
		d_step {
			if
			:: !s_done[e] -> quiet = 0
			:: else ->
				if
				:: s_inf[k] == e -> s_inf[k] = 0
				:: else -> skip
				fi
			fi;
			e = 0
		}
	:: else -> skip
	fi
}

/* ---- a leader on the standby (cache_scan.c run_as_leader) ---- */
proctype StandbyLeader()
{
	byte g, snap, h, rp;
	bit quiet = 1, ok = 1;
#ifdef WAL_INVAL
	byte e0, e1, eo, hz, k;

#ifdef START_MIDDLE
	s_started;					/* hot standby: consistent, queries run */
#endif
	/* CacheGenSnapshotTake; the standby check: an sfcache record replayed */
	d_step {
		g = s_gen;
#ifndef NO_TRUST_RULE
		ok = s_trusted
#endif
	}
#ifndef NO_WAL_INFLIGHT
	/* the in-flight set, after the generations, before the snapshot */
	d_step { e0 = s_inf[0]; e1 = s_inf[1]; eo = s_ovf }
	inflight_entry(e0, 0);
	inflight_entry(e1, 1);
#ifdef OVF_IN_PROGRESS
	/* the overflow xid, as one more entry */
	if
	:: eo != 0 ->
		d_step {
			if
			:: !s_done[eo] -> quiet = 0
			:: else -> skip
			fi;
			eo = 0
		}
	:: else -> skip
	fi;
#endif
#endif
	/*
	 * The snapshot, and its xmin (the oldest xid in KnownAssignedXids):
	 * refused unless xmin >= H (every transaction that could have written
	 * a record before the redo point has ended) and xmin > the overflow xid
	 */
	d_step {
		snap = s_visible;
		hz = max(s_hzn, eo + (eo != 0 -> 1 : 0));
		k = 1;
		do
		:: k <= NWRITERS ->
			if
			:: k < hz && !s_done[k] -> ok = 0
			:: else -> skip
			fi;
			k++
		:: else -> break
		od;
		k = 0; hz = 0; eo = 0
	}
#else
	g = s_gen;					/* CacheGenSnapshotTake */
	/* CacheCheckStandby, after the generations, before the snapshot */
	rp = replayed;				/* GetXLogReplayRecPtr: every commit to it is visible */
	standby_check(rp, ok);
	snap = s_visible;			/* the snapshot */
#endif
	d_step {
		if
#ifdef NO_PUBLISH_CHECK
		:: quiet && ok -> s_stored = 1; s_res = snap; s_res_gen = g
#else
		:: quiet && ok && s_gen == g -> s_stored = 1; s_res = snap; s_res_gen = g
#endif
		:: else -> skip
		fi;
		g = 0; snap = 0; rp = 0; quiet = 0; ok = 0	/* dead */
	}
}

/* ---- a hit on the standby (cache_scan.c resolve; serve_ready) ---- */
proctype StandbyReader()
{
	byte snap, h, rp;
	bit ok = 1;

#ifdef BLIND_CHECK
	/* arrives after the record that touched nothing cached was replayed */
	other_lsn != 0 && replayed >= other_lsn;
#endif
#ifdef START_MIDDLE
	s_started;
#endif
	snap = s_visible;			/* the statement's snapshot */
#ifndef WAL_INVAL
	/* CacheCheckRuntimeBypass: CacheCheckStandby */
#ifdef AS_CODED_REPLAY_PTR
	rp = replayed;				/* GetXLogReplayRecPtr: lags what a snapshot sees */
#else
	rp = replay_end;			/* proposed fix: GetCurrentReplayRecPtr, an upper bound */
#endif
#ifdef WAIT_WATERMARK
	/* (a): wait until the horizon covers rp, or the bound runs out */
	if
	:: horizon != 0 && horizon >= rp -> skip
	:: true -> skip
	fi;
#endif
	standby_check(rp, ok);
#endif
	d_step {
		if
		:: ok && s_stored && s_res_gen == s_gen ->
			assert(s_res >= snap);
#ifdef ASSERT_NO_HIT
			assert(false);
#endif
#ifdef BLIND_CHECK
			/* a hit although no watermark has covered that record */
			assert(hb_covers_other)
#endif
		:: else -> skip
		fi;
		snap = 0; rp = 0; ok = 0	/* dead */
	}
}

/*
 * ---- the shared result tier (bus_results.c): a leader puts its result
 * into the shared store with L, every commit ending at or before L being
 * visible to its snapshot; a reader on the other node, on a local miss, is
 * served it if its node's last-change LSN of R is at or before L and its
 * node's own check passes ----
 */

/*
 * The primary's L: the insert position, read before the counters; the
 * entry is put only under the local store rule (no commit in flight on R,
 * the generation unchanged at publish)
 */
proctype TierLeaderPrimary()
{
	byte L, snap, g;
	bit quiet;

	L = insert_lsn;				/* GetXLogInsertRecPtr */
	/* CacheGenSnapshotTake: the generations, then the in-flight counts */
	g = p_gen;
	quiet = (p_inflight == 0);
#ifdef SHARED_L_FROM_INSERT
	quiet = 1;
#endif
	snap = p_visible;			/* the snapshot */
	/* CacheSingleflightPublish's check, then the SET of the shared entry */
	d_step {
		if
		:: quiet && p_gen == g -> sh_stored = 1; sh_res = snap; sh_L = L
		:: else -> skip
		fi;
		L = 0; snap = 0; g = 0; quiet = 0
	}
}

/* the standby's L: GetXLogReplayRecPtr, before the snapshot */
proctype TierLeaderStandby()
{
	byte L, snap;

#ifdef SHARED_L_REPLAY_END
	L = replay_end;				/* planted: the record being replayed, maybe not visible */
#else
	L = replayed;
#endif
	snap = s_visible;
	d_step { sh_stored = 1; sh_res = snap; sh_L = L; L = 0; snap = 0 }
}

/*
 * A reader on the standby, on a local miss, its statement's snapshot taken
 * first: its node's knowledge complete up to that snapshot (bus: the bus's
 * standby check, horizon >= GetCurrentReplayRecPtr; (b): the WAL trusted
 * and no xid of the in-flight set in progress), then (barrier) R's
 * changed-at LSN on this node (bus: the replay-needed LSN the messages
 * raised; (b): the redo's) at or before the entry's L, then L at or before
 * GetXLogReplayRecPtr (not newer than this node)
 */
proctype TierReaderStandby()
{
	byte snap, h, L, r, last;
	bit ok = 1, st;
#ifdef TIER_JOIN
	byte j, hk, hc;
	bit hp;
#endif
#if defined(WAL_INVAL) && !defined(SHARED_NO_WAL_READER_INFLIGHT)
	byte e0, e1, eo;
#endif

#ifdef START_MIDDLE
	s_started;
#endif
#ifdef TJ_SCENARIO
	replayed == insert_lsn && writers_done == NWRITERS;
#endif
	snap = s_visible;
	d_step { st = sh_stored; r = sh_res; L = sh_L }	/* GET */
#ifdef WAL_INVAL
#ifndef NO_TRUST_RULE
	ok = s_trusted;
#endif
#ifndef SHARED_NO_WAL_READER_INFLIGHT
	d_step { e0 = s_inf[0]; e1 = s_inf[1]; eo = s_ovf }
	d_step {
		ok = ok && (e0 == 0 || s_done[e0]) && (e1 == 0 || s_done[e1]) &&
			(eo == 0 || s_done[eo]);
		e0 = 0; e1 = 0; eo = 0
	}
#endif
	last = s_last;
#else
#ifdef TJ_HASH_BEFORE_CHECK
	d_step { hp = rh_present; hk = rh_k; hc = rh_c }	/* planted: HMGET first */
#endif
	/* BusStandbyCheck */
	h = horizon;
	ok = (h != 0 && h >= replay_end);
	h = 0;
#ifdef TIER_JOIN
	/*
	 * The HMGET of R's field and k, pipelined with the GET, after the
	 * check; then the local changed-at LSN and J (one step here: they only
	 * grow, so reading them at the HMGET's moment refuses no more)
	 */
	d_step {
#ifndef TJ_HASH_BEFORE_CHECK
		hp = rh_present; hk = rh_k; hc = rh_c;
#endif
#ifdef TJ_MISSING_AS_ZERO
		if :: !hp -> hp = 1; hk = 0; hc = 0 :: else -> skip fi;
#endif
#ifdef TJ_NO_K_CHECK
		hk = 0;
#endif
		last = s_chg; j = s_J;
		/* an entry older than J: the hash must exist and cover it */
		ok = ok && (L >= j || (hp && hk <= L && hc <= L));
#ifdef TJ_NO_LOCAL_CHECK
		if :: L < j -> last = 0 :: else -> skip fi;
#endif
		j = 0; hp = 0; hk = 0; hc = 0
	}
#else
	last = pending;
#endif
#endif
	d_step {
		if
#ifdef SHARED_NO_LSN_CHECK
		:: ok && st && L <= replayed -> assert(r >= snap)
#else
		:: ok && st && last <= L && L <= replayed -> assert(r >= snap)
#endif
		:: else -> skip
		fi;
		snap = 0; L = 0; r = 0; last = 0; ok = 0; st = 0	/* dead */
	}
}

/*
 * A reader on the primary, on a local miss: the shared entry, served if no
 * commit is in flight on R (the in-flight counts, read after the snapshot)
 * and R's changed-at LSN on the primary is at or before its L (the start's
 * known_from is not modelled: the primary does not restart)
 */
proctype TierReaderPrimary()
{
	byte snap, L, r, last;
	bit ok = 1, st;

	snap = p_visible;
	d_step { st = sh_stored; r = sh_res; L = sh_L }	/* GET */
#ifndef SHARED_NO_INFLIGHT
	ok = (p_inflight == 0);
#endif
	last = p_last;
	d_step {
		if
#ifdef SHARED_NO_LSN_CHECK
		:: ok && st -> assert(r >= snap)
#else
		:: ok && st && last <= L -> assert(r >= snap)
#endif
		:: else -> skip
		fi;
		snap = 0; L = 0; r = 0; last = 0; ok = 0; st = 0	/* dead */
	}
}

init
{
	atomic {
		run Writer(0);
#if NWRITERS > 1
		run Writer(1);
#endif
#if defined(PRIMARY_SIDE) && defined(SHARED_TIER)
		/* a standby's result read on the primary */
		run Startup();
		run TierLeaderStandby();
		run TierReaderPrimary()
#elif defined(PRIMARY_SIDE)
		run PrimaryLeader();
		run PrimaryReader()
#else
#if OTHER > 0
		run OtherWal();
#endif
#ifndef WAL_INVAL
		run PrimaryWorker();
		run StandbyWorker();
#endif
		run Startup();
#ifdef SHARED_TIER
#ifdef TJ_SCENARIO
		sh_stored = 1; sh_res = 0; sh_L = 1;	/* put before the commit */
#else
		run TierLeaderPrimary();
#endif
#ifdef TIER_JOIN
#if RLOSS > 0
		run RedisLoss();
#endif
#ifdef TJ_SET_LATE
		run LateSet();
#endif
#endif
		/* the primary's result read on the standby */
		run TierReaderStandby()
#else
		run StandbyLeader();
		run StandbyReader()
#endif
#endif
	}
}
