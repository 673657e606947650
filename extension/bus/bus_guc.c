/*-------------------------------------------------------------------------
 *
 * bus_guc.c
 *		Owns the bus's settings and its Init: sfcache.redis_url (reloadable;
 *		its password never shown), sfcache.redis_channel, sfcache.node_name,
 *		sfcache.redis_heartbeat_ms, sfcache.redis_liveness_s, and the
 *		shared result tier's sfcache.redis_results and
 *		sfcache.redis_results_timeout.
 *
 * The password: sfcache.redis_url's check hook keeps the URL it was given
 * in its "extra" and replaces the setting's value by the masked URL, so
 * SHOW, pg_settings (setting, reset_val, boot_val) and every log line that
 * prints the setting see "redis://user:***@host:port/db"; the assign hook
 * hands the real URL to bus_redis_url, which only the worker reads. One
 * line escapes this: PostgreSQL's own "parameter ... changed to" LOG line,
 * when the postmaster reloads a changed postgresql.conf, prints the value
 * as the file spells it; sfcache.redis_password_file keeps the password
 * out of the file altogether. Its path is GUC_SUPERUSER_ONLY, as
 * hba_file and data_directory are: SHOW and pg_settings show it only to
 * superusers and members of pg_read_all_settings.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>

#include "miscadmin.h"
#include "utils/guc.h"

#include "bus/bus_internal.h"

char	   *bus_redis_url_masked = NULL;
char	   *bus_redis_url = NULL;
char	   *bus_redis_channel = NULL;
char	   *bus_node_name = NULL;
char	   *bus_redis_password_file = NULL;
int			bus_heartbeat_ms = 20;
int			bus_liveness_s = 5;
bool		bus_redis_results = false;
int			bus_redis_results_timeout_ms = 10;

static bool
check_redis_url(char **newval, void **extra, GucSource source)
{
	BusUrl		url;
	const char *error;
	char	   *real;
	char	   *masked;
	char	   *shown;

	if (*newval == NULL || (*newval)[0] == '\0')
	{
		*extra = NULL;
		return true;
	}
	/* a value already masked is one this hook produced: keep the real one */
	if (strstr(*newval, "***@") != NULL && bus_redis_url != NULL &&
		strcmp(*newval, bus_redis_url_masked ? bus_redis_url_masked : "") == 0)
		real = bus_redis_url;
	else
	{
		if (!BusUrlParse(*newval, &url, &error))
		{
			GUC_check_errmsg("invalid sfcache.redis_url: %s", error);
			GUC_check_errhint("Use redis://[user:password@]host[:port][/db] or unix:///path/to/redis.sock.");
			return false;
		}
		real = *newval;
	}
	/* the GUC machinery frees *newval and *extra with guc_free() */
	*extra = guc_strdup(LOG, real);
	masked = BusUrlMask(real);
	shown = masked ? guc_strdup(LOG, masked) : NULL;
	free(masked);
	if (*extra == NULL || shown == NULL)
	{
		GUC_check_errcode(ERRCODE_OUT_OF_MEMORY);
		GUC_check_errmsg("out of memory");
		return false;
	}
	guc_free(*newval);
	*newval = shown;
	return true;
}

static void
assign_redis_url(const char *newval, void *extra)
{
	bus_redis_url = (char *) extra;
}

/* Node names travel unquoted in messages and key names. */
static bool
check_node_name(char **newval, void **extra, GucSource source)
{
	for (const char *p = *newval; p && *p; p++)
	{
		if (!(isalnum((unsigned char) *p) || *p == '-' || *p == '_' ||
			  *p == '.' || *p == ':'))
		{
			GUC_check_errmsg("invalid sfcache.node_name: \"%s\"", *newval);
			GUC_check_errdetail("Only letters, digits, \"-\", \"_\", \".\" and \":\" are allowed.");
			return false;
		}
	}
	if (*newval && strlen(*newval) >= BUS_NAME_LEN)
	{
		GUC_check_errmsg("sfcache.node_name is longer than %d bytes", BUS_NAME_LEN - 1);
		return false;
	}
	return true;
}

static bool
check_channel(char **newval, void **extra, GucSource source)
{
	if (*newval == NULL || (*newval)[0] == '\0' || strchr(*newval, ' ') != NULL)
	{
		GUC_check_errmsg("sfcache.redis_channel must be a non-empty name without spaces");
		return false;
	}
	return true;
}

void
BusGucInit(void)
{
	DefineCustomStringVariable("sfcache.redis_url",
							   "Redis server of the invalidation bus (empty: no bus).",
							   "redis://[user:password@]host[:port][/db] or unix:///path; the password is never shown.",
							   &bus_redis_url_masked, "", PGC_SIGHUP, 0,
							   check_redis_url, assign_redis_url, NULL);
	DefineCustomStringVariable("sfcache.redis_channel",
							   "Redis pub/sub channel the nodes of one cluster share.",
							   NULL, &bus_redis_channel, "sfcache", PGC_SIGHUP, 0,
							   check_channel, NULL, NULL);
	DefineCustomStringVariable("sfcache.redis_password_file",
							   "File holding the Redis password, when sfcache.redis_url has none.",
							   "Keeps the password out of postgresql.conf and of the server log.",
							   &bus_redis_password_file, "", PGC_SIGHUP,
							   GUC_SUPERUSER_ONLY, NULL, NULL, NULL);
	DefineCustomStringVariable("sfcache.node_name",
							   "This server's name on the bus (empty: host name and port).",
							   NULL, &bus_node_name, "", PGC_SIGHUP, 0,
							   check_node_name, NULL, NULL);
	DefineCustomIntVariable("sfcache.redis_heartbeat_ms",
							"How often the bus worker publishes its WAL position when it moved.",
							"A standby serves from its cache only while its primary's last published position covers its replay position.",
							&bus_heartbeat_ms, 20, 5, 10000, PGC_SIGHUP,
							GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomIntVariable("sfcache.redis_liveness_s",
							"Expiry of this node's liveness key in Redis.",
							NULL, &bus_liveness_s, 5, 2, 3600, PGC_SIGHUP,
							GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomBoolVariable("sfcache.redis_results",
							 "Shares results between the nodes of a physical cluster through Redis (needs sfcache.redis_url).",
							 "A result computed on one node is served on the others when no commit they know of changed what it read since; a cross-node lock computes each result once.",
							 &bus_redis_results, false, PGC_SIGHUP, 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("sfcache.redis_results_timeout",
							"How long a backend waits for Redis to connect or to answer one command of the shared result tier.",
							"Beyond it, or on any Redis error, the tier counts as empty and is not asked again for a second.",
							&bus_redis_results_timeout_ms, 10, 1, 60000, PGC_SIGHUP,
							GUC_UNIT_MS, NULL, NULL, NULL);
}

bool
BusConfigured(void)
{
	return bus_redis_url != NULL && bus_redis_url[0] != '\0';
}
