/*-------------------------------------------------------------------------
 *
 * bus_url.c
 *		Owns the syntax of sfcache.redis_url: parsing
 *		redis://[user:password@]host[:port][/db] and unix:///path, and the
 *		masked form (password replaced by ***) that settings, views and
 *		logs show.
 *
 * Both run in a GUC check hook, in any process, before and outside any
 * transaction: they use malloc, never palloc nor ereport.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "bus/bus_internal.h"

/* A malloc'd copy of [from, from + len), or NULL when out of memory. */
static char *
dup_range(const char *from, size_t len)
{
	char	   *s = malloc(len + 1);

	if (s != NULL)
	{
		memcpy(s, from, len);
		s[len] = '\0';
	}
	return s;
}

static bool
parse_unix(const char *rest, BusUrl *out, const char **error)
{
	if (rest[0] != '/')
	{
		*error = "a unix:// URL needs an absolute path (unix:///path/to/redis.sock)";
		return false;
	}
	out->path = dup_range(rest, strlen(rest));
	return out->path != NULL;
}

/* user:password@ or password@ (then rest points after the @). */
static bool
parse_userinfo(const char **rest, BusUrl *out)
{
	const char *at = strrchr(*rest, '@');
	const char *colon;

	if (at == NULL)
		return true;
	colon = memchr(*rest, ':', at - *rest);
	if (colon != NULL)
	{
		if (colon > *rest)
			out->user = dup_range(*rest, colon - *rest);
		out->password = dup_range(colon + 1, at - colon - 1);
	}
	else
		out->password = dup_range(*rest, at - *rest);
	*rest = at + 1;
	return true;
}

static bool
parse_tcp(const char *rest, BusUrl *out, const char **error)
{
	const char *end;
	const char *colon;
	char	   *stop;

	parse_userinfo(&rest, out);
	end = strchr(rest, '/');
	if (end == NULL)
		end = rest + strlen(rest);
	colon = memchr(rest, ':', end - rest);
	if ((colon ? colon : end) == rest)
	{
		*error = "no host name";
		return false;
	}
	out->host = dup_range(rest, (colon ? colon : end) - rest);
	out->port = 6379;
	if (colon != NULL)
	{
		long		port = strtol(colon + 1, &stop, 10);

		if (stop != end || port <= 0 || port > 65535)
		{
			*error = "invalid port";
			return false;
		}
		out->port = (int) port;
	}
	if (*end == '/' && end[1] != '\0')
	{
		long		db = strtol(end + 1, &stop, 10);

		if (*stop != '\0' || db < 0 || db > 1000000)
		{
			*error = "invalid database number";
			return false;
		}
		out->db = (int) db;
	}
	return out->host != NULL;
}

/*
 * Parse url into out (strings malloc'd; out->host or out->path set). On
 * failure returns false with *error saying why; never mentions the password.
 */
bool
BusUrlParse(const char *url, BusUrl *out, const char **error)
{
	memset(out, 0, sizeof(*out));
	*error = "out of memory";
	if (strncmp(url, "unix://", 7) == 0)
		return parse_unix(url + 7, out, error);
	if (strncmp(url, "redis://", 8) == 0)
		return parse_tcp(url + 8, out, error);
	*error = "it must start with redis:// or unix://";
	return false;
}

/* url with its password replaced by ***; malloc'd, NULL when out of memory. */
char *
BusUrlMask(const char *url)
{
	const char *start = url + 8;
	const char *at;
	const char *colon;
	const char *keep_to;		/* kept before the password */
	char	   *masked;

	if (strncmp(url, "redis://", 8) != 0 || (at = strrchr(url, '@')) == NULL)
		return dup_range(url, strlen(url));
	colon = memchr(start, ':', at - start);
	keep_to = colon ? colon + 1 : start;
	masked = malloc((keep_to - url) + 3 + strlen(at) + 1);
	if (masked == NULL)
		return NULL;
	memcpy(masked, url, keep_to - url);
	strcpy(masked + (keep_to - url), "***");
	strcat(masked, at);
	return masked;
}
