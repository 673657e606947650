/*-------------------------------------------------------------------------
 *
 * base_test_hold.c
 *		The pause points of the isolation tests: a backend waits on an
 *		advisory lock that the test holds, which isolationtester sees as a
 *		lock wait (the technique of src/test/modules/delay_execution).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/lock.h"

#include "base/base.h"

/* Wait until the advisory lock pg_advisory_lock(key) is free; 0 is a no-op. */
void
SfcTestHoldOnAdvisoryLock(int key)
{
	LOCKTAG		tag;

	if (key == 0)
		return;
	/* the tag pg_advisory_lock(bigint) uses */
	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, 0, (uint32) key, 1);
	(void) LockAcquire(&tag, ShareLock, false, false);
	LockRelease(&tag, ShareLock, false);
}
