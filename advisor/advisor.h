/*-------------------------------------------------------------------------
 *
 * advisor.h
 *		Declarations shared by the files of sfcache-advisor: the options,
 *		the workload read from the database (advice, existing indexes, cache
 *		settings, statements, column statistics) and the functions of each step
 *		(fetch, consolidate, name, emit, apply).
 *
 *-------------------------------------------------------------------------
 */
#ifndef SFCACHE_ADVISOR_H
#define SFCACHE_ADVISOR_H

#include <stdio.h>

#include "fe_utils/connect_utils.h"
#include "libpq-fe.h"
#include "pqexpbuffer.h"

/*
 * Exit codes a deploy script can act on (--help and sfcache-advisor.1 list
 * them): 0 whenever the advisor did its job, with or without suggestions;
 * 1 only with --check, as "git diff --exit-code"; 6 only with --check, when
 * the role cannot see the statements it would vouch for.
 */
#define ADVISOR_EXIT_OK				0	/* done */
#define ADVISOR_EXIT_CHECK			1	/* --check: there is something to
										 * suggest */
#define ADVISOR_EXIT_USAGE			2	/* bad command line */
#define ADVISOR_EXIT_EXTENSION		3	/* extension missing or of another
										 * version */
#define ADVISOR_EXIT_CONNECT		4	/* could not connect */
#define ADVISOR_EXIT_FAILED			5	/* a query failed (privileges), the
										 * output could not be written,
										 * --apply failed, or Ctrl-C */
#define ADVISOR_EXIT_PARTIAL		6	/* --check: the role sees only its own
										 * statements */

/*
 * --min-calls unless given: a statement executed (sampled) once, an ad-hoc
 * query in psql, does not make --check fail.
 */
#define ADVISOR_DEFAULT_MIN_CALLS	2

/* The longest index name PostgreSQL keeps (NAMEDATALEN - 1). */
#define ADVISOR_MAX_NAME			63

/* How to reach the database, as psql takes it. */
typedef struct ConnectOptions
{
	const char *conninfo;		/* positional CONNINFO or -d value */
	const char *host;
	const char *port;
	const char *username;
	enum trivalue prompt_password;	/* -W: TRI_YES, -w: TRI_NO */
} ConnectOptions;

typedef enum OutputFormat
{
	FORMAT_SQL,
	FORMAT_DJANGO,
	FORMAT_JSON
} OutputFormat;

/* Everything the command line says, connection aside. */
typedef struct AdvisorOptions
{
	ConnectOptions conn;
	const char *output;			/* -o FILE (or directory for django) */
	OutputFormat format;
	const char *format_name;
	int			max_indexes;	/* -1: no limit */
	long long	max_size;		/* bytes; -1: no limit */
	const char *max_size_text;
	long long	min_calls;
	double		min_benefit;
	const char **tables;		/* --table patterns */
	int			ntables;
	const char *app;			/* --app LABEL (django) */
	const char *name;			/* --name NAME (django) */
	int			down;
	int			replace;
	int			replace_owned;	/* --replace-owned: Django's indexes too */
	int			no_cache_settings;	/* --no-cache-settings (or --no-ttl) */
	int			apply;
	int			check;			/* --check: exit 1 if anything is suggested */
	int			allow_partial;	/* --allow-partial-visibility */
	int			quiet;
} AdvisorOptions;

/* A growable array of malloc'd strings. */
typedef struct StrList
{
	char	  **items;
	int			n;
	int			cap;
} StrList;

/*
 * An index definition split from its text "<am> (<keys>)<rest>", as
 * pg_get_indexdef() and the extension print it after USING.
 */
typedef struct IndexDef
{
	char	   *am;				/* btree, gin, ... */
	StrList		elems;			/* each key element as written */
	StrList		keys;			/* each key without opclass or ordering */
	StrList		include;		/* INCLUDE columns as written */
	char	   *pred;			/* the WHERE clause, or NULL */
	int			has_extra;		/* INCLUDE, WITH, ... after the keys */
} IndexDef;

/* Which part of a Django model an existing index comes from (owners.c). */
typedef enum DjangoKind
{
	DJANGO_NONE,				/* not Django's */
	DJANGO_FOREIGN_KEY,			/* "<table>_<column>_<digest>", a foreign key */
	DJANGO_DB_INDEX,			/* the same name, no foreign key: db_index */
	DJANGO_LIKE,				/* "..._like": db_index's pattern_ops twin */
	DJANGO_INDEX_TOGETHER,		/* "<table>_<columns>_<digest>_idx" */
	DJANGO_META_INDEX,			/* Meta.indexes entry named by Django */
	DJANGO_APP_TABLE			/* another on an app's table: named entry */
} DjangoKind;

/* An index that exists already. */
typedef struct ExistingIndex
{
	char	   *schema;
	char	   *table;
	char	   *name;
	char	   *tail;			/* after USING, or NULL if unparsable */
	IndexDef	def;
	int			unique;
	int			valid;
	int			constraint;		/* backs a constraint: never dropped */
	char	   *constraint_name;	/* that constraint, or NULL */
	char	   *django_app;		/* on a table of this Django app, or NULL */
	DjangoKind	django_kind;	/* what of a model made it (owners.c) */
	int			kept;			/* owned: never dropped by this run */
} ExistingIndex;

/*
 * One suggested index: from sfcache.index_advice, or from
 * sfcache.window_advice (window_only: a btree index on a range column whose
 * result cache windows starved, with no estimated cost).
 */
typedef struct Advice
{
	char	   *schema;
	char	   *table;
	char	   *ext_name;		/* the name the extension proposed */
	char	   *replaces;		/* the extension's "replaces", or NULL */
	IndexDef	def;
	long long	calls;
	long long	rows_scanned;
	long long	rows_returned;
	double		cost_before;
	double		cost_after;
	double		benefit;		/* 1 - after / before */
	long long	size;			/* estimated bytes */
	double		marginal;		/* its share of the configuration's saving */
	double		upkeep;			/* its maintenance under the write rate */
	StrList		queryids;		/* the statements it serves */
	StrList		absorbed;		/* suggestions merged into this one */
	int		   *redundant;		/* indexes into Workload.existing */
	int			nredundant;
	char	   *name;			/* the advisor's own name */
	int			absorbed_by;	/* -1, or the suggestion it merged into */
	int			chosen;
	int			budget_skipped;
	int			window_only;	/* from sfcache.window_advice */
	char	   *window_column;	/* the windowed column it serves, or NULL */
	long long	windows_starved;	/* point windows for want of it */
	double		time_ms;		/* window_only: sampled scans' time */
} Advice;

/* What a cache setting recommendation does (cache_settings.c). */
typedef enum CacheAction
{
	CACHE_TRACK,				/* sfcache.track(table, column) */
	CACHE_EXCLUDE				/* sfcache.exclude(table) */
} CacheAction;

/* A result cache setting recommended from the table churn and the quals. */
typedef struct CacheSetting
{
	CacheAction action;
	char	   *schema;
	char	   *table;
	char	   *column;			/* track: the column; exclude: NULL */
	long long	writes;			/* committed transactions that wrote it */
	double		writes_per_minute;
	long long	calls;			/* sampled calls of the quals behind it */
	StrList		queryids;		/* the statements behind it */
	long long	stores;			/* exclude: their results stored ... */
	long long	hits;			/* ... and read from the cache */
} CacheSetting;

/* A statement shape from sfcache.statements, for the evidence. */
typedef struct StatementInfo
{
	char	   *queryid;
	long long	calls;
	long long	hits;
	char	   *query;
} StatementInfo;

/* A statement's observed counters (observe.c), every role's together. */
typedef struct ObservedStatement
{
	char	   *queryid;
	long long	calls;
	long long	hits;			/* observed_hits */
	long long	coalesced;		/* observed_coalesced */
	long long	window_hits;	/* observed_window_hits */
	double		saved_s_per_hour;	/* observed_saved_time per hour */
	char	   *query;
	int			chosen;			/* worth the cache */
} ObservedStatement;

/* What observe mode forecasts for this database (observe.c). */
typedef struct ObserveForecast
{
	ObservedStatement *stmts;	/* the statements observed served */
	int			n;
	int			nchosen;
	long long	reads;			/* calls of every statement of the database */
	long long	served;			/* of them, the chosen statements' observed */
	double		saved_s_per_hour;	/* the chosen statements' */
	double		hours;			/* since sfcache.reset() */
} ObserveForecast;

/* n_distinct of one column, from pg_stats. */
typedef struct ColumnStat
{
	char	   *schema;
	char	   *table;
	char	   *column;
	double		n_distinct;
} ColumnStat;

/* The work of the extension's configuration search (index_advice_work). */
typedef struct SearchWork
{
	int			done;			/* 0: the extension did no search */
	int			statements;
	int			candidates;
	long long	plannings;
	long long	max_plannings;
	int			truncated;
	double		cost_before;
	double		cost_after;
} SearchWork;

/* What the advisor works with, read once. */
typedef struct Workload
{
	char	   *dbname;
	char	   *ext_version;
	char	   *generated_at;	/* UTC time of the run */
	char	   *options_text;	/* the options, for the header */
	char	   *migration_name; /* django: the migration's name */
	char	   *dependency;		/* django: the app's latest migration, or NULL */
	Advice	   *advice;
	int			nadvice;
	ExistingIndex *existing;
	int			nexisting;
	CacheSetting *cache;
	int			ncache;
	StatementInfo *stmts;
	int			nstmts;
	ObserveForecast observe;
	ColumnStat *stats;
	int			nstats;
	SearchWork	search;
	int			nchosen;
	int			nbudget_skipped;
	int			nbudget_left;	/* more the search chooses without the budget */
	int			nfiltered;
} Workload;

/*
 * Errors: a function that can fail logs the reason (common/logging.h) and
 * returns false, NULL or an exit code; main() alone closes the connection
 * and exits.
 */

/* connect.c */
extern PGconn *advisor_connect(const ConnectOptions *opts, int *status);
extern void advisor_disconnect(PGconn *conn);
extern int	advisor_check_extension(PGconn *conn, char **version);
extern void advisor_query_error(PGconn *conn, const char *what, const char *sql);
extern void advisor_result_error(PGconn *conn, const PGresult *res,
								 const char *what, const char *sql);

/* options.c */
extern int	advisor_parse_options(int argc, char **argv, AdvisorOptions *opts);
extern char *advisor_options_text(const AdvisorOptions *opts);

/* strlist.c */
extern void strlist_add(StrList *l, const char *s);
extern void strlist_add_nocopy(StrList *l, char *s);
extern int	strlist_find(const StrList *l, const char *s);
extern void strlist_free(StrList *l);
extern bool advisor_quoting_failed;
extern char *esc_ident(PGconn *conn, const char *ident);
extern char *esc_literal(PGconn *conn, const char *text);
extern void append_comment_text(PQExpBuffer buf, const char *text, int max);
extern void format_size(char *buf, size_t len, long long bytes);

/* indexdef.c */
extern int	indexdef_parse(const char *tail, IndexDef *def);
extern void indexdef_free(IndexDef *def);
extern char *key_unquote(const char *key);
extern int	key_is_column(const char *key);

/* fetch.c */
extern bool fetch_workload(PGconn *conn, const AdvisorOptions *opts, Workload *w);
extern bool fetch_column_stats(PGconn *conn, Workload *w);
extern bool fetch_windows(PGconn *conn, const AdvisorOptions *opts, Workload *w);
extern void workload_free(Workload *w);
extern int	table_selected(const AdvisorOptions *opts, const char *schema,
						   const char *table);
extern PGresult *advisor_query(PGconn *conn, const char *what, const char *sql,
							   int nparams, const char *const *params);

/* consolidate.c */
extern void consolidate(Workload *w, const AdvisorOptions *opts);

/* owners.c */
extern bool django_migrations_readable(PGconn *conn, bool *readable);
extern bool owners_read(PGconn *conn, Workload *w);
extern void owner_text(const ExistingIndex *e, PQExpBuffer b);
extern void owner_model_change(const ExistingIndex *e, PQExpBuffer b);

/* naming.c */
extern bool name_indexes(PGconn *conn, Workload *w);

/* cache_settings.c */
extern bool cache_settings_fetch(PGconn *conn, const AdvisorOptions *opts, Workload *w);
extern int	cache_settings_count(const Workload *w);
extern void cache_setting_sql(PGconn *conn, const CacheSetting *s, int down, PQExpBuffer out);
extern void cache_setting_guarded_sql(PGconn *conn, const CacheSetting *s, int down,
									  PQExpBuffer out);
extern void cache_setting_evidence(const Workload *w, const CacheSetting *s, StrList *lines);
extern void cache_settings_free(Workload *w);

/* observe.c */
extern bool observe_fetch(PGconn *conn, const AdvisorOptions *opts, Workload *w);
extern void observe_forecast_lines(const Workload *w, StrList *lines);
extern void observe_free(Workload *w);

/* migration.c: the statements every format writes */
extern void migration_up(PGconn *conn, const Workload *w, const Advice *a,
						 int replace, StrList *out);
extern void migration_down(PGconn *conn, const Workload *w, const Advice *a,
						   int replace, StrList *out);
extern void migration_evidence(const Workload *w, const Advice *a, int replace,
							   StrList *lines);
extern char *qualified_name(PGconn *conn, const char *schema, const char *name);

/* emit_sql.c, emit_django.c, emit_json.c */
extern void emit_comment(FILE *out, const char *prefix, const char *text);
extern void emit_header(FILE *out, const char *prefix, const Workload *w,
						const AdvisorOptions *opts);
extern void emit_sql(FILE *out, PGconn *conn, const Workload *w, const AdvisorOptions *opts);
extern bool django_prepare(PGconn *conn, const AdvisorOptions *opts, Workload *w);
extern void emit_django(FILE *out, PGconn *conn, const Workload *w, const AdvisorOptions *opts);
extern void emit_json(FILE *out, PGconn *conn, const Workload *w, const AdvisorOptions *opts);

/* apply.c */
extern bool apply_lock(PGconn *conn, int quiet);
extern bool apply_migration(PGconn *conn, const Workload *w, const AdvisorOptions *opts);

#endif							/* SFCACHE_ADVISOR_H */
