/*-------------------------------------------------------------------------
 *
 * cache_guc.c
 *		The result cache's settings (sfcache.cache, sfcache.memory, ...).
 *
 * Settings that size shared memory are PGC_POSTMASTER; the others can be
 * set per database, role or session. sfcache.test_hold_leader_lock is for
 * the isolation tests only: a leader waits on that advisory lock once it has
 * taken its snapshot, so a test can hold it while followers arrive or a
 * writer commits; sfcache.test_hold_follower_lock holds a follower once it
 * has registered (isolationtester sees lock waits, not condition variable
 * sleeps); sfcache.test_hold_commit_lock holds a writer between its
 * pre-commit and commit bumps.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_proc.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "parser/scansup.h"
#include "utils/builtins.h"
#include "utils/catcache.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/varlena.h"

#include "cache/cache_internal.h"

int			cache_cache_mode = CACHE_MODE_ON;
int			cache_memory_mb = 64;
int			cache_max_entries = 10000;
int			cache_max_entry_size_kb = 1024;
int			cache_ttl_s = 300;
int			cache_wait_timeout_ms = 10000;
int			cache_cold_after = 100;
int			cache_shared_min_duration_ms = -1;
int			cache_max_statements = 1000;
int			cache_max_tags_per_transaction = 10000;
bool		cache_wal_invalidations = false;
char	   *cache_immutable_functions = NULL;
bool		cache_admission = true;
int			cache_admission_window = 0;
int			cache_admission_period_s = 60;
int			cache_test_admission_clock_s = -1;
int			cache_test_added_cache_time_ms = 0;
int			cache_test_hold_leader_lock = 0;
int			cache_test_hold_commit_lock = 0;
int			cache_test_hold_follower_lock = 0;

static const struct config_enum_entry cache_mode_options[] = {
	{"off", CACHE_MODE_OFF, false},
	{"coalesce", CACHE_MODE_COALESCE, false},
	{"on", CACHE_MODE_ON, false},
	{"observe", CACHE_MODE_OBSERVE, false},
	{NULL, 0, false}
};

/* Has this database a function of this name (name, or schema.name)? */
static bool
function_name_exists(const char *entry)
{
	const char *dot = strchr(entry, '.');
	CatCList   *procs = SearchSysCacheList1(PROCNAMEARGSNSP,
											CStringGetDatum(dot ? dot + 1 : entry));
	bool		found = false;

	for (int i = 0; i < procs->n_members && !found; i++)
	{
		Form_pg_proc proc = (Form_pg_proc) GETSTRUCT(&procs->members[i]->tuple);
		char	   *schema;

		if (dot == NULL)
		{
			found = true;
			break;
		}
		schema = get_namespace_name(proc->pronamespace);
		found = schema != NULL && strncmp(schema, entry, dot - entry) == 0 &&
			schema[dot - entry] == '\0';
	}
	ReleaseSysCacheList(procs);
	return found;
}

/*
 * ProcessUtility (core_hooks.c), after a command succeeded: a SET, ALTER
 * SYSTEM or ALTER ROLE/DATABASE ... SET of sfcache.immutable_functions
 * that names no function of this database warns; the name is kept (a
 * function created later may take it). Not in the check hook: it also runs
 * in parallel workers, for a function's SET clause at each call and at
 * reloads, each of which would warn again.
 */
void
CacheGucUtilityDone(Node *stmt)
{
	VariableSetStmt *set = NULL;
	char	   *value;
	List	   *names;
	ListCell   *lc;

	if (IsA(stmt, VariableSetStmt))
		set = (VariableSetStmt *) stmt;
	else if (IsA(stmt, AlterSystemStmt))
		set = ((AlterSystemStmt *) stmt)->setstmt;
	else if (IsA(stmt, AlterRoleSetStmt))
		set = ((AlterRoleSetStmt *) stmt)->setstmt;
	else if (IsA(stmt, AlterDatabaseSetStmt))
		set = ((AlterDatabaseSetStmt *) stmt)->setstmt;
	if (set == NULL || set->kind != VAR_SET_VALUE || set->name == NULL ||
		strcmp(set->name, "sfcache.immutable_functions") != 0 ||
		!IsTransactionState() || !OidIsValid(MyDatabaseId) ||
		(value = ExtractSetVariableArgs(set)) == NULL ||
		!SplitIdentifierString(value, ',', &names))
		return;
	foreach(lc, names)
	{
		const char *name = lfirst(lc);

		if (!function_name_exists(name))
			ereport(WARNING,
					(errcode(ERRCODE_UNDEFINED_FUNCTION),
					 errmsg("sfcache.immutable_functions names \"%s\", which is no function of this database", name),
					 errdetail("The name is kept: a function created later under it will be cached as if immutable."),
					 errhint("Check the spelling, and the schema if the name has one.")));
	}
}

/*
 * sfcache.immutable_functions: a comma-separated list of function names,
 * each name or schema.name (identifiers, quoted or not).  Anything else
 * would be accepted and then match nothing, so it is refused at SET.
 */
static bool
check_immutable_functions(char **newval, void **extra, GucSource source)
{
	char	   *copy;
	List	   *names;
	ListCell   *lc;
	const char *p;
	bool		ok = true;

	if (*newval == NULL)
		return true;
	for (p = *newval; *p != '\0' && scanner_isspace(*p); p++)
		;
	if (*p == '\0')
		return true;			/* empty: no function */
	copy = pstrdup(*newval);
	if (!SplitIdentifierString(copy, ',', &names))
		ok = false;
	else
	{
		foreach(lc, names)
		{
			const char *name = lfirst(lc);
			const char *dot = strchr(name, '.');

			if (name[0] == '\0' || dot == name || (dot != NULL && dot[1] == '\0') ||
				(dot != NULL && strchr(dot + 1, '.') != NULL))
				ok = false;
		}
		list_free(names);
	}
	pfree(copy);
	if (!ok)
	{
		GUC_check_errdetail("sfcache.immutable_functions must be a comma-separated list of function names, each name or schema.name, such as \"now, public.current_tenant\".");
		GUC_check_errhint("Quote a name with double quotes; leave no element empty.");
	}
	return ok;
}

/* Test-only settings: not shown, not in the sample file, not reset. */
#define CACHE_TEST_GUC_FLAGS (GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE | GUC_NO_RESET_ALL)

static bool cache_enable_test_holds = false;

/*
 * The test settings take a value other than their default only on a server
 * started for sfcache's tests.
 */
static bool
test_setting_allowed(bool is_default, const char *what, const char *needs)
{
	if (is_default || cache_enable_test_holds)
		return true;
	GUC_check_errcode(ERRCODE_FEATURE_NOT_SUPPORTED);
	GUC_check_errmsg("%s for sfcache's own tests", what);
	GUC_check_errhint("%s sfcache.enable_test_holds = on at server start, as regress/sfcache.conf sets it.", needs);
	return false;
}

static bool
check_test_hold(int *newval, void **extra, GucSource source)
{
	return test_setting_allowed(*newval == 0, "the sfcache.test_hold_* settings are",
								"They need");
}

/* The admission test clock: -1 (the real clock) anywhere. */
static bool
check_test_clock(int *newval, void **extra, GucSource source)
{
	return test_setting_allowed(*newval == -1, "sfcache.test_admission_clock is", "It needs");
}

static bool
check_test_cache_time(int *newval, void **extra, GucSource source)
{
	return test_setting_allowed(*newval == 0, "sfcache.test_added_cache_time is", "It needs");
}

/*
 * sfcache.memory is reserved in shared memory at start: more than the
 * machine has is refused here, by name (PostgreSQL's own message, when it
 * cannot map the segment, speaks of shared_buffers).
 */
static void
check_memory_fits(void)
{
#ifdef _SC_PHYS_PAGES
	long		pages = sysconf(_SC_PHYS_PAGES);
	long		page_size = sysconf(_SC_PAGESIZE);
	uint64		physical_mb;

	if (pages <= 0 || page_size <= 0)
		return;
	physical_mb = (uint64) pages * (uint64) page_size / (1024 * 1024);
	if ((uint64) cache_memory_mb >= physical_mb)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sfcache.memory (%d MB) is more than this machine's memory (%llu MB)",
						cache_memory_mb, (unsigned long long) physical_mb),
				 errdetail("sfcache reserves sfcache.memory in shared memory when the server starts."),
				 errhint("Lower sfcache.memory in postgresql.conf, then start the server.")));
#endif
}

void
CacheGucInit(void)
{
	DefineCustomEnumVariable("sfcache.cache",
							 "Whether read-only statements are coalesced (coalesce) and also kept (on).",
							 "observe keeps results as on but serves none: it counts what would have been served.",
							 &cache_cache_mode, CACHE_MODE_ON, cache_mode_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("sfcache.memory",
							"Shared memory for cached results.",
							NULL,
							&cache_memory_mb, 64, 1, 1024 * 1024,
							PGC_POSTMASTER, GUC_UNIT_MB, NULL, NULL, NULL);

	DefineCustomIntVariable("sfcache.max_entries",
							"Maximum number of cached results.",
							NULL,
							&cache_max_entries, 10000, 16, INT_MAX / 2,
							PGC_POSTMASTER, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("sfcache.max_statements",
							"Maximum number of statements tracked in sfcache.statements.",
							NULL,
							&cache_max_statements, 1000, 16, INT_MAX / 2,
							PGC_POSTMASTER, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("sfcache.max_tags_per_transaction",
							"Most distinct tracked values a transaction's writes invalidate one by one.",
							"Beyond, its writes of tracked tables invalidate every result over them.",
							&cache_max_tags_per_transaction, 10000, 0, 65536,
							PGC_USERSET, 0, NULL, NULL, NULL);

	DefineCustomBoolVariable("sfcache.wal_invalidations",
							 "Whether commits write their invalidations into the WAL, for hot standbys to replay.",
							 "Every standby must load sfcache first: a standby without it stops replaying at the first such record.",
							 &cache_wal_invalidations, false,
							 PGC_POSTMASTER, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("sfcache.max_entry_size",
							"Largest result that is stored; larger ones run uncached.",
							NULL,
							&cache_max_entry_size_kb, 1024, 1, 1024 * 1024,
							PGC_SUSET, GUC_UNIT_KB, NULL, NULL, NULL);

	DefineCustomIntVariable("sfcache.ttl",
							"Longest time a cached result is served.",
							"A relation's own TTL (sfcache.set_ttl()) replaces it, shorter or longer.",
							&cache_ttl_s, 300, 1, INT_MAX,
							PGC_USERSET, GUC_UNIT_S, NULL, NULL, NULL);

	DefineCustomIntVariable("sfcache.wait_timeout",
							"Longest time a statement waits for another backend computing the same result.",
							"After it, the statement runs by itself.",
							&cache_wait_timeout_ms, 10000, 0, INT_MAX,
							PGC_USERSET, GUC_UNIT_MS, NULL, NULL, NULL);

	DefineCustomIntVariable("sfcache.cold_after",
							"Executions through the cache after which a statement served less than once in a hundred, or costing more time in the cache than its hits saved, runs as PostgreSQL plans it.",
							"It then runs so for 15 times as many executions (doubled for each such verdict in a row, up to 8 times), one in 64 of them still through the cache, and goes through the cache again to look. 0: never.",
							&cache_cold_after, 100, 0, 1000000,
							PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("sfcache.redis_results_min_duration",
							"Shortest mean run of a statement's leaders for them to use the shared result tier.",
							"A faster statement's leaders compute without asking Redis. -1: as long as a leader's Redis commands take on this node; 0: every statement.",
							&cache_shared_min_duration_ms, -1, -1, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_MS, NULL, NULL, NULL);

	DefineCustomBoolVariable("sfcache.admission",
							 "Whether a result is kept only from the second miss of its key on.",
							 "Off: every result is kept (cache_admit.c).",
							 &cache_admission, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("sfcache.admission_window",
							"Repeated misses after which the admission sketch halves its counts (0: eight per counter).",
							"The counts also halve every sfcache.admission_period.",
							&cache_admission_window, 0, 0, INT_MAX,
							PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("sfcache.admission_period",
							"How long admission remembers a key's first miss: a key missed twice within it is stored.",
							"A first miss is remembered for one to two periods (cache_admit.c).",
							&cache_admission_period_s, 60, 1, 86400,
							PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);

	DefineCustomIntVariable("sfcache.test_admission_clock",
							"For tests: the time in seconds admission's periods are cut from (-1: the clock).",
							NULL,
							&cache_test_admission_clock_s, -1, -1, INT_MAX,
							PGC_SUSET, CACHE_TEST_GUC_FLAGS, check_test_clock, NULL, NULL);

	DefineCustomIntVariable("sfcache.test_added_cache_time",
							"For tests: time added to each execution's time in the cache, as sfcache.cold_after weighs it.",
							NULL,
							&cache_test_added_cache_time_ms, 0, 0, INT_MAX,
							PGC_SUSET, CACHE_TEST_GUC_FLAGS | GUC_UNIT_MS,
							check_test_cache_time, NULL, NULL);

	DefineCustomStringVariable("sfcache.immutable_functions",
							   "Functions treated as immutable by the cache, as name or schema.name.",
							   "For stable or volatile functions whose result the application accepts as fixed.",
							   &cache_immutable_functions, "",
							   PGC_SUSET, GUC_LIST_INPUT,
							   check_immutable_functions, NULL, NULL);

	/*
	 * The isolation tests' pause points: hidden (SHOW ALL, pg_settings,
	 * postgresql.conf.sample), and refused unless the server was started with
	 * sfcache.enable_test_holds (regress/sfcache.conf does).
	 */
	DefineCustomBoolVariable("sfcache.enable_test_holds",
							 "For sfcache's own tests: allows the sfcache.test_hold_* settings.",
							 NULL, &cache_enable_test_holds, false,
							 PGC_POSTMASTER, CACHE_TEST_GUC_FLAGS, NULL, NULL, NULL);

	DefineCustomIntVariable("sfcache.test_hold_leader_lock",
							"For tests: a leader waits on this advisory lock key after registering.",
							NULL,
							&cache_test_hold_leader_lock, 0, 0, INT_MAX,
							PGC_SUSET, CACHE_TEST_GUC_FLAGS, check_test_hold, NULL, NULL);

	DefineCustomIntVariable("sfcache.test_hold_follower_lock",
							"For tests: a follower waits on this advisory lock key once registered.",
							NULL,
							&cache_test_hold_follower_lock, 0, 0, INT_MAX,
							PGC_SUSET, CACHE_TEST_GUC_FLAGS, check_test_hold, NULL, NULL);

	DefineCustomIntVariable("sfcache.test_hold_commit_lock",
							"For tests: a writer waits on this advisory lock key between its two commit bumps.",
							NULL,
							&cache_test_hold_commit_lock, 0, 0, INT_MAX,
							PGC_SUSET, CACHE_TEST_GUC_FLAGS, check_test_hold, NULL, NULL);

	check_memory_fits();
}
