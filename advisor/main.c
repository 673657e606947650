/*-------------------------------------------------------------------------
 *
 * main.c
 *		sfcache-advisor's command line: options, the flow from connection to
 *		output, and the exit code.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include <getopt.h>

#include "advisor.h"

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
		   "  -U, --username=USERNAME  database user name\n\n"
		   "Other options:\n"
		   "  -o, --output=FILE        write to FILE instead of standard output\n"
		   "  -V, --version            print the version and exit\n"
		   "  -?, --help               show this help and exit\n\n"
		   "PG* environment variables and ~/.pgpass are used as in psql.\n\n"
		   "Exit status: 0 nothing to suggest, 1 suggestions written,\n"
		   "2 usage or connection error, 3 sfcache missing or of another version.\n");
}

static void
usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "sfcache-advisor: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry \"sfcache-advisor --help\" for more information.\n");
	exit(ADVISOR_EXIT_USAGE);
}

int
main(int argc, char **argv)
{
	static const struct option long_options[] = {
		{"dbname", required_argument, NULL, 'd'},
		{"host", required_argument, NULL, 'h'},
		{"port", required_argument, NULL, 'p'},
		{"username", required_argument, NULL, 'U'},
		{"output", required_argument, NULL, 'o'},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, '?'},
		{NULL, 0, NULL, 0}
	};
	ConnectOptions copts = {0};
	const char *output = NULL;
	FILE	   *out = stdout;
	PGconn	   *conn;
	char	   *version;
	int			c;

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-?") == 0))
	{
		usage();
		exit(0);
	}

	while ((c = getopt_long(argc, argv, "d:h:p:U:o:V", long_options, NULL)) != -1)
	{
		switch (c)
		{
			case 'd':
				copts.conninfo = optarg;
				break;
			case 'h':
				copts.host = optarg;
				break;
			case 'p':
				copts.port = optarg;
				break;
			case 'U':
				copts.username = optarg;
				break;
			case 'o':
				output = optarg;
				break;
			case 'V':
				printf("sfcache-advisor %s\n", SFCACHE_VERSION);
				exit(0);
			default:
				fprintf(stderr, "Try \"sfcache-advisor --help\" for more information.\n");
				exit(ADVISOR_EXIT_USAGE);
		}
	}
	if (optind < argc)
	{
		if (copts.conninfo != NULL)
			usage_error("both -d and a connection string were given: \"%s\"", argv[optind]);
		copts.conninfo = argv[optind++];
	}
	if (optind < argc)
		usage_error("too many command-line arguments (first is \"%s\")", argv[optind]);

	conn = advisor_connect(&copts);
	version = advisor_check_extension(conn);

	if (output != NULL && (out = fopen(output, "w")) == NULL)
	{
		fprintf(stderr, "sfcache-advisor: could not open \"%s\" for writing: %s\n",
				output, strerror(errno));
		PQfinish(conn);
		exit(ADVISOR_EXIT_USAGE);
	}

	fprintf(out, "-- sfcache-advisor %s, database \"%s\", extension %s\n",
			SFCACHE_VERSION, PQdb(conn), version);
	fprintf(out, "-- no index advice: this version of sfcache records none yet\n");

	if (out != stdout && fclose(out) != 0)
	{
		fprintf(stderr, "sfcache-advisor: could not write \"%s\": %s\n",
				output, strerror(errno));
		exit(ADVISOR_EXIT_USAGE);
	}
	free(version);
	PQfinish(conn);
	return ADVISOR_EXIT_NOTHING;
}
