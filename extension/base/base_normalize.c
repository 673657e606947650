/*-------------------------------------------------------------------------
 *
 * base_normalize.c
 *		Owns the text sfcache shows for a statement (sfcache.statements'
 *		query, and through it the advisor's migration comments): the
 *		statement's own span of the string the client sent, never the
 *		EXPLAIN or PREPARE around it nor the other statements of a
 *		multi-statement string, with its constants replaced by $n as
 *		pg_stat_statements shows them. sfcache.literal_texts (superuser)
 *		keeps the constants instead.
 *
 * Only parse analysis knows where the constants are (the JumbleState it
 * hands to post_parse_analyze_hook); the planner and the executor, where
 * statements are recorded, no longer have it. So, as pg_stat_statements
 * does for a new entry, the normalized text of each query id is made when
 * this backend parses it (core_hooks.c calls SfcRememberStatementText)
 * and kept in a backend-local table, with its literal text, until asked
 * for. A query id with no remembered text (the table was full and started
 * over since the parse, or a statement nested in EXPLAIN or PREPARE whose
 * span cannot be told, nested_span) gets no text rather than its
 * constants.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/keywords.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "parser/scanner.h"
#include "parser/scansup.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "base/base.h"

/*
 * Past this many query ids the table starts over; each text is cut as
 * sfcache.statements cuts it (cache_stats.c), so a backend holds 1 MB of
 * texts at most.
 */
#define MAX_REMEMBERED		2048
#define MAX_TEXT_LEN		256

typedef struct RememberedText
{
	uint64		queryid;		/* hash key */
	char	   *normalized;		/* both in TopMemoryContext */
	char	   *literal;
} RememberedText;

bool		sfc_literal_texts = false;

static HTAB *remembered = NULL;

/*
 * The query ids found or entered last, by their low bits: most statements
 * find theirs here, without the hash lookup that was a twentieth of what
 * sfcache added to a primary-key SELECT (bench/callgrind-select). Each is
 * in remembered; emptied with it.
 */
#define RECENT_REMEMBERED	64
static uint64 recent_remembered[RECENT_REMEMBERED];

/* queryid's place there (unsigned: Query.queryId is an int64 from 18 on) */
static inline uint64 *
recent_slot(uint64 queryid)
{
	return &recent_remembered[queryid % RECENT_REMEMBERED];
}

void
SfcNormalizeInit(void)
{
	DefineCustomBoolVariable("sfcache.literal_texts",
							 "Whether statement texts keep their constants.",
							 "Off: constants are shown as $n, as pg_stat_statements shows them.",
							 &sfc_literal_texts, false,
							 PGC_SUSET, 0, NULL, NULL, NULL);
}

/* Is the token at word (NUL-terminated by the scanner) this keyword? */
static bool
word_is(const char *word, const char *keyword)
{
	return pg_strcasecmp(word, keyword) == 0;
}

static bool
is_explain_option(const char *word)
{
	return word_is(word, "analyze") || word_is(word, "analyse") ||
		word_is(word, "verbose");
}

/*
 * How many bytes at the start of span are an EXPLAIN or a PREPARE around
 * the statement: up to 17, the statement inside them is given the
 * wrapper's span.
 */
static int
wrapper_length(const char *span)
{
	core_yy_extra_type extra;
	core_yyscan_t scanner;
	core_YYSTYPE val;
	YYLTYPE		loc;
	int			tok;
	int			depth = 0;
	int			result = 0;
	bool		explain;
	bool		prepare;
	bool		after_as = false;

	scanner = scanner_init(span, &extra, &ScanKeywords, ScanKeywordTokens);
	SfcScannerQuiet(extra);
	tok = core_yylex(&val, &loc, scanner);
	explain = tok != 0 && word_is(extra.scanbuf + loc, "explain");
	prepare = tok != 0 && word_is(extra.scanbuf + loc, "prepare");
	while ((explain || prepare) && (tok = core_yylex(&val, &loc, scanner)) != 0)
	{
		const char *word = extra.scanbuf + loc;

		if (tok == '(')
			depth++;
		else if (tok == ')')
			depth--;
		else if (depth == 0 && (prepare ? after_as : !is_explain_option(word)))
		{
			result = loc;
			break;
		}
		if (prepare && depth == 0 && word_is(word, "as"))
			after_as = true;
	}
	scanner_finish(scanner);
	return result;
}

/*
 * The statement's own span of source, from the span the parser gave it
 * (location -1 or length 0: to the end of the string), without the
 * wrapper, surrounding white space or a final semicolon.
 */
static void
own_span(const char *source, int *location, int *length)
{
	char	   *span;
	int			skip;

	*location = Max(*location, 0);
	if (*length <= 0)
		*length = strlen(source + *location);
	span = pnstrdup(source + *location, *length);
	skip = wrapper_length(span);
	pfree(span);
	*location += skip;
	*length -= skip;
	while (*length > 0 && scanner_isspace(source[*location]))
		(*location)++, (*length)--;
	while (*length > 0 && scanner_isspace(source[*location + *length - 1]))
		(*length)--;
	if (*length > 0 && source[*location + *length - 1] == ';')
		(*length)--;
	while (*length > 0 && scanner_isspace(source[*location + *length - 1]))
		(*length)--;
}

static int
compare_location(const void *a, const void *b)
{
	int			l = ((const LocationLen *) a)->location;
	int			r = ((const LocationLen *) b)->location;

	return (l > r) - (l < r);
}

/*
 * Fill in the byte length of each constant locs (sorted, relative to span)
 * point at, with the core scanner as the parser read them; -1 for a
 * duplicate or one not found. A constant at a '-' is a negative number:
 * the parser puts its location at the sign.
 */
static void
constant_lengths(const char *span, LocationLen *locs, int n)
{
	core_yy_extra_type extra;
	core_yyscan_t scanner;
	core_YYSTYPE val;
	YYLTYPE		loc = -1;
	int			last = -1;
	int			tok = 1;

	scanner = scanner_init(span, &extra, &ScanKeywords, ScanKeywordTokens);
	SfcScannerQuiet(extra);
	for (int i = 0; i < n && tok != 0; i++)
	{
		int			at = locs[i].location;

		if (SfcConstantsSquashed(locs[i]))
			continue;			/* a list of constants: its length is known */
		locs[i].length = -1;
		if (at <= last)
			continue;
		while (loc < at && (tok = core_yylex(&val, &loc, scanner)) != 0)
			;
		if (tok != 0 && span[at] == '-')
			tok = core_yylex(&val, &loc, scanner);
		if (tok == 0)
			break;
		locs[i].length = strlen(extra.scanbuf + at);
		last = at;
	}
	scanner_finish(scanner);
}

/*
 * span (the statement's own text, at location in the source jstate's
 * constants are located in) with each constant replaced by $n, numbered
 * after the statement's own highest parameter.
 */
static char *
normalized_text(const char *span, int location, const JumbleState *jstate)
{
	int			len = strlen(span);
	LocationLen *locs = palloc(sizeof(LocationLen) * Max(jstate->clocations_count, 1));
	int			n = 0;
	int			copied = 0;
	int			replaced = 0;
	StringInfoData buf;

	for (int i = 0; i < jstate->clocations_count; i++)
	{
		LocationLen c = jstate->clocations[i];

		if (c.location < location || c.location >= location + len ||
			SfcLocationIsParam(jstate, c))
			continue;
		c.location -= location;
		locs[n++] = c;
	}
	qsort(locs, n, sizeof(LocationLen), compare_location);
	constant_lengths(span, locs, n);

	initStringInfo(&buf);
	for (int i = 0; i < n; i++)
	{
		if (locs[i].length < 0 || locs[i].location < copied)
			continue;
		appendBinaryStringInfo(&buf, span + copied, locs[i].location - copied);
		appendStringInfo(&buf, "$%d%s", ++replaced + jstate->highest_extern_param_id,
						 SfcConstantsSquashed(locs[i]) ? " /*, ... */" : "");
		copied = Min(locs[i].location + locs[i].length, len);
	}
	appendBinaryStringInfo(&buf, span + copied, len - copied);
	pfree(locs);
	return buf.data;
}

/* A copy of str in TopMemoryContext, cut at MAX_TEXT_LEN on a character. */
static char *
kept_copy(const char *str)
{
	int			len = pg_mbcliplen(str, strlen(str), MAX_TEXT_LEN - 1);
	char	   *copy = MemoryContextAlloc(TopMemoryContext, len + 1);

	memcpy(copy, str, len);
	copy[len] = '\0';
	return copy;
}

static void
reset_remembered(void)
{
	HASH_SEQ_STATUS seq;
	RememberedText *r;
	HASHCTL		info;

	if (remembered != NULL)
	{
		hash_seq_init(&seq, remembered);
		while ((r = hash_seq_search(&seq)) != NULL)
		{
			pfree(r->normalized);
			pfree(r->literal);
		}
		hash_destroy(remembered);
	}
	memset(recent_remembered, 0, sizeof(recent_remembered));
	info.keysize = sizeof(uint64);
	info.entrysize = sizeof(RememberedText);
	info.hcxt = TopMemoryContext;
	remembered = hash_create("sfcache statement texts", 256, &info,
							 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

/*
 * Up to 17 a statement inside EXPLAIN or PREPARE has no span of its own
 * (location and length 0: the whole string). In a string of several
 * statements its own is the one its first constant is in; without a
 * constant it cannot be told: false, and no text is kept.
 */
static bool
nested_span(const char *source, const JumbleState *jstate, int *location, int *length)
{
	core_yy_extra_type extra;
	core_yyscan_t scanner;
	core_YYSTYPE val;
	YYLTYPE		loc;
	int			tok;
	int			first = -1;		/* the first constant's location */
	int			depth = 0;
	int			start = 0;		/* where the current statement starts */
	int			end = -1;		/* where the one found ends */
	int			statements = 0; /* with a token, before the current one */
	bool		tokens = false; /* the current one has a token */

	for (int i = 0; i < jstate->clocations_count; i++)
		if (first < 0 || jstate->clocations[i].location < first)
			first = jstate->clocations[i].location;
	scanner = scanner_init(source, &extra, &ScanKeywords, ScanKeywordTokens);
	SfcScannerQuiet(extra);
	while (end < 0 && (tok = core_yylex(&val, &loc, scanner)) != 0)
	{
		if (tok == ';' && depth == 0)
		{
			if (first >= start && first < loc)
				end = loc;
			else
			{
				statements += tokens;
				tokens = false;
				start = loc + 1;
			}
			continue;
		}
		if (tok == '(')
			depth++;
		else if (tok == ')')
			depth--;
		tokens = true;
	}
	scanner_finish(scanner);
	if (end < 0 && first < 0 && statements + tokens > 1)
		return false;
	if (end < 0 && first < 0)
		start = 0;
	*location = start;
	*length = end < 0 ? 0 : end - start;
	return true;
}

/*
 * Remember the texts of a query id not in recent_remembered (which it then
 * is). Apart from SfcRememberStatementText(), whose usual answer then saves
 * no registers.
 */
static pg_noinline void
remember_text(const char *source, Query *query, const JumbleState *jstate)
{
	RememberedText *r;
	bool		found;
	int			location = query->stmt_location;
	int			length = query->stmt_len;
	char	   *span;
	char	   *normalized;

	if (remembered != NULL && hash_search(remembered, &query->queryId, HASH_FIND, NULL) != NULL)
	{
		*recent_slot(query->queryId) = query->queryId;
		return;
	}
	if (location <= 0 && length <= 0 &&
		!nested_span(source, jstate, &location, &length))
		return;
	if (remembered == NULL || hash_get_num_entries(remembered) >= MAX_REMEMBERED)
		reset_remembered();
	own_span(source, &location, &length);
	span = pnstrdup(source + location, length);
	normalized = normalized_text(span, location, jstate);
	r = hash_search(remembered, &query->queryId, HASH_ENTER, &found);
	r->normalized = kept_copy(normalized);
	r->literal = kept_copy(span);
	*recent_slot(query->queryId) = query->queryId;
	pfree(normalized);
	pfree(span);
}

/*
 * post_parse_analyze (core_hooks.c): remember the texts of a query id this
 * backend has not seen yet.
 */
void
SfcRememberStatementText(const char *source, Query *query, const JumbleState *jstate)
{
	if (jstate == NULL || query->queryId == 0 || source == NULL ||
		*recent_slot(query->queryId) == (uint64) query->queryId)
		return;
	remember_text(source, query, jstate);
}

/*
 * The text to show for statement queryid, whose span of source the parser
 * gave as location and length (palloc'd): the one remembered at its parse,
 * normalized unless sfcache.literal_texts is on; without one, with
 * sfcache.literal_texts its own span as it is, else NULL.
 */
char *
SfcStatementText(uint64 queryid, const char *source, int location, int length)
{
	RememberedText *r = NULL;

	if (remembered != NULL)
		r = hash_search(remembered, &queryid, HASH_FIND, NULL);
	if (r != NULL)
		return pstrdup(sfc_literal_texts ? r->literal : r->normalized);
	if (!sfc_literal_texts || source == NULL)
		return NULL;
	own_span(source, &location, &length);
	return pnstrdup(source + location, length);
}
