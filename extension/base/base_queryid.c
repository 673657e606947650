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

/* Set query's id as the core would (post_parse_analyze, sfcache's own ids). */
JumbleState *
SfcComputeQueryId(Query *query, const char *querytext)
{
	JumbleState *volatile jstate = NULL;

	query_id_enabled = true;
	PG_TRY();
	{
		jstate = SfcJumbleQuery(query, querytext);
	}
	PG_FINALLY();
	{
		query_id_enabled = false;
	}
	PG_END_TRY();
	return jstate;
}
