# sfcache-advisor and hostile identifiers: a table named with quotes and
# semicolons, a column with a space, a schema with a dot, names colliding
# with existing relations and names longer than 63 bytes. The migration
# must do exactly the right thing when psql runs it. Also bad option values.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use JSON::PP;
use AdvisorTest;

for my $bad (
	[ [ '--max-indexes=abc' ], qr/invalid value "abc" for --max-indexes/ ],
	[ [ '--max-indexes=-1' ], qr/invalid value "-1" for --max-indexes/ ],
	[ [ '--max-size=12XB' ], qr/invalid value "12XB" for --max-size/ ],
	[ [ '--min-benefit=2' ], qr/invalid value "2" for --min-benefit/ ],
	[ [ '--min-calls=' ], qr/invalid value "" for --min-calls/ ],
	[ [ '--format=xml' ], qr/invalid value "xml" for --format/ ],
	[ [ '--app=lms' ], qr/--app applies to --format=django only/ ],
	[ [ '--format=json', '--down' ], qr/--down applies to --format=sql only/ ],
	[ [ '--apply', '--down' ], qr/--apply cannot be combined with --down/ ],
	[ [ '--format=django', '--name=a;b' ], qr/invalid value "a;b" for --app or --name/ ])
{
	my ($args, $err) = @$bad;
	command_checks_all(advisor(@$args, 'dbname=x'), 2, [qr/^$/], [$err],
		"bad option value: @$args");
}

command_checks_all(advisor("dbname='unterminated"), 4, [qr/^$/],
	[qr/^sfcache-advisor: error: could not connect: .*unterminated quoted string/],
	'malformed conninfo: exit 4 (a connection error)');

my $node = advisor_node('identifiers');
my $conn = $node->connstr('app');
$node->safe_psql('app', q{
CREATE TABLE x (id int);
INSERT INTO x VALUES (1);
CREATE SCHEMA "odd.schema";
CREATE TABLE "odd.schema"."weird; DROP TABLE x" (
	id serial PRIMARY KEY,
	"scope ids" jsonb NOT NULL,
	"it's ""quoted""" int NOT NULL,
	"Status" text NOT NULL);
INSERT INTO "odd.schema"."weird; DROP TABLE x" ("scope ids", "it's ""quoted""", "Status")
SELECT jsonb_build_array(i % 500), i % 300, (ARRAY['a', 'b', 'c'])[1 + i % 3]
FROM generate_series(1, 20000) i;
CREATE TABLE "odd.schema".a_table_whose_name_is_long_enough_to_overflow_the_limit_of_63 (
	id serial PRIMARY KEY, some_long_column_name int NOT NULL, another_long_column_name int NOT NULL);
INSERT INTO "odd.schema".a_table_whose_name_is_long_enough_to_overflow_the_limit_of_63
	(some_long_column_name, another_long_column_name)
SELECT i % 400, i % 7 FROM generate_series(1, 20000) i;
-- a relation that already has the name the advisor would choose
CREATE TABLE "odd.schema".weird_drop_table_x_scope_ids_gin_idx (id int);
ANALYZE;
SELECT sfcache.advice_reset();
});
$node->safe_psql('app', q{
SELECT id FROM "odd.schema"."weird; DROP TABLE x" WHERE "scope ids" @> '[42]';
SELECT id FROM "odd.schema"."weird; DROP TABLE x" WHERE "it's ""quoted""" = 7 AND "Status" = 'b';
SELECT id FROM "odd.schema".a_table_whose_name_is_long_enough_to_overflow_the_limit_of_63
	WHERE some_long_column_name = 3 AND another_long_column_name = 2;
});

my $out = $node->basedir . '/hostile.sql';
command_checks_all(valgrind_advisor('--no-ttl', '--min-calls=1', '-o', $out, $conn),
	0, [qr/^$/], [qr/3 indexes/], 'hostile identifiers: sql (valgrind)');
my $sql = slurp_file($out);
like($sql,
	qr/^CREATE INDEX CONCURRENTLY IF NOT EXISTS "weird_drop_table_x_scope_ids_gin_idx_2" ON "odd\.schema"\."weird; DROP TABLE x" USING gin \("scope ids" jsonb_path_ops\);$/m,
	'GIN: quoted table and column, the taken name gets a number');
like($sql,
	qr/^CREATE INDEX CONCURRENTLY IF NOT EXISTS "weird_drop_table_x_it_s_quoted_partial_idx" ON "odd\.schema"\."weird; DROP TABLE x" USING btree \("it's ""quoted"""\) WHERE \("Status" = 'b'::text\);$/m,
	'btree: quotes inside quoted names are doubled');
my ($long) = $sql =~ /^CREATE INDEX CONCURRENTLY IF NOT EXISTS "(a_table_[^"]+)"/m;
ok(defined $long && length($long) <= 63 && $long =~ /_partial_idx$/, "long names cut to 63 bytes, the suffix kept: $long");
is($node->safe_psql('app', q{SELECT string_agg(index_name, ' ' ORDER BY index_name) FROM sfcache.index_advice}),
	join(' ', sort($long, 'weird_drop_table_x_it_s_quoted_partial_idx', 'weird_drop_table_x_scope_ids_gin_idx_2')),
	'the view gives the names the advisor writes');
(my $bare = $sql) =~ s/^--.*$//mg;
$bare =~ s/"(?:[^"]|"")*"//g;
unlike($bare, qr/DROP|;\s*\S+\s*;/, 'outside comments and quoted names, no DROP and one statement a line');

my ($ret, $stdout, $stderr) = $node->psql('app', undef,
	extra_params => [ '-v', 'ON_ERROR_STOP=1', '-f', $out ]);
is($ret, 0, 'the migration applies with psql');
is($node->safe_psql('app', 'SELECT count(*) FROM x'), '1', 'table x is still there');
is($node->safe_psql('app', q{
	SELECT string_agg(i.relname || ' ON ' || t.relname, ', ' ORDER BY i.relname)
	FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
	WHERE t.relname = 'weird; DROP TABLE x' AND NOT x.indisprimary}),
	'weird_drop_table_x_it_s_quoted_partial_idx ON weird; DROP TABLE x, weird_drop_table_x_scope_ids_gin_idx_2 ON weird; DROP TABLE x',
	'the indexes are on the right table with the expected names');
like($node->safe_psql('app', q{EXPLAIN (COSTS OFF) SELECT id FROM "odd.schema"."weird; DROP TABLE x" WHERE "scope ids" @> '[42]'}),
	qr/weird_drop_table_x_scope_ids_gin_idx_2/, 'the recorded statement uses the GIN index');

# The down migration, as JSON and Django see the same names.
$node->safe_psql('app', 'DROP INDEX "odd.schema".weird_drop_table_x_scope_ids_gin_idx_2');
command_checks_all(valgrind_advisor('--format=json', '--no-ttl', '--min-calls=1', $conn),
	0, [qr/"table": "weird; DROP TABLE x"/, qr/"keys": \["\\"scope ids\\""\]/,
		qr/ON \\"odd.schema\\".\\"weird; DROP TABLE x\\" USING gin/],
	[qr/1 index/], 'json escapes quotes (valgrind)');
command_checks_all(advisor('--format=django', '--no-ttl', '--min-calls=1', $conn),
	0, [qr/'CREATE INDEX CONCURRENTLY IF NOT EXISTS "weird_drop_table_x_scope_ids_gin_idx_2" ON "odd\.schema"\."weird; DROP TABLE x" USING gin \("scope ids" jsonb_path_ops\);'/],
	[qr/1 index/], 'django keeps the SQL in one Python string');

$node->stop;
done_testing();
