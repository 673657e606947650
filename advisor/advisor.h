/*-------------------------------------------------------------------------
 *
 * advisor.h
 *		Declarations shared by the files of sfcache-advisor.
 *
 *-------------------------------------------------------------------------
 */
#ifndef SFCACHE_ADVISOR_H
#define SFCACHE_ADVISOR_H

#include "libpq-fe.h"

/* Exit codes a deploy script can act on. */
#define ADVISOR_EXIT_NOTHING		0	/* nothing to suggest */
#define ADVISOR_EXIT_SUGGESTED		1	/* suggestions written */
#define ADVISOR_EXIT_USAGE			2	/* usage or connection error */
#define ADVISOR_EXIT_EXTENSION		3	/* extension missing or mismatched */

/* How to reach the database, as psql takes it. */
typedef struct ConnectOptions
{
	const char *conninfo;		/* positional CONNINFO or -d value */
	const char *host;
	const char *port;
	const char *username;
} ConnectOptions;

/* connect.c */
extern PGconn *advisor_connect(const ConnectOptions *opts);
extern char *advisor_check_extension(PGconn *conn);

#endif							/* SFCACHE_ADVISOR_H */
