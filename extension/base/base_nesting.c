/*-------------------------------------------------------------------------
 *
 * base_nesting.c
 *		Owns the statement nesting level, like pg_stat_statements' own:
 *		0 while the client's statement runs, one more inside each executor
 *		run or finish and each utility statement other than EXPLAIN and
 *		EXECUTE (whose statement is the client's own). core_hooks.c keeps
 *		it; the subsystems read it.
 *
 * A cached statement runs its real plan one level down when it leads or
 * bypasses the cache; while that plan's executor starts, it counts as the
 * client's statement (SfcAtClientLevel()), so that the index advice
 * samples it as the statement's own.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"

#include "base/base.h"

int			sfc_nesting_level = 0;

/* True while SfcExecutorStartForClient() runs ExecutorStart. */
static bool starting_for_client = false;

/* Does this utility statement run its queries one level down? */
bool
SfcUtilityNests(Node *stmt)
{
	return !IsA(stmt, ExplainStmt) && !IsA(stmt, ExecuteStmt);
}

/* Is the statement being started the client's own? */
bool
SfcAtClientLevel(void)
{
	return sfc_nesting_level == 0 || starting_for_client;
}

/* ExecutorStart of a plan that stands for the client's statement. */
void
SfcExecutorStartForClient(QueryDesc *queryDesc, int eflags)
{
	starting_for_client = true;
	PG_TRY();
	{
		ExecutorStart(queryDesc, eflags);
	}
	PG_FINALLY();
	{
		starting_for_client = false;
	}
	PG_END_TRY();
}
