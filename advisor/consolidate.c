/*-------------------------------------------------------------------------
 *
 * consolidate.c
 *		One index per need across the whole workload: a suggestion whose
 *		keys are a prefix of another's (same table and method, and for
 *		btree a predicate at least as narrow: the other's conjuncts are
 *		among its own) is merged into it with its evidence; an existing plain btree index
 *		that a suggestion strictly extends is marked redundant (never a
 *		unique one or one that backs a constraint, never by a partial
 *		index, never one of another operator class or collation; in --format=django never one Django's migrations created,
 *		unless --replace-owned: owners.c); then the budget (--max-indexes, --max-size), which the
 *		extension's configuration search already respected, is checked
 *		again in the order of estimated cost saved per byte of index.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include "advisor.h"

static int
same_table(const char *s1, const char *t1, const char *s2, const char *t2)
{
	return strcmp(s1, s2) == 0 && strcmp(t1, t2) == 0;
}

static int
same_pred(const char *p1, const char *p2)
{
	return (p1 == NULL && p2 == NULL) ||
		(p1 != NULL && p2 != NULL && strcmp(p1, p2) == 0);
}

/* Drop one pair of parentheses that wraps the whole of s[0..len). */
static void
unwrap(const char **s, int *len)
{
	int			depth = 0;
	int			quoted = 0;
	int			i;

	if (*len < 2 || (*s)[0] != '(' || (*s)[*len - 1] != ')')
		return;
	for (i = 0; i < *len - 1; i++)
	{
		char		c = (*s)[i];

		if (c == '\'')
			quoted = !quoted;
		else if (!quoted && c == '(')
			depth++;
		else if (!quoted && c == ')' && --depth == 0)
			return;				/* closes before the end: not one wrap */
	}
	(*s)++;
	*len -= 2;
}

/* The AND-ed conjuncts of a predicate as PostgreSQL deparses it. */
static void
conjuncts(const char *pred, StrList *out)
{
	const char *s = pred;
	int			len = strlen(pred);
	int			depth = 0;
	int			quoted = 0;
	int			start = 0;
	int			i;

	unwrap(&s, &len);
	for (i = 0; i <= len; i++)
	{
		if (i < len && s[i] == '\'')
			quoted = !quoted;
		else if (i < len && !quoted && s[i] == '(')
			depth++;
		else if (i < len && !quoted && s[i] == ')')
			depth--;
		else if (i == len || (!quoted && depth == 0 && strncmp(s + i, " AND ", 5) == 0))
		{
			const char *c = s + start;
			int			clen = i - start;

			unwrap(&c, &clen);
			strlist_add_nocopy(out, pnstrdup(c, clen));
			start = i + 5;
		}
	}
}

/*
 * Whether an index with predicate broad serves every row a statement needs
 * under predicate narrow: broad is absent, or each of its conjuncts is one
 * of narrow's.
 */
static int
pred_covers(const char *broad, const char *narrow)
{
	StrList		b = {0};
	StrList		n = {0};
	int			covers = 1;
	int			i;

	if (broad == NULL)
		return 1;
	if (narrow == NULL)
		return 0;
	conjuncts(broad, &b);
	conjuncts(narrow, &n);
	for (i = 0; i < b.n && covers; i++)
		covers = strlist_find(&n, b.items[i]) >= 0;
	strlist_free(&b);
	strlist_free(&n);
	return covers;
}

/* Whether the first n entries of a equal those of b. */
static int
prefix_of(const StrList *a, const StrList *b)
{
	int			i;

	if (a->n > b->n || a->n == 0)
		return 0;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->items[i], b->items[i]) != 0)
			return 0;
	return 1;
}

/*
 * Whether b's first key is a's, under the default operator class (either
 * direction): the result cache's windows need that of a window suggestion.
 */
static int
same_first_element(const Advice *a, const Advice *b)
{
	const char *ea = a->def.elems.items[0];
	const char *eb = b->def.elems.items[0];
	size_t		len = strlen(ea);

	return strncmp(ea, eb, len) == 0 && (eb[len] == '\0' || strcmp(eb + len, " DESC") == 0);
}

/* Whether suggestion a is served by suggestion b, so a can go. */
static int
advice_covered_by(const Advice *a, const Advice *b)
{
	if (!same_table(a->schema, a->table, b->schema, b->table) ||
		strcmp(a->def.am, b->def.am) != 0)
		return 0;
	if (a->window_only && (b->def.elems.n == 0 || !same_first_element(a, b)))
		return 0;
	if (strcmp(a->def.am, "btree") == 0)
		return prefix_of(&a->def.keys, &b->def.keys) &&
			pred_covers(b->def.pred, a->def.pred);
	if (!same_pred(a->def.pred, b->def.pred))
		return 0;
	/* other methods: only an identical definition */
	return a->def.elems.n == b->def.elems.n && prefix_of(&a->def.elems, &b->def.elems);
}

/* Move a's evidence into b; calls add up only for statements b did not count. */
static void
absorb(Advice *b, Advice *a, int ai)
{
	int			i;
	int			overlap = 0;

	for (i = 0; i < a->queryids.n; i++)
	{
		if (strlist_find(&b->queryids, a->queryids.items[i]) >= 0)
			overlap = 1;
		else
			strlist_add(&b->queryids, a->queryids.items[i]);
	}
	if (!overlap)
	{
		b->calls += a->calls;
		b->rows_scanned += a->rows_scanned;
		b->rows_returned += a->rows_returned;
		b->cost_before += a->cost_before;
		b->cost_after += a->cost_after;
		b->benefit = b->cost_before > 0 ? 1.0 - b->cost_after / b->cost_before : 0;
	}
	b->windows_starved += a->windows_starved;
	if (b->window_column == NULL && a->window_column != NULL)
		b->window_column = pg_strdup(a->window_column);
	strlist_add(&b->absorbed, a->ext_name);
	for (i = 0; i < a->absorbed.n; i++)
		strlist_add(&b->absorbed, a->absorbed.items[i]);
	a->absorbed_by = ai;
}

static void
merge_prefixes(Workload *w)
{
	int			i;
	int			j;

	for (i = 0; i < w->nadvice; i++)
		for (j = 0; j < w->nadvice; j++)
		{
			Advice	   *a = &w->advice[i];
			Advice	   *b = &w->advice[j];

			if (i == j || a->absorbed_by >= 0 || b->absorbed_by >= 0 ||
				!advice_covered_by(a, b))
				continue;
			/* identical definitions: the first one stays */
			if (a->def.keys.n == b->def.keys.n && i < j && advice_covered_by(b, a))
				continue;
			absorb(b, a, j);
		}
}

/* Strip a trailing word from s[0..*len) if it ends with it. */
static void
strip_suffix(const char *s, int *len, const char *word)
{
	int			wlen = strlen(word);

	if (*len >= wlen && strncmp(s + *len - wlen, word, wlen) == 0)
		*len -= wlen;
}

/*
 * Whether key element ea of a (bare key ka) has the same collation and
 * operator class as eb (bare key kb): what follows the key, less the
 * ordering the server prints last ("DESC NULLS LAST"), which a btree scan
 * serves either way. A "_like" index (varchar_pattern_ops) serves LIKE
 * 'x%' and no suggestion on the default class makes it redundant.
 */
static int
same_opclass(const char *ea, const char *ka, const char *eb, const char *kb)
{
	const char *ra = ea + strlen(ka);
	const char *rb = eb + strlen(kb);
	int			la = strlen(ra);
	int			lb = strlen(rb);

	strip_suffix(ra, &la, " NULLS FIRST");
	strip_suffix(ra, &la, " NULLS LAST");
	strip_suffix(ra, &la, " DESC");
	strip_suffix(ra, &la, " ASC");
	strip_suffix(rb, &lb, " NULLS FIRST");
	strip_suffix(rb, &lb, " NULLS LAST");
	strip_suffix(rb, &lb, " DESC");
	strip_suffix(rb, &lb, " ASC");
	return la == lb && strncmp(ra, rb, la) == 0;
}

/* Whether e's keys are a strict prefix of a's, with the same classes. */
static int
strict_prefix(const IndexDef *e, const IndexDef *a)
{
	int			i;

	if (e->keys.n >= a->keys.n || !prefix_of(&e->keys, &a->keys) ||
		e->elems.n != e->keys.n || a->elems.n != a->keys.n)
		return 0;
	for (i = 0; i < e->keys.n; i++)
		if (!same_opclass(e->elems.items[i], e->keys.items[i],
						  a->elems.items[i], a->keys.items[i]))
			return 0;
	return 1;
}

/* Whether existing index e may be dropped once suggestion a exists. */
static int
made_redundant(const ExistingIndex *e, const Advice *a)
{
	return same_table(e->schema, e->table, a->schema, a->table) &&
		e->def.am != NULL && strcmp(e->def.am, "btree") == 0 &&
		strcmp(a->def.am, "btree") == 0 &&
		!e->unique && !e->constraint && e->valid &&
		e->def.pred == NULL && !e->def.has_extra && a->def.pred == NULL &&
		strict_prefix(&e->def, &a->def);
}

static void
find_redundant(Workload *w)
{
	int			i;
	int			j;

	for (i = 0; i < w->nadvice; i++)
	{
		Advice	   *a = &w->advice[i];

		if (a->absorbed_by >= 0)
			continue;
		for (j = 0; j < w->nexisting; j++)
		{
			if (!made_redundant(&w->existing[j], a))
				continue;
			a->redundant = pg_realloc(a->redundant, sizeof(int) * (a->nredundant + 1));
			a->redundant[a->nredundant++] = j;
		}
	}
}

/* Estimated cost saved per byte; the order the budget is spent in. */
static double
value_per_byte(const Advice *a)
{
	return (a->cost_before - a->cost_after) / (double) (a->size > 0 ? a->size : 1);
}

static int
priority_cmp(const void *x, const void *y)
{
	const Advice *a = x;
	const Advice *b = y;
	double		va = value_per_byte(a);
	double		vb = value_per_byte(b);
	int			c;

	if ((a->absorbed_by >= 0) != (b->absorbed_by >= 0))
		return a->absorbed_by >= 0 ? 1 : -1;
	if (va != vb)
		return va > vb ? -1 : 1;
	if ((c = strcmp(a->schema, b->schema)) != 0 ||
		(c = strcmp(a->table, b->table)) != 0)
		return c;
	return strcmp(a->ext_name, b->ext_name);
}

static void
spend_budget(Workload *w, const AdvisorOptions *opts)
{
	long long	used = 0;
	int			i;

	for (i = 0; i < w->nadvice; i++)
	{
		Advice	   *a = &w->advice[i];

		if (a->absorbed_by >= 0)
			continue;
		if ((opts->max_indexes >= 0 && w->nchosen >= opts->max_indexes) ||
			(opts->max_size >= 0 && used + a->size > opts->max_size))
		{
			a->budget_skipped = 1;
			w->nbudget_skipped++;
			continue;
		}
		a->chosen = 1;
		used += a->size;
		w->nchosen++;
	}
}

/* Keep what an owner other than the DBA would still know (owners.c). */
static void
mark_kept(Workload *w, const AdvisorOptions *opts)
{
	int			i;

	for (i = 0; i < w->nexisting; i++)
		w->existing[i].kept = w->existing[i].django_kind != DJANGO_NONE &&
			opts->format == FORMAT_DJANGO && !opts->replace_owned;
}

void
consolidate(Workload *w, const AdvisorOptions *opts)
{
	merge_prefixes(w);
	find_redundant(w);
	mark_kept(w, opts);
	qsort(w->advice, w->nadvice, sizeof(Advice), priority_cmp);
	spend_budget(w, opts);
	w->nbudget_skipped += w->nbudget_left;
}
