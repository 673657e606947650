/*-------------------------------------------------------------------------
 *
 * indexdef.c
 *		Splitting an index definition as the server prints it after USING
 *		("btree (user_id, \"a b\" DESC) WHERE (NOT is_deleted)") into its
 *		access method, key elements, bare keys, INCLUDE columns and
 *		predicate. Quoted
 *		identifiers, string literals and nested parentheses are respected,
 *		so hostile names cannot shift the split.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include "advisor.h"

/* Skip a quoted token starting at p (quote char q, doubled to escape). */
static const char *
skip_quoted(const char *p, char q)
{
	for (p++; *p; p++)
	{
		if (*p == q)
		{
			if (p[1] == q)
				p++;
			else
				return p + 1;
		}
	}
	return p;
}

/*
 * The end of one token at p inside a key list: a quoted identifier, a
 * string, a parenthesised group, or any other single character.
 */
static const char *
skip_token(const char *p)
{
	int			depth = 0;

	if (*p == '"' || *p == '\'')
		return skip_quoted(p, *p);
	if (*p != '(')
		return p + 1;
	while (*p)
	{
		if (*p == '"' || *p == '\'')
		{
			p = skip_quoted(p, *p);
			continue;
		}
		if (*p == '(')
			depth++;
		else if (*p == ')' && --depth == 0)
			return p + 1;
		p++;
	}
	return p;
}

/* The bare key of one element: the column or (expression), without opclass. */
static char *
element_key(const char *elem)
{
	const char *end;

	if (*elem == '"' || *elem == '(')
		end = skip_token(elem);
	else
		end = elem + strcspn(elem, " ");
	return pnstrdup(elem, end - elem);
}

static void
add_element(IndexDef *def, const char *start, const char *end)
{
	char	   *elem;

	while (start < end && *start == ' ')
		start++;
	elem = pnstrdup(start, end - start);
	strlist_add_nocopy(&def->elems, elem);
	strlist_add_nocopy(&def->keys, element_key(elem));
}

/* A copy of start..end without its leading spaces. */
static char *
trimmed(const char *start, const char *end)
{
	while (start < end && *start == ' ')
		start++;
	return pnstrdup(start, end - start);
}

/*
 * Parse tail into def. Returns 0 if it does not look like an index
 * definition (def is then empty but safe to free).
 */
int
indexdef_parse(const char *tail, IndexDef *def)
{
	const char *p = strstr(tail, " (");
	const char *start;

	memset(def, 0, sizeof(*def));
	if (p == NULL)
		return 0;
	def->am = pnstrdup(tail, p - tail);
	p += 2;
	start = p;
	while (*p && *p != ')')
	{
		if (*p == ',')
		{
			add_element(def, start, p);
			start = p + 1;
			p++;
			continue;
		}
		p = skip_token(p);
	}
	if (*p != ')')
		return 0;
	add_element(def, start, p);
	p++;
	if (strncmp(p, " INCLUDE (", 10) == 0)
	{
		p += 10;
		start = p;
		while (*p && *p != ')')
		{
			if (*p == ',')
			{
				strlist_add_nocopy(&def->include, trimmed(start, p));
				start = ++p;
				continue;
			}
			p = skip_token(p);
		}
		if (*p != ')')
			return 0;
		strlist_add_nocopy(&def->include, trimmed(start, p));
		def->has_extra = 1;
		p++;
	}
	if (strncmp(p, " WHERE ", 7) == 0)
		def->pred = pg_strdup(p + 7);
	else if (*p != '\0')
		def->has_extra = 1;
	return 1;
}

void
indexdef_free(IndexDef *def)
{
	free(def->am);
	free(def->pred);
	strlist_free(&def->elems);
	strlist_free(&def->include);
	strlist_free(&def->keys);
}

/* Whether a key is a column name (plain or quoted), not an expression. */
int
key_is_column(const char *key)
{
	return *key != '(' && *key != '\0';
}

/* A column key without its double quotes (malloc'd). */
char *
key_unquote(const char *key)
{
	PQExpBufferData b;
	const char *p;

	if (*key != '"')
		return pg_strdup(key);
	initPQExpBuffer(&b);
	for (p = key + 1; *p; p++)
	{
		if (*p == '"')
		{
			if (p[1] != '"')
				break;
			p++;
		}
		appendPQExpBufferChar(&b, *p);
	}
	return b.data;
}
