/*-------------------------------------------------------------------------
 *
 * strlist.c
 *		Small helpers every step uses: a growable list of strings, quoting
 *		through libpq (PQescapeIdentifier, PQescapeLiteral) into malloc'd
 *		strings, text made safe for one-line comments, and sizes in words.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include "common/logging.h"

#include "advisor.h"

void
strlist_add_nocopy(StrList *l, char *s)
{
	if (l->n == l->cap)
	{
		l->cap = l->cap ? l->cap * 2 : 8;
		l->items = pg_realloc(l->items, sizeof(char *) * l->cap);
	}
	l->items[l->n++] = s;
}

void
strlist_add(StrList *l, const char *s)
{
	strlist_add_nocopy(l, pg_strdup(s));
}

/* The position of s in l, or -1. */
int
strlist_find(const StrList *l, const char *s)
{
	int			i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->items[i], s) == 0)
			return i;
	return -1;
}

void
strlist_free(StrList *l)
{
	int			i;

	for (i = 0; i < l->n; i++)
		free(l->items[i]);
	free(l->items);
	l->items = NULL;
	l->n = l->cap = 0;
}

/*
 * Set when libpq could not quote a string (invalid encoding, out of
 * memory). Quoting happens deep inside the writers, which then go on with
 * a zero-length identifier or NULL literal in its place (never the
 * unquoted text); main() checks this flag after writing and before
 * applying, and fails with exit code 2.
 */
bool		advisor_quoting_failed = false;

/* An identifier quoted by libpq, as a malloc'd string. */
char *
esc_ident(PGconn *conn, const char *ident)
{
	char	   *q = PQescapeIdentifier(conn, ident, strlen(ident));
	char	   *copy;

	if (q == NULL)
	{
		pg_log_error("could not quote identifier \"%s\": %s", ident, PQerrorMessage(conn));
		advisor_quoting_failed = true;
		return pg_strdup("\"\"");
	}
	copy = pg_strdup(q);
	PQfreemem(q);
	return copy;
}

/* A string literal quoted by libpq, as a malloc'd string. */
char *
esc_literal(PGconn *conn, const char *text)
{
	char	   *q = PQescapeLiteral(conn, text, strlen(text));
	char	   *copy;

	if (q == NULL)
	{
		pg_log_error("could not quote literal \"%s\": %s", text, PQerrorMessage(conn));
		advisor_quoting_failed = true;
		return pg_strdup("NULL");
	}
	copy = pg_strdup(q);
	PQfreemem(q);
	return copy;
}

/*
 * Append text for a "--" or "#" comment: control characters (a newline
 * would end the comment) become spaces, runs of blanks one space (leading
 * spaces stay), and
 * beyond max bytes (if max > 0) it is cut at a character boundary with "...".
 */
void
append_comment_text(PQExpBuffer buf, const char *text, int max)
{
	const unsigned char *p;
	int			n = 0;
	int			blank = 0;

	for (p = (const unsigned char *) text; *p; p++)
	{
		if (*p == ' ' && n == (int) (p - (const unsigned char *) text))
		{
			/* leading spaces (indentation) stay */
			appendPQExpBufferChar(buf, ' ');
			n++;
			continue;
		}
		if (*p < 0x20 || *p == 0x7f || *p == ' ')
		{
			blank = 1;
			continue;
		}
		if (max > 0 && n >= max && (*p & 0xC0) != 0x80)
		{
			appendPQExpBufferStr(buf, "...");
			return;
		}
		if (blank && n > 0)
		{
			appendPQExpBufferChar(buf, ' ');
			n++;
		}
		blank = 0;
		appendPQExpBufferChar(buf, (char) *p);
		n++;
	}
}

/* bytes as "8192 bytes", "12 kB", "1.5 MB", ... */
void
format_size(char *buf, size_t len, long long bytes)
{
	static const char *const units[] = {"kB", "MB", "GB", "TB"};
	double		v = (double) bytes;
	int			i = -1;

	if (bytes < 10240)
	{
		snprintf(buf, len, "%lld bytes", bytes);
		return;
	}
	while (v >= 1024.0 && i < 3)
	{
		v /= 1024.0;
		i++;
	}
	snprintf(buf, len, v < 10 ? "%.1f %s" : "%.0f %s", v, units[i]);
}
