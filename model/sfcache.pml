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
bit s_infl[2];					/* (b): xid's sfcache record replayed, its commit not yet */
bit hb_covers_other = 0;		/* ghost: a watermark >= other_lsn reached the standby */

/*
 * ---- a writing transaction on the primary (cache_inval_commit.c
 * CacheXactEvent; bus_shmem.c BusCommitCallback) ----
 */
proctype Writer(byte i)
{
	byte lsn;

#ifdef PRIMARY_SIDE
	/* XACT_EVENT_PRE_COMMIT: CacheCountersBeforeCommit */
	d_step {
#ifndef NO_PRECOMMIT_BUMP
		p_gen++;
#endif
		p_inflight++
	}
#elif !defined(WAL_INVAL)
	/* announce_commit(CACHE_COMMIT_BEGIN): the mark, before the commit record */
	mark[i] = insert_lsn;
#endif
#if defined(WAL_INVAL) && !defined(WAL_INVAL_AFTER_COMMIT)
	/* (b): XLogInsert of sfcache's record (its counters, its xid) at PRE_COMMIT */
	d_step { insert_lsn++; wal_kind[insert_lsn] = REC_INVAL; wal_xid[insert_lsn] = i }
#endif
	/* RecordTransactionCommit, ProcArrayEndTransaction: the commit is visible */
	d_step {
		insert_lsn++; wal_kind[insert_lsn] = REC_COMMIT; wal_xid[insert_lsn] = i;
		lsn = insert_lsn;		/* XactLastCommitEnd */
		p_visible++
	}
#if defined(WAL_INVAL) && defined(WAL_INVAL_AFTER_COMMIT)
	d_step { insert_lsn++; wal_kind[insert_lsn] = REC_INVAL; wal_xid[insert_lsn] = i }
#endif
#ifdef PRIMARY_SIDE
	/* XACT_EVENT_COMMIT: CacheCountersAfterCommit */
	d_step {
#ifndef NO_COMMIT_BUMP
		p_gen++;
#endif
		p_inflight--;
		writers_done++
	}
#elif !defined(WAL_INVAL)
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
#else
	d_step { writers_done++; lsn = 0 }
#endif
}

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
			n = (!ch[0].used -> 0 : (!ch[1].used -> 1 : 2));
			ch[n].kind = k; ch[n].seq = s; ch[n].lsn = l; ch[n].wm = w;
			ch[n].highest = h; ch[n].inc = inc; ch[n].used = 1;
			n = 0
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
			d_step { seq++; highest = max(highest, insert_lsn); ovf = 0 }
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
		d_step { inc = 1 - inc; seq = 0; last_w = 0; disconnected = 0 }
	:: !disconnected && writers_done == NWRITERS && q_head == q_tail && !overflow &&
	   last_w == insert_lsn ->
		break
	od;
	pworker_done = 1
}

/* ---- the standby's startup process (xlogrecovery.c ApplyWalRecord) ---- */
proctype Startup()
{
	byte next;

	do
	:: replayed < insert_lsn && wal_kind[replayed + 1] == REC_COMMIT ->
		/* (streamed: the record is on the standby) before the redo */
		d_step { next = replayed + 1; replay_end = next }
		/* rm_redo: xact_redo_commit makes the commit visible */
		d_step { s_visible++; s_infl[wal_xid[next]] = 0 }
		/* after the redo */
		d_step { replayed = next; next = 0 }
	:: replayed < insert_lsn && wal_kind[replayed + 1] == REC_INVAL ->
		/* (b) the custom resource manager's redo: bump, in flight */
		d_step {
			next = replayed + 1;
			replay_end = next;
			s_gen++;
#ifndef WAL_INVAL_AFTER_COMMIT
			s_infl[wal_xid[next]] = 1;
#endif
			replayed = next; next = 0
		}
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

	do
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
			pending = max(pending, m.lsn)
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
		s_gen++
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

/* ---- a leader on the standby (cache_scan.c run_as_leader) ---- */
proctype StandbyLeader()
{
	byte g, snap, h, rp;
	bit quiet = 1, ok = 1;

	g = s_gen;					/* CacheGenSnapshotTake */
#ifdef WAL_INVAL
#ifndef NO_WAL_INFLIGHT
	/* (b): refused while a writer whose record bumped is unresolved */
	quiet = !s_infl[0];
	quiet = quiet && !s_infl[1];
#endif
#else
	/* CacheCheckStandby, after the generations, before the snapshot */
	rp = replayed;				/* GetXLogReplayRecPtr: every commit to it is visible */
	standby_check(rp, ok);
#endif
	snap = s_visible;			/* the snapshot */
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
#ifdef BLIND_CHECK
			/* a hit although no watermark has covered that record */
			assert(hb_covers_other)
#endif
		:: else -> skip
		fi;
		snap = 0; rp = 0; ok = 0	/* dead */
	}
}

init
{
	atomic {
		run Writer(0);
#if NWRITERS > 1
		run Writer(1);
#endif
#ifdef PRIMARY_SIDE
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
		run StandbyLeader();
		run StandbyReader()
#endif
	}
}
