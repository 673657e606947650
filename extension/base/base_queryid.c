/*-------------------------------------------------------------------------
 *
 * base_queryid.c
 *		The query ids sfcache reads: PostgreSQL's own (the jumble of the
 *		analyzed query, what pg_stat_statements shows), computed by the
 *		core for every statement when something turned it on
 *		(compute_query_id = on, or pg_stat_statements loaded), and
 *		otherwise by sfcache for the statements that use one only (which
 *		ones: core_hooks.c's post_parse_analyze asks the subsystems).
 *
 * sfcache does not call EnableQueryId(): that would jumble every
 * statement, writes included, about 3,000 instructions each (a third of
 * what sfcache cost a TPC-B transaction). JumbleQuery() asserts that query
 * ids are enabled, so query_id_enabled is set around the call. With
 * compute_query_id = off, no statement has one.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "base/base.h"

/* Does sfcache compute the query ids it needs (the core computes none)? */
bool
SfcQueryIdsOwn(void)
{
	return compute_query_id != COMPUTE_QUERY_ID_OFF && !IsQueryIdEnabled();
}

/*
 * The jumble's state (a 1 kB buffer and the constants' locations) lives in
 * a context of its own, emptied when the context that was current at the
 * jumble (the message's, for a client's statement) is reset: allocated in
 * that context, it made the parse and plan that follow spill into a new
 * block on each statement (bench/callgrind-select). While it holds a state
 * (a parse analysis within another's hooks), a jumble allocates where the
 * core's would.
 */
static MemoryContext jumble_context = NULL;
static bool jumble_context_busy = false;

static void
jumble_context_release(void *arg)
{
	MemoryContextReset(jumble_context);
	jumble_context_busy = false;
}

/* Where to jumble: jumble_context when free, tied to the current context. */
static MemoryContext
jumble_context_take(void)
{
	MemoryContextCallback *release;

	if (jumble_context_busy)
		return CurrentMemoryContext;
	if (jumble_context == NULL)
		jumble_context = AllocSetContextCreate(TopMemoryContext, "sfcache query ids",
											   ALLOCSET_DEFAULT_SIZES);
	release = palloc(sizeof(MemoryContextCallback));
	release->func = jumble_context_release;
	release->arg = NULL;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, release);
	jumble_context_busy = true;
	return jumble_context;
}

/*
 * Set query's id as the core would (post_parse_analyze, sfcache's own
 * ids). The state returned lives as long as the current memory context.
 */
JumbleState *
SfcComputeQueryId(Query *query, const char *querytext)
{
	JumbleState *volatile jstate = NULL;
	MemoryContext old = MemoryContextSwitchTo(jumble_context_take());

	query_id_enabled = true;
	PG_TRY();
	{
		jstate = SfcJumbleQuery(query, querytext);
	}
	PG_FINALLY();
	{
		query_id_enabled = false;
		MemoryContextSwitchTo(old);
	}
	PG_END_TRY();
	return jstate;
}
