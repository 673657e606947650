/*-------------------------------------------------------------------------
 *
 * cache_scan.c
 *		The executor side of the sfcache custom scan. On its first row it
 *		computes the key (with the bound parameter values), asks
 *		cache_singleflight.c what to do, and then replays: a hit from the copied
 *		result, a leader or an uncached run from what its result receiver kept while
 *		running the saved query (cache_run.c).
 *
 * The hit path does no planning and starts no executor beyond this node:
 * one hash of the parameters, one shared lock to copy the result, and one
 * ExecStoreMinimalTuple per row. When cache_replay.c sends the rows
 * straight to the client (every column in text, the stored result has
 * DataRows), the copy is of the DataRows and each row is an all-null
 * virtual slot that only counts the row for the executor, while the
 * receiver sends the row's DataRow (CacheScanTakeDataRow).
 *
 * In observe mode (sfcache.cache = observe) a lookup that would have hit
 * or followed a leader runs the saved query itself instead (run_observed):
 * rows never come from the store, nor from the shared tier.
 *
 * A portal may be run again with another receiver, encoding or formats
 * (cache_replay.c decides at each ExecutorRun): when its first run has a
 * row limit, the scan keeps both forms of the rows and moves through them
 * in step, so each run can take either.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "catalog/pg_type.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/instrument.h"
#include "nodes/makefuncs.h"
#include "utils/snapmgr.h"
#include "utils/tuplestore.h"

#include "cache/cache_internal.h"

typedef struct CacheScanState
{
	CustomScanState css;
	CacheScanPrivate priv;
	bool		resolved;
	CacheOutcome outcome;
	bool		shared_hit;		/* a hit from the shared tier */
	CacheBypass bypass;
	bool		inactive;		/* sfcache not created in this database */
	char	   *rows;			/* serialised rows being replayed */
	Size		rows_len;
	Size		pos;
	Tuplestorestate *spill;		/* or rows from a tuplestore */
	TupleTableSlot *replay_slot;	/* minimal-tuple slot the rows go through */
	/* DataRow replay (cache_replay.c) */
	bool		send_datarows;	/* this ExecutorRun's receiver sends them */
	bool		may_run_again;	/* the first run had a row limit */
	char	   *datarows;		/* the rows as DataRows, or NULL */
	Size		datarows_len;
	Size		dpos;			/* the next row's DataRow */
	const char *row_body;		/* the row just returned, not yet sent */
	uint32		row_len;
	TupleTableSlot *count_slot; /* all-null virtual slot: a row to count */
	/* what this execution cost or saved, in microseconds (EXPLAIN ANALYZE) */
	uint64		exec_us;		/* its rows' leader execution: run here, or
								 * saved by a hit or a follower */
	uint64		window_us;		/* a leader's windows, after its run */
	uint64		waited_us;		/* waiting for leaders */
	uint64		planning_us;	/* making its one-shot cache plan */
	instr_time	started;		/* its lookup began */
	/* validity windows (cache_window.c) */
	CacheWindowProbe *probe;	/* this execution's windowed constants */
	StringInfoData windows;		/* the windows it was served or stored with */
	/* the plan a miss runs, and EXPLAIN shows under the node */
	const CustomScan *node;		/* the cache plan's own node (ps.plan becomes
								 * a copy under EXPLAIN) */
	PlannedStmt *child_stmt;
	QueryDesc  *child;			/* its executor, while EXPLAIN may show it */
	bool		child_display_only; /* started for EXPLAIN, never run */
} CacheScanState;

static Node *create_scan_state(CustomScan *cscan);
static void begin_scan(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_scan(CustomScanState *node);
static void end_scan(CustomScanState *node);
static void rescan(CustomScanState *node);
static void explain_scan(CustomScanState *node, List *ancestors, ExplainState *es);

const CustomScanMethods cache_scan_plan_methods = {
	.CustomName = "sfcache",
	.CreateCustomScanState = create_scan_state,
};

static const CustomExecMethods cache_scan_exec_methods = {
	.CustomName = "sfcache",
	.BeginCustomScan = begin_scan,
	.ExecCustomScan = exec_scan,
	.EndCustomScan = end_scan,
	.ReScanCustomScan = rescan,
	.ExplainCustomScan = explain_scan,
};

/* ---- custom_private ---- */

static Const *
int8_const(int64 value)
{
	return makeConst(INT8OID, -1, InvalidOid, sizeof(int64),
					 Int64GetDatum(value), false, FLOAT8PASSBYVAL);
}

/* The statement text becomes part of the list: the caller gives its own copy. */
List *
CacheScanPrivateToList(const CacheScanPrivate *priv)
{
	Const	   *hi = int8_const((int64) priv->key.hi);
	Const	   *lo = int8_const((int64) priv->key.lo);
	List	   *key = list_make2(hi, lo);
	List	   *ints = list_make4_int(priv->ttl_override_s, priv->ttl_default,
									  priv->cursor_options, priv->generic_plan);
	String	   *text = makeString(priv->query_string ? (char *) priv->query_string : pstrdup(""));

	return lappend(list_make5(priv->query, key, list_make4(priv->relids, priv->inh_roots,
														   priv->funcids, priv->tags),
							  ints, text),
				   CacheWindowSpecsToList(priv->windows));
}

static void
scan_private_from_list(List *list, CacheScanPrivate *priv)
{
	List	   *key = lsecond(list);
	List	   *oids = lthird(list);
	List	   *ints = lfourth(list);

	priv->query = linitial(list);
	priv->key.hi = (uint64) DatumGetInt64(((Const *) linitial(key))->constvalue);
	priv->key.lo = (uint64) DatumGetInt64(((Const *) lsecond(key))->constvalue);
	priv->relids = linitial(oids);
	priv->inh_roots = lsecond(oids);
	priv->funcids = lthird(oids);
	priv->tags = lfourth(oids);
	priv->ttl_override_s = linitial_int(ints);
	priv->ttl_default = lsecond_int(ints);
	priv->cursor_options = lthird_int(ints);
	priv->generic_plan = lfourth_int(ints);
	priv->query_string = strVal(list_nth(list, 4));
	priv->windows = CacheWindowSpecsFromList(list_nth(list, 5));
}

/*
 * The plan a miss of this cache plan runs (cache_child_plan.c), for an
 * execution that runs it without the cache (cache_cold.c); NULL if stmt
 * is not a cache plan.
 */
PlannedStmt *
CacheScanChildOfPlan(PlannedStmt *stmt, ParamListInfo params)
{
	CustomScan *node = (CustomScan *) stmt->planTree;
	CacheScanPrivate priv;
	PlannedStmt *child;

	if (node == NULL || !IsA(node, CustomScan) || node->methods != &cache_scan_plan_methods)
		return NULL;
	if ((child = CacheChildPlanKept(node)) != NULL)
		return child;
	scan_private_from_list(node->custom_private, &priv);
	return CacheChildPlan(node, &priv, stmt, params);
}

/* ---- executor methods ---- */

static Node *
create_scan_state(CustomScan *cscan)
{
	CacheScanState *state = palloc0(sizeof(CacheScanState));

	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &cache_scan_exec_methods;
	state->node = cscan;
	scan_private_from_list(cscan->custom_private, &state->priv);
	return (Node *) state;
}

/*
 * The node's estimates become its child's (what a miss costs), as EXPLAIN
 * shows them: the plan may be a cached one, so the node is given a copy.
 */
static void
adopt_child_estimates(CacheScanState *state)
{
	Plan	   *child = state->child_stmt->planTree;
	CustomScan *copy = palloc(sizeof(CustomScan));

	memcpy(copy, state->css.ss.ps.plan, sizeof(CustomScan));
	copy->scan.plan.startup_cost = child->startup_cost;
	copy->scan.plan.total_cost = child->total_cost;
	copy->scan.plan.plan_rows = child->plan_rows;
	copy->scan.plan.plan_width = child->plan_width;
	state->css.ss.ps.plan = (Plan *) copy;
}

/*
 * The plan of the saved query a miss runs (or EXPLAIN shows): the one kept
 * with a generic cache plan, or one planned with this execution's
 * parameters (cache_child_plan.c).
 */
static void
plan_child(CacheScanState *state)
{
	EState	   *estate = state->css.ss.ps.state;
	MemoryContext old = MemoryContextSwitchTo(estate->es_query_cxt);

	state->child_stmt = CacheChildPlan(state->node, &state->priv, estate->es_plannedstmt,
									   estate->es_param_list_info);
	adopt_child_estimates(state);
	MemoryContextSwitchTo(old);
}

/*
 * Run the child to its end into dest, with the given snapshot, and with
 * watch, the windows' bounds its scans see (cache_window_scan.c). Under
 * EXPLAIN ANALYZE (or anything else that counts the nodes' rows) its
 * executor is kept until the node ends, for EXPLAIN to show.
 */
static void
run_child(CacheScanState *state, Snapshot snapshot, DestReceiver *dest,
		  CacheWindowWatch **watch)
{
	EState	   *estate = state->css.ss.ps.state;
	QueryDesc  *qd;

	if (state->child_stmt == NULL)
		plan_child(state);
	qd = CacheRunSavedQuery(state->child_stmt, &state->priv, estate->es_param_list_info,
							snapshot, dest, estate->es_instrument,
							watch ? state->probe : NULL, watch);
	if (estate->es_instrument != 0)
		state->child = qd;
	else
		CacheEndSavedQuery(qd);
}

/*
 * The executor gives a custom scan a virtual scan slot; rows are replayed
 * as minimal tuples, through a slot of that kind with the same descriptor.
 * The plan's target list matches the descriptor, so no projection runs.
 * Under EXPLAIN the child is planned now, so that the node shows its
 * estimates; otherwise only a miss plans it.
 */
static void
begin_scan(CustomScanState *node, EState *estate, int eflags)
{
	CacheScanState *state = (CacheScanState *) node;

	if ((eflags & EXEC_FLAG_EXPLAIN_ONLY) || CacheExplaining())
		plan_child(state);

	/* as ExecInitExpr would for the plan a hit does not start */
	CacheCheckFunctionsExecutable(state->priv.funcids);
	state->replay_slot = ExecAllocTableSlot(&estate->es_tupleTable,
											node->ss.ss_ScanTupleSlot->tts_tupleDescriptor,
											&TTSOpsMinimalTuple, 0);
	state->count_slot = ExecAllocTableSlot(&estate->es_tupleTable,
										   node->ss.ss_ScanTupleSlot->tts_tupleDescriptor,
										   &TTSOpsVirtual, 0);
}

/* Microseconds from *start to now. */
static uint64
us_since(instr_time *start)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, *start);
	return (uint64) INSTR_TIME_GET_MICROSEC(now);
}

/*
 * What a leader spent working in the cache besides its own run: its
 * one-shot cache plan, key, lookup, windows and store; not its waits for
 * other leaders, which are no work (sfcache.cold_after weighs it,
 * cache_stats.c).
 */
static uint64
time_in_cache(CacheScanState *state)
{
	uint64		other = state->exec_us + state->waited_us;
	uint64		total = us_since(&state->started);

	return (total > other ? total - other : 0) + state->planning_us;
}

/*
 * Run the saved query without the cache, with the statement's own snapshot.
 * After a lookup (looked_up: no entry to lead, a wait timeout, no memory)
 * it is also an execution the cache did not serve, with its run and its
 * time in the cache, for the cold verdict.
 */
static void
run_uncached(CacheScanState *state, CacheBypass why, bool looked_up)
{
	EState	   *estate = state->css.ss.ps.state;
	CacheResultReceiver *rr = CacheResultReceiverCreate(0);
	instr_time	started;

	state->outcome = CACHE_RUN_UNCACHED;
	state->bypass = why;
	if (!looked_up)
		CacheStatsBypass(why, state->priv.query->queryId);
	INSTR_TIME_SET_CURRENT(started);
	run_child(state, estate->es_snapshot, (DestReceiver *) rr, NULL);
	state->spill = rr->spill;
	if (looked_up)
	{
		state->exec_us = us_since(&started);
		CacheStatsRanAlone(why, state->priv.query->queryId, state->exec_us,
						   time_in_cache(state));
	}
}

/*
 * Observe mode: an execution that a stored result (CACHE_OBSERVED_HIT) or
 * a leader computing (CACHE_OBSERVED_FOLLOWER) would have served runs its
 * own plan at once, with the statement's snapshot; its run is the time the
 * cache would have saved.
 */
static void
run_observed(CacheScanState *state, CacheOutcome outcome)
{
	EState	   *estate = state->css.ss.ps.state;
	CacheResultReceiver *rr = CacheResultReceiverCreate(0);
	instr_time	started;

	INSTR_TIME_SET_CURRENT(started);
	run_child(state, estate->es_snapshot, (DestReceiver *) rr, NULL);
	state->exec_us = us_since(&started);
	state->spill = rr->spill;
	CacheStatsObserved(outcome == CACHE_OBSERVED_HIT ?
					   CACHE_STAT_OBSERVED_HITS : CACHE_STAT_OBSERVED_COALESCED,
					   outcome == CACHE_OBSERVED_HIT && state->probe != NULL &&
					   state->probe->by_window,
					   state->priv.query->queryId, state->exec_us);
}

/* Run the saved query in a database where sfcache is not created: uncounted. */
static void
run_inactive(CacheScanState *state)
{
	EState	   *estate = state->css.ss.ps.state;
	CacheResultReceiver *rr = CacheResultReceiverCreate(0);

	state->outcome = CACHE_RUN_UNCACHED;
	state->bypass = CACHE_BYPASS_DISABLED;
	state->inactive = true;
	run_child(state, estate->es_snapshot, (DestReceiver *) rr, NULL);
	state->spill = rr->spill;
}

/*
 * A leader served from the shared tier (cache_shared.c): a hit, adopted
 * into the local store with the generations read before the tier's rule
 * was checked, under the local store rule (the caller checked it).
 */
static void
serve_shared(CacheScanState *state, CacheKey key, const CacheGenSnapshot *gens,
			 CachedResult *result)
{
	(void) CacheSingleflightPublish(key, gens, result, &state->windows,
									CacheStatementTtl(state->priv.ttl_override_s,
													  state->priv.ttl_default),
									CacheAdmitRecordMiss(key));
	state->outcome = CACHE_HIT;
	state->shared_hit = true;
	state->rows = result->data;
	state->rows_len = result->len;
	if (state->send_datarows || state->may_run_again)
	{
		state->datarows = result->datarows;
		state->datarows_len = result->datarows_len;
	}
}

/*
 * The leader's result, with state->bypass decided: give the key up to the
 * followers if it cannot be stored, else publish it locally (and into the
 * shared tier when the local store rule took it).
 */
static void
publish_leader_result(CacheScanState *state, CacheKey key, CacheResultReceiver *rr,
					  CacheGenSnapshot *gens, CacheSharedLead *shared,
					  TupleDesc tupdesc, int ttl_s, bool keep)
{
	if (state->bypass != CACHE_BYPASS_NONE)
	{
		CacheSingleflightAbandon(key, CACHE_ABANDON_RUN_ALONE, state->bypass);
		state->spill = rr->spill;
	}
	else
	{
		CachedResult result = {rr->buf.data, rr->buf.len};

		result.exec_us = state->exec_us;

		if (rr->text_rows)
		{
			result.datarows = rr->datarows.data;
			result.datarows_len = rr->datarows.len;
		}

		state->bypass = CacheSingleflightPublish(key, gens, &result, &state->windows,
												 ttl_s, keep);
		/* computed under the local store rule, not stale at publish */
		CacheSharedFinish(shared, state->bypass == CACHE_BYPASS_NONE ||
						  state->bypass == CACHE_BYPASS_NOT_ADMITTED ||
						  state->bypass == CACHE_BYPASS_NO_MEMORY,
						  &result, tupdesc, ttl_s);
	}
}

/*
 * Run the saved query as leader of entry_key (key's, or one of its window
 * entries: admission counts key): read the generations of its relations,
 * then (with the shared tier) serve another node's result or take the
 * cross-node lock, then take the snapshot it runs with, then publish what
 * it returned (and put it into the shared tier).
 */
static void
run_as_leader(CacheScanState *state, CacheKey key, CacheKey entry_key)
{
	EState	   *estate = state->css.ss.ps.state;
	TupleDesc	tupdesc = state->css.ss.ss_ScanTupleSlot->tts_tupleDescriptor;
	CacheResultReceiver *rr = CacheResultReceiverCreate((Size) cache_max_entry_size_kb * 1024);
	CacheGenSnapshot gens;
	CacheSharedLead shared = {0};
	CachedResult from_shared = {0};
	bool		served = false;
	uint32		counters[CACHE_MAX_COUNTERS];
	int			ncounters;
	bool		storable;
	CacheBypass standby_why = CACHE_BYPASS_NONE;
	int			ttl_s = CacheStatementTtl(state->priv.ttl_override_s, state->priv.ttl_default);
	bool		keep = false;
	CacheWindowWatch *watch = NULL;
	instr_time	started;

	state->outcome = CACHE_LEADER;
	PG_TRY();
	{
		/* the shared tier's L, before the generations */
		CacheSharedStart(&shared, key, state->priv.query->queryId, state->probe == NULL);
		ncounters = CacheResultCounters(state->priv.relids, state->priv.tags,
										estate->es_param_list_info, counters);
		storable = CacheGenSnapshotTake(counters, ncounters, &gens);
		/* a standby: after the generations, before the snapshot */
		if (storable && RecoveryInProgress())
			standby_why = CacheCheckStandby(state->priv.relids, true);
		if (storable && standby_why == CACHE_BYPASS_NONE)
			served = CacheSharedFetch(&shared, state->priv.relids, counters, ncounters,
									  tupdesc, &from_shared);
		else
			CacheSharedFinish(&shared, false, NULL, tupdesc, 0);
	}
	PG_CATCH();
	{
		CacheSharedFinish(&shared, false, NULL, tupdesc, 0);
		CacheSingleflightAbandon(entry_key, CACHE_ABANDON_RETRY, CACHE_BYPASS_NONE);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (served)
	{
		serve_shared(state, entry_key, &gens, &from_shared);
		return;
	}

	PG_TRY();
	{
		PushActiveSnapshot(GetTransactionSnapshot());
		if (storable && RecoveryInProgress() && standby_why == CACHE_BYPASS_NONE &&
			!CacheCheckStandbySnapshot(GetActiveSnapshot()))
			standby_why = CACHE_BYPASS_COMMIT_IN_FLIGHT;
		SfcTestHoldOnAdvisoryLock(cache_test_hold_leader_lock);
		/* admission before the run: windows only for a result to be kept */
		keep = storable && standby_why == CACHE_BYPASS_NONE &&
			(cache_cache_mode == CACHE_MODE_ON || cache_cache_mode == CACHE_MODE_OBSERVE) &&
			CacheAdmitRecordMiss(key);
		INSTR_TIME_SET_CURRENT(started);
		run_child(state, GetActiveSnapshot(), (DestReceiver *) rr,
				  keep && state->probe != NULL ? &watch : NULL);
		state->exec_us = us_since(&started);
		/* the windows, with the snapshot the result used */
		if (storable && rr->spill == NULL)
		{
			INSTR_TIME_SET_CURRENT(started);
			CacheWindowsCompute(state->probe, watch, keep, estate->es_param_list_info,
								GetActiveSnapshot(), state->priv.query->queryId,
								&state->windows);
			state->window_us = us_since(&started);
		}
		PopActiveSnapshot();
	}
	PG_CATCH();
	{
		CacheSharedFinish(&shared, false, NULL, tupdesc, 0);
		CacheSingleflightAbandon(entry_key, CACHE_ABANDON_RETRY, CACHE_BYPASS_NONE);
		PG_RE_THROW();
	}
	PG_END_TRY();

	if (rr->spill != NULL)
		state->bypass = CACHE_BYPASS_TOO_LARGE;
	else if (!storable)
		state->bypass = CACHE_BYPASS_COMMIT_IN_FLIGHT;
	else if (standby_why != CACHE_BYPASS_NONE)
		state->bypass = standby_why;
	publish_leader_result(state, entry_key, rr, &gens, &shared, tupdesc, ttl_s, keep);
	CacheSharedFinish(&shared, false, NULL, tupdesc, 0);
	CacheStatsLeader(state->bypass, state->priv.query->queryId, state->exec_us,
					 state->window_us, time_in_cache(state));
	state->rows = rr->buf.data;
	state->rows_len = rr->buf.len;
	if ((state->send_datarows || state->may_run_again) && rr->spill == NULL &&
		rr->text_rows)
	{
		state->datarows = rr->datarows.data;
		state->datarows_len = rr->datarows.len;
	}
}

/* Decide, on the first row, how this execution gets its rows. */
static void
resolve(CacheScanState *state)
{
	ParamListInfo params = state->css.ss.ps.state->es_param_list_info;
	uint64		queryid = state->priv.query->queryId;
	CacheBypass why = CacheCheckRuntimeBypass(state->priv.relids);
	CacheKey	key;
	CacheKey	entry_key;
	CachedResult result;
	Bitmapset  *windowed_params;

	state->resolved = true;
	INSTR_TIME_SET_CURRENT(state->started);
	state->planning_us = CacheStatsPlanMadeUs(state->css.ss.ps.state->es_plannedstmt, true);
	if (!SfcExtensionActive())
	{
		/* dropped since this plan was made: as if there were no sfcache */
		run_inactive(state);
		return;
	}
	if (why == CACHE_BYPASS_NONE)
		why = CacheCheckHierarchies(state->priv.inh_roots);
	if (why == CACHE_BYPASS_NONE && params != NULL && params->paramFetch != NULL)
		why = CACHE_BYPASS_NOT_SELECT;
	if (why != CACHE_BYPASS_NONE)
	{
		run_uncached(state, why, false);
		return;
	}

	if (state->priv.key.hi == 0 && state->priv.key.lo == 0)
		state->priv.key = CacheKeyForStatement(state->priv.query, state->priv.query_string,
											   (int) strlen(state->priv.query_string),
											   CacheWindowedConsts(state->priv.windows));
	state->probe = CacheWindowProbeMake(state->priv.windows, params, &windowed_params);
	if (state->probe != NULL)
	{
		initStringInfo(&state->windows);
		/* EXPLAIN ANALYZE shows the windows a hit was served by */
		state->probe->keep_copy = state->css.ss.ps.state->es_instrument != 0;
	}
	key = CacheKeyWithParams(state->priv.key, params, windowed_params);
	result.started = state->started;
	result.planning_us = state->planning_us;
	result.want_datarows = state->send_datarows;
	result.want_both = state->may_run_again;
	state->outcome = CacheSingleflightBegin(key, &entry_key, queryid, &result, state->probe,
											&why);
	state->waited_us = result.waited_us;
	switch (state->outcome)
	{
		case CACHE_HIT:
		case CACHE_FOLLOWER_HIT:
			state->exec_us = result.exec_us;
			if (state->probe != NULL && state->probe->copy != NULL)
				appendBinaryStringInfo(&state->windows, state->probe->copy,
									   state->probe->copy_len);
			state->rows = result.data;
			state->rows_len = result.len;
			state->datarows = result.datarows;
			state->datarows_len = result.datarows_len;
			break;
		case CACHE_LEADER:
			/* a key that hits was led first: counting leaders counts keys */
			CacheStatsKeySeen(queryid, key);
			run_as_leader(state, key, entry_key);
			break;
		case CACHE_RUN_UNCACHED:
			run_uncached(state, why, true);
			break;
		case CACHE_OBSERVED_HIT:
		case CACHE_OBSERVED_FOLLOWER:
			run_observed(state, state->outcome);
			break;
	}
}

static TupleTableSlot *
next_row(ScanState *ss)
{
	CacheScanState *state = (CacheScanState *) ss;
	TupleTableSlot *slot = state->replay_slot;
	MinimalTuple mt;

	if (!state->resolved)
		resolve(state);

	if (state->spill != NULL)
	{
		if (!tuplestore_gettupleslot(state->spill, true, false, slot))
			return ExecClearTuple(slot);
		return slot;
	}
	if (state->datarows != NULL && state->send_datarows)
	{
		uint32		len;

		if (state->dpos >= state->datarows_len)
			return ExecClearTuple(state->count_slot);
		memcpy(&len, state->datarows + state->dpos, sizeof(len));
		state->row_body = state->datarows + state->dpos + sizeof(len);
		state->row_len = len;
		state->dpos += sizeof(len) + len;
		/* the tuples, if kept, move in step */
		if (state->rows != NULL && state->pos < state->rows_len)
			state->pos += MAXALIGN(((MinimalTuple) (state->rows + state->pos))->t_len);
		/* nothing reads or clears it between rows: store it once */
		if (TTS_EMPTY(state->count_slot))
			ExecStoreAllNullTuple(state->count_slot);
		return state->count_slot;
	}
	/* only DataRows were copied, for a first run without a row limit */
	if (state->rows == NULL)
		elog(ERROR, "sfcache: stored DataRows without a receiver to send them");
	if (state->pos >= state->rows_len)
		return ExecClearTuple(slot);
	mt = (MinimalTuple) (state->rows + state->pos);
	state->pos += MAXALIGN(mt->t_len);
	if (state->datarows != NULL && state->dpos < state->datarows_len)
	{
		uint32		len;

		memcpy(&len, state->datarows + state->dpos, sizeof(len));
		state->dpos += sizeof(len) + len;
	}
	return ExecStoreMinimalTuple(mt, slot, false);
}

static bool
recheck_row(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

static TupleTableSlot *
exec_scan(CustomScanState *node)
{
	return ExecScan(&node->ss, next_row, recheck_row);
}

static void
end_scan(CustomScanState *node)
{
	CacheScanState *state = (CacheScanState *) node;

	if (state->spill != NULL)
		tuplestore_end(state->spill);
	if (state->child != NULL && state->child_display_only)
	{
		standard_ExecutorEnd(state->child);
		FreeQueryDesc(state->child);
	}
	else if (state->child != NULL)
		CacheEndSavedQuery(state->child);
	state->child = NULL;
}

static void
rescan(CustomScanState *node)
{
	CacheScanState *state = (CacheScanState *) node;

	state->pos = 0;
	state->dpos = 0;
	if (state->spill != NULL)
		tuplestore_rescan(state->spill);
}

static const char *
outcome_name(CacheScanState *state)
{
	switch (state->outcome)
	{
		case CACHE_HIT:
			return state->shared_hit ? "hit (shared tier)" : "hit";
		case CACHE_FOLLOWER_HIT:
			return "follower";
		case CACHE_LEADER:
			return state->bypass == CACHE_BYPASS_NONE ? "leader" : "leader, not stored";
		case CACHE_RUN_UNCACHED:
			return "bypass";
		case CACHE_OBSERVED_HIT:
			return "observed hit (not served)";
		case CACHE_OBSERVED_FOLLOWER:
			return "observed follower (not served)";
	}
	return "unknown";
}

/*
 * EXPLAIN ANALYZE's times of the cache (the child's own are under it):
 * what a leader spent on its windows after the run, what a served
 * execution saved (its leader's run; unknown for the shared tier's), and
 * what it waited for leaders.
 */
static void
explain_times(CacheScanState *state, ExplainState *es)
{
	if (state->outcome == CACHE_LEADER && state->probe != NULL)
		ExplainPropertyFloat("Cache Window Time", "ms", state->window_us / 1000.0, 3, es);
	if ((state->outcome == CACHE_HIT && !state->shared_hit) ||
		state->outcome == CACHE_FOLLOWER_HIT)
		ExplainPropertyFloat("Cache Saved Time", "ms", state->exec_us / 1000.0, 3, es);
	if (state->waited_us > 0)
		ExplainPropertyFloat("Cache Wait Time", "ms", state->waited_us / 1000.0, 3, es);
}

/*
 * The child's executor as EXPLAIN shows it: the one that ran, or else one
 * started for EXPLAIN only (a hit, plain EXPLAIN, auto_explain), without
 * the hooks: nothing samples or logs it. Its nodes never run ("never
 * executed" under ANALYZE).
 */
static QueryDesc *
child_for_explain(CacheScanState *state)
{
	EState	   *estate = state->css.ss.ps.state;
	MemoryContext old;
	bool		pushed = false;

	if (state->child != NULL)
		return state->child;
	old = MemoryContextSwitchTo(estate->es_query_cxt);
	if (!ActiveSnapshotSet())
	{
		PushActiveSnapshot(estate->es_snapshot);
		pushed = true;
	}
	if (state->child_stmt == NULL)
		plan_child(state);
	state->child = CreateQueryDesc(state->child_stmt, state->priv.query_string,
								   estate->es_snapshot, InvalidSnapshot, None_Receiver,
								   estate->es_param_list_info, NULL, estate->es_instrument);
	state->child_display_only = true;
	standard_ExecutorStart(state->child, EXEC_FLAG_EXPLAIN_ONLY);
	if (estate->es_instrument != 0)
		SfcExplainOnlyInstrument(state->child->planstate);
	if (pushed)
		PopActiveSnapshot();
	MemoryContextSwitchTo(old);
	return state->child;
}

/*
 * EXPLAIN: the cache's outcome and settings as the node's properties (a
 * new property is one more line here), then the plan a miss runs as the
 * node's child.
 */
static void
explain_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	CacheScanState *state = (CacheScanState *) node;

	if (!state->resolved)
		ExplainPropertyText("Cache", "not executed", es);
	else
	{
		ExplainPropertyText("Cache", outcome_name(state), es);
		if (state->inactive)
			ExplainPropertyText("Cache Bypass", "extension not created in this database", es);
		else if (state->bypass != CACHE_BYPASS_NONE)
			ExplainPropertyText("Cache Bypass", CacheBypassReasonName(state->bypass), es);
	}
	if (state->resolved && state->windows.len > 0)
		CacheWindowsExplain(state->probe, state->windows.data, state->windows.len, es);
	if (state->resolved && es->analyze && es->timing)
		explain_times(state, es);
	if (cache_cache_mode == CACHE_MODE_OBSERVE)
		ExplainPropertyText("Cache Mode", "observe (results kept, not served)", es);
	ExplainPropertyInteger("Cache TTL", "s",
						   CacheStatementTtl(state->priv.ttl_override_s, state->priv.ttl_default), es);
	if (es->verbose)
	{
		char		key[33];

		snprintf(key, sizeof(key), "%016llx%016llx",
				 (unsigned long long) state->priv.key.hi,
				 (unsigned long long) state->priv.key.lo);
		ExplainPropertyText("Cache Key", key, es);
	}
	CacheExplainChild(node, child_for_explain(state), es);
}

/* Is this plan state a cache scan? */
bool
CacheScanIsCacheScan(PlanState *planstate)
{
	return planstate != NULL && IsA(planstate, CustomScanState) &&
		((CustomScanState *) planstate)->methods == &cache_scan_exec_methods;
}

/*
 * A cache scan's ExecutorRun is about to start (cache_replay.c): whether
 * its receiver sends DataRows this time, and, before the first row, whether
 * the portal may be run again (then both forms of the rows are kept).
 */
void
CacheScanStartRun(PlanState *planstate, bool send_datarows, bool may_run_again)
{
	CacheScanState *state = (CacheScanState *) planstate;

	state->send_datarows = send_datarows;
	if (!state->resolved)
		state->may_run_again = may_run_again;
}

/* The DataRow of the row the scan returned last, once; false: none. */
bool
CacheScanTakeDataRow(PlanState *planstate, const char **body, uint32 *len)
{
	CacheScanState *state = (CacheScanState *) planstate;

	if (state->row_body == NULL)
		return false;
	*body = state->row_body;
	*len = state->row_len;
	state->row_body = NULL;
	return true;
}

/*
 * ExecutorEnd (core_hooks.c), before the index advice walks the plan: the
 * child EXPLAIN hung under the cache node is not part of the plan (a run
 * child records itself when it ends; one started for EXPLAIN ran nothing).
 */
void
CacheExecutorEnd(QueryDesc *queryDesc)
{
	PlanState  *planstate = queryDesc->planstate;

	if (planstate != NULL && IsA(planstate, CustomScanState) &&
		((CustomScanState *) planstate)->methods == &cache_scan_exec_methods)
		((CustomScanState *) planstate)->custom_ps = NIL;
}

void
CacheScanInit(void)
{
	RegisterCustomScanMethods(&cache_scan_plan_methods);
}
