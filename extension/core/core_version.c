/*-------------------------------------------------------------------------
 *
 * core_version.c
 *		SQL-callable functions that describe the loaded library, used by
 *		sfcache-advisor to refuse a mismatched extension.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "base/base.h"

SFC_FUNCTION_INFO_V1(sfcache_version_0_1);
SFC_FUNCTION_INFO_V1(sfcache_started_at_0_1);

/* The version of the loaded shared library. */
Datum
sfcache_version_0_1(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(SFCACHE_VERSION));
}

/* When sfcache's shared memory was last initialised (server start or crash restart). */
Datum
sfcache_started_at_0_1(PG_FUNCTION_ARGS)
{
	PG_RETURN_TIMESTAMPTZ(SfcSharedStartedAt());
}
