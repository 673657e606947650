/*-------------------------------------------------------------------------
 *
 * options.c
 *		sfcache-advisor's command line: getopt_long, the checks of every
 *		option value (a bad one is logged and main() exits 2), --help,
 *		--version, and the options as echoed in the output's header.
 *		getopt_long's own messages start with the program's short name.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>

#include "common/logging.h"

#include "advisor.h"

enum
{
	OPT_MAX_INDEXES = 256,
	OPT_MAX_SIZE,
	OPT_MIN_CALLS,
	OPT_MIN_BENEFIT,
	OPT_TABLE,
	OPT_APP,
	OPT_NAME,
	OPT_DOWN,
	OPT_REPLACE,
	OPT_REPLACE_OWNED,
	OPT_NO_CACHE_SETTINGS,
	OPT_APPLY,
	OPT_CHECK,
	OPT_ALLOW_PARTIAL
};

/*
 * Set by the first bad option (ADVISOR_EXIT_USAGE), --help or --version
 * (0): parsing stops and main() exits with it. -1 while parsing goes on.
 */
static int	parse_status = -1;

/* The program's name without its directory, as getopt_long's prefix. */
static const char *progname;

static void
usage(void)
{
	printf("sfcache-advisor turns the index advice recorded by the sfcache extension\n"
		   "into migration SQL.\n\n"
		   "Usage:\n"
		   "  sfcache-advisor [OPTION]... [CONNINFO]\n\n"
		   "Connection options:\n"
		   "  -d, --dbname=CONNINFO    database name or connection string\n"
		   "  -h, --host=HOSTNAME      database server host or socket directory\n"
		   "  -p, --port=PORT          database server port\n"
		   "  -U, --username=USERNAME  database user name\n"
		   "  -w, --no-password        never prompt for password\n"
		   "  -W, --password           force password prompt\n\n"
		   "Output options:\n"
		   "  -f, --format=FORMAT      sql (default), django or json\n"
		   "  -o, --output=FILE        write to FILE instead of standard output\n"
		   "                           (django: a directory gets NAME.py)\n"
		   "      --down               write the reverse migration\n"
		   "      --replace            drop the existing indexes a suggestion makes\n"
		   "                           redundant (never those backing a constraint;\n"
		   "                           in --format=django not those Django's\n"
		   "                           migrations created)\n"
		   "      --replace-owned      --replace, and also drop the indexes Django's\n"
		   "                           migrations created (change the model too)\n"
		   "      --no-cache-settings  leave out the cache setting recommendations\n"
		   "      --app=LABEL          django: the application label\n"
		   "      --name=NAME          django: the migration name\n\n"
		   "Selection options:\n"
		   "      --max-indexes=N      suggest at most N indexes\n"
		   "      --max-size=SIZE      storage budget for new indexes (e.g. 500MB)\n"
		   "      --min-calls=N        ignore suggestions seen in fewer (sampled) calls\n"
		   "                           (default: 2)\n"
		   "      --min-benefit=F      ignore suggestions saving less than F (0..1)\n"
		   "                           of the estimated cost\n"
		   "      --table=PATTERN      only tables matching PATTERN (TABLE or\n"
		   "                           SCHEMA.TABLE, * and ? wildcards; repeatable)\n\n"
		   "Other options:\n"
		   "      --apply              also create the indexes now, one at a time\n"
		   "      --check              exit with status 1 if there is anything to\n"
		   "                           suggest (as git diff --exit-code)\n"
		   "      --allow-partial-visibility\n"
		   "                           --check by a role that sees only its own\n"
		   "                           statements: a warning, not exit status 6\n"
		   "  -q, --quiet              nothing on standard error but errors\n"
		   "  -V, --version            print the version and exit\n"
		   "  -?, --help               show this help and exit\n\n"
		   "PG* environment variables and ~/.pgpass are used as in psql.\n\n"
		   "Exit status:\n"
		   "  0  done: the output was written, with or without suggestions\n"
		   "  1  --check only: there is something to suggest\n"
		   "  2  bad command line\n"
		   "  3  sfcache is not installed in the database, or is of another version\n"
		   "  4  could not connect\n"
		   "  5  a query failed (a privilege missing, for one), the output could not\n"
		   "     be written, --apply failed, or Ctrl-C\n"
		   "  6  --check only: the role sees only its own statements (it is not a\n"
		   "     member of pg_read_all_stats)\n\n"
		   "See the sfcache-advisor(1) manual page.\n");
}

/* Where to look: after any usage error. */
static void
usage_hint(void)
{
	pg_log_error_hint("Try \"%s --help\" for more information.", "sfcache-advisor");
}

/* Log a one-line reason (the first only); parsing stops and main() exits 2. */
static void
usage_error(const char *fmt, const char *arg)
{
	if (parse_status >= 0)
		return;
	pg_log_error(fmt, arg);
	usage_hint();
	if (parse_status < 0)
		parse_status = ADVISOR_EXIT_USAGE;
}

/* A whole non-negative integer, or 0 after a usage error. */
static long long
parse_count(const char *opt, const char *arg, long long max)
{
	char	   *end;
	long long	v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || v < 0 || v > max)
	{
		pg_log_error("invalid value \"%s\" for %s: a whole number from 0 to %lld is required",
					 arg, opt, max);
		usage_hint();
		parse_status = ADVISOR_EXIT_USAGE;
		return 0;
	}
	return v;
}

/* A size such as 500MB, 2GB, 8192 (bytes); units are 1024-based, as in PostgreSQL. */
static long long
parse_size(const char *arg)
{
	static const struct
	{
		const char *unit;
		double		mult;
	}			units[] = {
		{"", 1}, {"B", 1}, {"kB", 1024.0}, {"MB", 1048576.0},
		{"GB", 1073741824.0}, {"TB", 1099511627776.0}
	};
	char	   *end;
	double		v;
	int			i;

	errno = 0;
	v = strtod(arg, &end);
	while (*end == ' ')
		end++;
	if (errno == 0 && end != arg && v >= 0 && isfinite(v))
	{
		for (i = 0; i < (int) lengthof(units); i++)
			if (pg_strcasecmp(end, units[i].unit) == 0 && v * units[i].mult < 9.0e18)
				return (long long) (v * units[i].mult);
	}
	usage_error("invalid value \"%s\" for --max-size: a size such as 500MB, 2GB or 8192 (bytes) is required", arg);
	return -1;
}

static double
parse_fraction(const char *arg)
{
	char	   *end;
	double		v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno != 0 || end == arg || *end != '\0' || !(v >= 0 && v <= 1))
		usage_error("invalid value \"%s\" for --min-benefit: a number from 0 to 1 is required", arg);
	return v;
}

static void
parse_format(AdvisorOptions *opts, const char *arg)
{
	if (strcmp(arg, "sql") == 0)
		opts->format = FORMAT_SQL;
	else if (strcmp(arg, "django") == 0)
		opts->format = FORMAT_DJANGO;
	else if (strcmp(arg, "json") == 0)
		opts->format = FORMAT_JSON;
	else
		usage_error("invalid value \"%s\" for --format: sql, django or json is required", arg);
	opts->format_name = arg;
}

/* The options that select or filter suggestions. */
static int
parse_selection(AdvisorOptions *opts, int c, const char *arg)
{
	switch (c)
	{
		case OPT_MAX_INDEXES:
			opts->max_indexes = (int) parse_count("--max-indexes", arg, INT_MAX);
			return 1;
		case OPT_MAX_SIZE:
			opts->max_size = parse_size(arg);
			opts->max_size_text = arg;
			return 1;
		case OPT_MIN_CALLS:
			opts->min_calls = parse_count("--min-calls", arg, LLONG_MAX);
			return 1;
		case OPT_MIN_BENEFIT:
			opts->min_benefit = parse_fraction(arg);
			return 1;
		case OPT_TABLE:
			if (*arg == '\0')
				usage_error("invalid value \"%s\" for --table: a pattern is required", arg);
			opts->tables = pg_realloc(opts->tables, sizeof(char *) * (opts->ntables + 1));
			opts->tables[opts->ntables++] = arg;
			return 1;
	}
	return 0;
}

/* The options that shape the output. */
static int
parse_output(AdvisorOptions *opts, int c, const char *arg)
{
	switch (c)
	{
		case 'o':
			opts->output = arg;
			return 1;
		case 'f':
			parse_format(opts, arg);
			return 1;
		case OPT_APP:
		case OPT_NAME:
			if (*arg == '\0' || strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(arg))
				usage_error("invalid value \"%s\" for --app or --name: letters, digits and underscores are required", arg);
			if (c == OPT_APP)
				opts->app = arg;
			else
				opts->name = arg;
			return 1;
		case OPT_DOWN:
			opts->down = 1;
			return 1;
		case OPT_REPLACE:
			opts->replace = 1;
			return 1;
		case OPT_REPLACE_OWNED:
			opts->replace = opts->replace_owned = 1;
			return 1;
		case OPT_NO_CACHE_SETTINGS:
			opts->no_cache_settings = 1;
			return 1;
	}
	return 0;
}

/* Connection and the remaining options; an unknown one is a usage error. */
static void
parse_one(AdvisorOptions *opts, int c, const char *arg)
{
	if (parse_selection(opts, c, arg) || parse_output(opts, c, arg))
		return;
	switch (c)
	{
		case 'd':
			opts->conn.conninfo = arg;
			break;
		case 'h':
			opts->conn.host = arg;
			break;
		case 'p':
			opts->conn.port = arg;
			break;
		case 'U':
			opts->conn.username = arg;
			break;
		case 'w':
			opts->conn.prompt_password = TRI_NO;
			break;
		case 'W':
			opts->conn.prompt_password = TRI_YES;
			break;
		case 'q':
			opts->quiet = 1;
			break;
		case OPT_APPLY:
			opts->apply = 1;
			break;
		case OPT_CHECK:
			opts->check = 1;
			break;
		case OPT_ALLOW_PARTIAL:
			opts->allow_partial = 1;
			break;
		case 'V':
			printf("sfcache-advisor %s\n", SFCACHE_VERSION);
			parse_status = 0;
			break;
		default:
			/* getopt_long has said what is wrong */
			usage_hint();
			parse_status = ADVISOR_EXIT_USAGE;
	}
}

/*
 * Fill opts from the command line. Returns -1 to go on, or the exit code:
 * 0 after --help or --version, ADVISOR_EXIT_USAGE after a usage error
 * (logged).
 */
int
advisor_parse_options(int argc, char **argv, AdvisorOptions *opts)
{
	static const struct option long_options[] = {
		{"dbname", required_argument, NULL, 'd'},
		{"host", required_argument, NULL, 'h'},
		{"port", required_argument, NULL, 'p'},
		{"username", required_argument, NULL, 'U'},
		{"no-password", no_argument, NULL, 'w'},
		{"password", no_argument, NULL, 'W'},
		{"output", required_argument, NULL, 'o'},
		{"format", required_argument, NULL, 'f'},
		{"quiet", no_argument, NULL, 'q'},
		{"max-indexes", required_argument, NULL, OPT_MAX_INDEXES},
		{"max-size", required_argument, NULL, OPT_MAX_SIZE},
		{"min-calls", required_argument, NULL, OPT_MIN_CALLS},
		{"min-benefit", required_argument, NULL, OPT_MIN_BENEFIT},
		{"table", required_argument, NULL, OPT_TABLE},
		{"app", required_argument, NULL, OPT_APP},
		{"name", required_argument, NULL, OPT_NAME},
		{"down", no_argument, NULL, OPT_DOWN},
		{"replace", no_argument, NULL, OPT_REPLACE},
		{"replace-owned", no_argument, NULL, OPT_REPLACE_OWNED},
		{"no-cache-settings", no_argument, NULL, OPT_NO_CACHE_SETTINGS},
		/* the name before 0.3, when TTLs were recommended: hidden */
		{"no-ttl", no_argument, NULL, OPT_NO_CACHE_SETTINGS},
		{"apply", no_argument, NULL, OPT_APPLY},
		{"check", no_argument, NULL, OPT_CHECK},
		{"allow-partial-visibility", no_argument, NULL, OPT_ALLOW_PARTIAL},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, '?'},
		{NULL, 0, NULL, 0}
	};
	int			c;

	memset(opts, 0, sizeof(*opts));
	opts->max_indexes = -1;
	opts->max_size = -1;
	opts->min_calls = ADVISOR_DEFAULT_MIN_CALLS;
	opts->format_name = "sql";
	/* getopt_long starts its messages with argv[0]: the short name there */
	progname = get_progname(argv[0]);
	argv[0] = unconstify(char *, progname);

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-?") == 0))
	{
		usage();
		return 0;
	}
	while (parse_status < 0 &&
		   (c = getopt_long(argc, argv, "d:h:p:U:wWo:f:qV", long_options, NULL)) != -1)
		parse_one(opts, c, optarg);
	if (parse_status >= 0)
		return parse_status;

	if (optind < argc)
	{
		if (opts->conn.conninfo != NULL)
			usage_error("both -d and a connection string were given: \"%s\"", argv[optind]);
		opts->conn.conninfo = argv[optind++];
	}
	if (optind < argc)
		usage_error("too many command-line arguments (first is \"%s\")", argv[optind]);
	if ((opts->app || opts->name) && opts->format != FORMAT_DJANGO)
		usage_error("%s applies to --format=django only", opts->app ? "--app" : "--name");
	if (opts->down && opts->format != FORMAT_SQL)
		usage_error("--down applies to --format=sql only (%s output carries both directions)", opts->format_name);
	if (opts->apply && opts->down)
		usage_error("%s cannot be combined with --down", "--apply");
	return parse_status;
}

/* The options that shape the output (never connection settings), for the header. */
char *
advisor_options_text(const AdvisorOptions *opts)
{
	PQExpBufferData b;
	int			i;

	initPQExpBuffer(&b);
	appendPQExpBuffer(&b, "--format=%s", opts->format_name);
	if (opts->down)
		appendPQExpBufferStr(&b, " --down");
	if (opts->replace)
		appendPQExpBufferStr(&b, opts->replace_owned ? " --replace-owned" : " --replace");
	if (opts->no_cache_settings)
		appendPQExpBufferStr(&b, " --no-cache-settings");
	if (opts->apply)
		appendPQExpBufferStr(&b, " --apply");
	if (opts->max_indexes >= 0)
		appendPQExpBuffer(&b, " --max-indexes=%d", opts->max_indexes);
	if (opts->max_size >= 0)
		appendPQExpBuffer(&b, " --max-size=%lld", opts->max_size);
	/* always: a default that hides one-call statements should show */
	appendPQExpBuffer(&b, " --min-calls=%lld", opts->min_calls);
	if (opts->min_benefit > 0)
		appendPQExpBuffer(&b, " --min-benefit=%g", opts->min_benefit);
	for (i = 0; i < opts->ntables; i++)
		appendPQExpBuffer(&b, " --table=%s", opts->tables[i]);
	if (opts->app)
		appendPQExpBuffer(&b, " --app=%s", opts->app);
	if (opts->name)
		appendPQExpBuffer(&b, " --name=%s", opts->name);
	return b.data;
}
