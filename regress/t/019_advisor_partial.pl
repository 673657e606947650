# sfcache-advisor's outputs for the partial indexes of the configuration
# search (regress/sql/advice_partial.sql): a Django tracker whose overdue
# badge filters is_archived=False beside the tenant's ForeignKey index, and
# whose customer page filters a sparse JSON field. The plain SQL and the
# Django migration (migrations.RunSQL, as for every index) carry each
# index's WHERE clause as the server deparsed it, neither drops the
# ForeignKey's index (a partial index cannot replace it), the Django file
# is valid Python whose SQL strings are the plain output's statements, and
# once applied the planner uses both indexes for the statements recorded.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use AdvisorTest;

my $node = advisor_node('partial');
$node->safe_psql('app', q{
CREATE TABLE part_task ("id" serial NOT NULL PRIMARY KEY, "status" varchar(16) NOT NULL,
	"due_date" date NULL, "is_archived" boolean NOT NULL, "custom" jsonb NOT NULL,
	"tenant_id" integer NOT NULL);
CREATE INDEX "part_task_tenant_id_1c5d8e90" ON "part_task" ("tenant_id");
INSERT INTO part_task (status, due_date, is_archived, custom, tenant_id)
SELECT CASE WHEN i % 9 < 5 THEN 'done' ELSE 'todo' END,
	CASE WHEN i % 5 < 3 THEN date '2026-11-02' + ((i * 7) % 120 - 60) END,
	i % 20 = 0,
	CASE WHEN i % 5 = 0 THEN jsonb_build_object('customer', 'customer ' || (i % 40)) ELSE '{}' END,
	1 + (i / 3) % 100
FROM generate_series(1, 30000) i;
VACUUM ANALYZE part_task;
SELECT sfcache.advice_reset();
});
# Django 3.2: Task.objects.filter(tenant_id=t, due_date__lt=date(2026, 11, 2),
# is_archived=False).count() and Task.objects.filter(tenant_id=t,
# custom__customer='customer 5').only('id')
my %stmt = (
	overdue => q{SELECT COUNT(*) AS "__count" FROM "part_task" WHERE ("part_task"."due_date" < '2026-11-02'::date AND NOT "part_task"."is_archived" AND "part_task"."tenant_id" = 7)},
	customer => q{SELECT "part_task"."id" FROM "part_task" WHERE (("part_task"."custom" -> 'customer') = '"customer 5"' AND "part_task"."tenant_id" = 7)},
);
my $sql = '';
for my $t (7 .. 9)
{
	for my $s (sort keys %stmt)
	{
		(my $one = $stmt{$s}) =~ s/"tenant_id" = 7/"tenant_id" = $t/;
		$sql .= "$one;\n";
	}
}
$node->safe_psql('app', $sql);
my $conn = $node->connstr('app');

my $overdue_where = qr/USING btree \("tenant_id", "due_date"\) WHERE \(\(NOT is_archived\) AND \(due_date IS NOT NULL\)\)/;
my $customer_where = qr/USING btree \("tenant_id", \(\(custom -> 'customer'::text\)\)\) WHERE \(\(custom -> 'customer'::text\) IS NOT NULL\)/;

my ($out, $err) = run_command(valgrind_advisor('--no-cache-settings', '-q', $conn));
my @creates = ($out =~ /^CREATE INDEX .*;$/mg);
is(scalar(@creates), 2, 'two indexes') or diag($out);
like($out, qr/^CREATE INDEX CONCURRENTLY IF NOT EXISTS "part_task_tenant_id_due_date_partial_idx" ON "public"\."part_task" $overdue_where;$/m,
	'the overdue badge: a new partial index, WHERE NOT is_archived and the due date set');
like($out, qr/^CREATE INDEX CONCURRENTLY IF NOT EXISTS "part_task_tenant_id_custom_customer_partial_idx" ON "public"\."part_task" $customer_where;$/m,
	'the customer page: the rows that have the field');
unlike($out, qr/DROP INDEX/, 'the ForeignKey index is not dropped');
unlike($out, qr/replaces|makes redundant/, 'nor said to be replaced');

# The Django migration: the same statements in RunSQL, as Python strings.
my $dir = PostgreSQL::Test::Utils::tempdir();
command_ok(valgrind_advisor('--format=django', '--app=tracker', '--no-cache-settings', '-q', '-o', $dir, $conn),
	'the advisor writes the Django migration');
my ($file) = glob("$dir/*.py");
my $py = slurp_file($file);
like($py, qr/migrations\.RunSQL\(/, 'indexes as RunSQL');
my $python = '/usr/bin/python3';
SKIP:
{
	skip 'python3 is not installed', 2 unless -x $python;
	my ($pyout, $pyerr) = run_command([ $python, '-c', q{
import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
for node in ast.walk(tree):
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith('CREATE INDEX'):
        print(node.value)
}, $file ]);
	is($pyerr, '', 'the migration is valid Python');
	is(join("\n", sort split(/\n/, $pyout)), join("\n", sort @creates),
		'its SQL strings are the plain output\'s CREATE INDEX statements, WHERE clauses included');
}

# Applied (the plain output: CONCURRENTLY, outside a transaction), the
# planner uses both partial indexes for the statements recorded.
$node->safe_psql('app', $out);
my $preds = $node->safe_psql('app', q{
SELECT c.relname || ': ' || pg_get_expr(x.indpred, x.indrelid)
FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
WHERE x.indrelid = 'part_task'::regclass AND x.indpred IS NOT NULL ORDER BY 1});
is($preds, "part_task_tenant_id_custom_customer_partial_idx: ((custom -> 'customer'::text) IS NOT NULL)\n"
	  . "part_task_tenant_id_due_date_partial_idx: ((NOT is_archived) AND (due_date IS NOT NULL))",
	'both built with their predicates');
for my $s (sort keys %stmt)
{
	my $plan = $node->safe_psql('app', "SET enable_seqscan = off; SET enable_bitmapscan = on; EXPLAIN (COSTS OFF) $stmt{$s}");
	like($plan, qr/part_task_tenant_id_\w+_partial_idx/, "the planner uses a partial index for the $s statement")
	  or diag($plan);
}

$node->stop;
done_testing();
