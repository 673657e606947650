/*-------------------------------------------------------------------------
 *
 * advice_guc.c
 *		Owns the index advice's settings: sfcache.advice,
 *		sfcache.advice_sample_rate, sfcache.advice_max (shared memory size,
 *		server start), sfcache.advice_min_benefit, sfcache.advice_search,
 *		sfcache.advice_max_plannings, and the test-only
 *		sfcache.test_activity_age.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/guc.h"

#include "advice/advice_internal.h"

bool		advice_enabled = true;
double		advice_sample_rate = 0.1;
int			advice_max = 2000;
double		advice_min_benefit = 0.3;
bool		advice_search = true;
int			advice_max_plannings = 10000;
int			advice_test_activity_age_s = 0;

/*
 * The table activity's test clock: 0 (the real clock) anywhere, another
 * age only where sfcache.enable_test_holds is on (cache_guc.c), so that a
 * test of write rates need not wait a real minute.
 */
static bool
check_test_activity_age(int *newval, void **extra, GucSource source)
{
	const char *holds = GetConfigOption("sfcache.enable_test_holds", true, false);

	if (*newval == 0 || (holds != NULL && strcmp(holds, "on") == 0))
		return true;
	GUC_check_errcode(ERRCODE_FEATURE_NOT_SUPPORTED);
	GUC_check_errmsg("sfcache.test_activity_age is for sfcache's own tests");
	GUC_check_errhint("It needs sfcache.enable_test_holds = on at server start.");
	return false;
}

/* Define the advice's settings; from AdviceInit(). */
void
AdviceGucInit(void)
{
	DefineCustomBoolVariable("sfcache.advice",
							 "Records scans that an index could serve, for sfcache.index_advice.",
							 NULL, &advice_enabled, true, PGC_SUSET, 0,
							 NULL, NULL, NULL);
	DefineCustomRealVariable("sfcache.advice_sample_rate",
							 "Share of top-level statements whose plan the index advice records.",
							 "0 records none, 1 every statement.",
							 &advice_sample_rate, 0.1, 0.0, 1.0, PGC_SUSET, 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("sfcache.advice_max",
							"Number of quals the index advice keeps in shared memory.",
							"A quarter as many statements and tables are kept.",
							&advice_max, 2000, 100, 1000000, PGC_POSTMASTER, 0,
							NULL, NULL, NULL);
	DefineCustomRealVariable("sfcache.advice_min_benefit",
							 "Smallest verified cost reduction for which an index is suggested.",
							 "0.3 means the recorded statements must be estimated 30% cheaper.",
							 &advice_min_benefit, 0.3, 0.0, 1.0, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("sfcache.advice_search",
							 "Chooses the suggested indexes as one configuration for the whole recorded workload.",
							 "Off: one verified index per candidate, as sfcache 0.2 did (kept for comparison).",
							 &advice_search, true, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("sfcache.advice_max_plannings",
							"Most plannings the configuration search makes before it stops.",
							"The search then keeps the indexes chosen so far and reports itself truncated.",
							&advice_max_plannings, 10000, 10, INT_MAX, PGC_USERSET, 0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("sfcache.test_activity_age",
							"For tests: table writes and invalidations are recorded as this long ago.",
							NULL,
							&advice_test_activity_age_s, 0, 0, 86400, PGC_SUSET,
							GUC_UNIT_S | GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE | GUC_NO_RESET_ALL,
							check_test_activity_age, NULL, NULL);
}
