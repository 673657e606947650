/*-------------------------------------------------------------------------
 *
 * advice_hooks.c
 *		Owns the index advice's Init (its settings are advice_guc.c's) and
 *		its parts of the hooks core_hooks.c dispatches: ExecutorStart picks the
 *		sampled top-level statements and asks for row counts, ExecutorEnd
 *		records them and counts writes, ProcessUtility counts COPY FROM and
 *		TRUNCATE (advice_activity.c records them at the transaction's
 *		end), and the transaction callback forgets what failed.  The
 *		result cache tells it of each committed invalidation through the
 *		callback AdviceInit() registers (and of each starved window through
 *		advice_window.c's).
 *
 * Only top-level statements are sampled (not those run inside functions or
 * utility commands such as DECLARE CURSOR; EXECUTE and EXPLAIN ANALYZE
 * count as top level), by core's statement nesting level
 * (common/base_nesting.c); writes are counted at every level. A statement
 * the result cache serves runs its real plan one level down, when it leads
 * or bypasses the cache (a hit scans nothing): that plan is sampled as the
 * statement's own (SfcAtClientLevel()).
 *
 * Nothing is sampled nor counted in a database where sfcache is not
 * created (SfcExtensionActive(), common/base_extension.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "access/parallel.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "common/pg_prng.h"
#include "executor/executor.h"
#include "executor/instrument.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "parser/parse_node.h"
#include "parser/parsetree.h"
#include "tcop/utility.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

#include "advice/advice_internal.h"

#define ADVICE_MAX_SAMPLED 8

/* Top-level statements being sampled (more than one with open cursors). */
static QueryDesc *advice_sampled[ADVICE_MAX_SAMPLED];
static int	advice_nsampled = 0;

/* The write analyzed last was drawn, and is sampled when it starts. */
static bool advice_drawn_write = false;

void
AdviceInit(void)
{
	AdviceGucInit();
	SfcShmemRegister(&AdviceShmemPart);
	/* after the record's part: its init reads the file into the record */
	SfcShmemRegister(&AdvicePersistShmemPart);
	CacheRegisterInvalidationCallback(AdviceActivityCommitted);
	AdviceWindowInit();
}

/* Could a client's statement starting now be sampled? */
static bool
advice_may_sample(void)
{
	return advice_enabled && advice_sample_rate > 0.0 && SfcAtClientLevel() &&
		!IsParallelWorker() && SfcExtensionActive();
}

/*
 * Draws still to lose before the next one wins, and the rate they were
 * counted for. Drawing once per sample the number of losing draws before
 * it (geometric: k with probability (1 - rate)^k * rate) gives the odds of
 * a draw per statement for a decrement per statement; a PRNG draw per
 * statement was a tenth of what sfcache added to a primary-key SELECT
 * (bench/callgrind-select).
 */
static double advice_losses_rate = -1.0;
static int64 advice_losses = 0;

static void
count_losses(void)
{
	double		u = pg_prng_double(&pg_global_prng_state);
	double		losses = floor(log1p(-u) / log1p(-advice_sample_rate));

	advice_losses_rate = advice_sample_rate;
	advice_losses = (int64) Min(losses, (double) PG_INT32_MAX);
}

/* Is this statement in the sampled share (sfcache.advice_sample_rate)? */
static bool
advice_draw(void)
{
	if (advice_sample_rate >= 1.0)
		return true;
	if (advice_losses_rate != advice_sample_rate)
		count_losses();
	if (advice_losses-- > 0)
		return false;
	count_losses();
	return true;
}

/*
 * post_parse_analyze (core_hooks.c), when sfcache computes the query ids
 * it needs (base_queryid.c): does this write (INSERT, UPDATE, DELETE,
 * MERGE) need one? Only a sampled statement's id is recorded. A client's
 * statement analyzed without parameters runs once, right after: it is
 * drawn now, gets an id only if drawn, and its ExecutorStart then samples
 * it without drawing again. One analyzed with parameters (the extended
 * protocol, PREPARE) may run many times: it always gets an id, and each
 * execution is drawn when it starts.
 */
bool
AdviceWantsQueryId(ParseState *pstate)
{
	if (!advice_may_sample())
		return false;
	if (pstate->p_paramref_hook != NULL)
		return true;
	if (!advice_draw())
		return false;
	advice_drawn_write = true;
	return true;
}

/* Should this statement's plan be recorded? */
static bool
advice_should_sample(PlannedStmt *stmt, int eflags)
{
	bool		write = stmt->commandType != CMD_SELECT;
	bool		drawn = write && advice_drawn_write;

	if (write)
		advice_drawn_write = false;
	if (!advice_may_sample() || (eflags & EXEC_FLAG_EXPLAIN_ONLY) ||
		advice_nsampled >= ADVICE_MAX_SAMPLED)
		return false;
	if (!write || !SfcQueryIdsOwn())
		return advice_draw();
	/* drawn at its parse analysis when it had to be (AdviceWantsQueryId) */
	return stmt->queryId != 0 && (drawn || advice_draw());
}

/* Forget queryDesc as sampled; was it? */
static bool
advice_take_sampled(QueryDesc *queryDesc)
{
	int			i;

	for (i = 0; i < advice_nsampled; i++)
	{
		if (advice_sampled[i] == queryDesc)
		{
			advice_sampled[i] = advice_sampled[--advice_nsampled];
			return true;
		}
	}
	return false;
}

/*
 * The transaction callback (core_hooks.c): a statement that failed never
 * reaches ExecutorEnd, so forget it at transaction end.
 */
void
AdviceXactEvent(XactEvent event)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT ||
		event == XACT_EVENT_COMMIT)
	{
		advice_nsampled = 0;
		advice_drawn_write = false;
	}
	/* DROP EXTENSION sfcache: nothing of the database is kept, nor written */
	if (event == XACT_EVENT_COMMIT && SfcExtensionDroppedInXact())
		AdviceStoreForgetDatabase(MyDatabaseId);
}

/*
 * The transaction callback again, after the cache's part (which told the
 * advice what a commit invalidated): record what is left of its writes.
 */
void
AdviceXactEnd(XactEvent event)
{
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PREPARE)
		AdviceActivityEnd(event == XACT_EVENT_COMMIT && SfcExtensionDroppedInXact());
}

/* ExecutorStart (core_hooks.c), before the plan starts. */
void
AdviceExecutorStart(QueryDesc *queryDesc, int eflags)
{
	if (advice_should_sample(queryDesc->plannedstmt, eflags))
	{
		queryDesc->instrument_options |= INSTRUMENT_ROWS;
		advice_sampled[advice_nsampled++] = queryDesc;
	}
}

/*
 * Count one write per result relation, at every nesting level.
 * "Invalidations" in sfcache.table_activity are counted apart, per
 * committed transaction, by the result cache's invalidation callback.
 */
static void
advice_count_writes(QueryDesc *queryDesc)
{
	PlannedStmt *stmt = queryDesc->plannedstmt;
	Bitmapset  *targets;
	int			rti = -1;

	if (!advice_enabled || (stmt->commandType == CMD_SELECT && !stmt->hasModifyingCTE) ||
		(queryDesc->estate->es_top_eflags & EXEC_FLAG_EXPLAIN_ONLY) ||
		!SfcExtensionActive())
		return;
	targets = SfcResultRelationRelids(stmt);
	while ((rti = bms_next_member(targets, rti)) >= 0)
		AdviceActivityWrite(rt_fetch(rti, stmt->rtable)->relid);
}

/* ExecutorEnd (core_hooks.c), before the executor shuts the plan down. */
void
AdviceExecutorEnd(QueryDesc *queryDesc)
{
	if (advice_take_sampled(queryDesc))
		AdviceRecordExecution(queryDesc);
	if (queryDesc->estate != NULL)
		advice_count_writes(queryDesc);
}

/*
 * ProcessUtility (core_hooks.c), after the command succeeded: COPY FROM and
 * TRUNCATE write without the executor, so count them here.
 */
void
AdviceUtilityDone(Node *stmt)
{
	ListCell   *lc;
	Oid			relid;

	if (!advice_enabled || !SfcExtensionActive())
		return;
	if (IsA(stmt, CopyStmt) && ((CopyStmt *) stmt)->is_from &&
		((CopyStmt *) stmt)->relation != NULL)
	{
		relid = RangeVarGetRelid(((CopyStmt *) stmt)->relation, NoLock, true);
		if (OidIsValid(relid))
			AdviceActivityWrite(relid);
	}
	else if (IsA(stmt, TruncateStmt))
	{
		foreach(lc, ((TruncateStmt *) stmt)->relations)
		{
			relid = RangeVarGetRelid(lfirst_node(RangeVar, lc), NoLock, true);
			if (OidIsValid(relid))
				AdviceActivityWrite(relid);
		}
	}
}
