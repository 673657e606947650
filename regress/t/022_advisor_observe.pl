# sfcache-advisor's forecast of observe mode (advisor/observe.c): with
# sfcache.cache = observe, the statements whose calls would have been
# served at least half the time (observed hits, window hits, coalesced)
# are the ones to turn the cache on for: "N % of your reads, M s saved per
# hour". A statement served less than that, or fewer than --min-calls
# times, is left out; nothing is printed before anything was observed, nor
# with --no-cache-settings.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use JSON::PP;
use IPC::Run;
use AdvisorTest;

# Exit status, standard output and standard error of a command.
sub run_advisor
{
	my ($cmd) = @_;
	my ($out, $err) = ('', '');
	IPC::Run::run($cmd, '>', \$out, '2>', \$err);
	return ($? >> 8, $out, $err);
}

my $node = advisor_node('advisor_observe');
my $conn = $node->connstr('app');
$node->safe_psql('app', q{
CREATE TABLE item (id int PRIMARY KEY, v int NOT NULL, label text NOT NULL);
INSERT INTO item SELECT g, g * 10, 'item ' || g FROM generate_series(1, 100) g;
ANALYZE item;
});

my ($ret, $stdout, $stderr) = run_advisor(advisor('--max-indexes=0', $conn));
is($ret, 0, 'before observing: exit 0');
unlike($stdout, qr/observe mode/, 'before observing: no forecast');

# Observe: every result is kept from its first miss (admission off), so
# the first execution of a key leads and the next ones would be hits.
my $sql = "SELECT sfcache.reset();\nSET sfcache.cache = observe;\nSET sfcache.admission = off;\n";
# by id: 3 keys, 4 calls each: 9 of 12 would have been served
for my $round (1 .. 4)
{
	$sql .= "SELECT label FROM item WHERE id = $_;\n" for 1 .. 3;
}
# v <= c: one leader, then 3 constants inside its window [40, 50)
$sql .= "SELECT count(*) FROM item WHERE v <= $_;\n" for 40 .. 43;
# by label: 10 keys, one repeated: 1 of 11 (left out)
$sql .= "SELECT id FROM item WHERE label = 'item $_';\n" for 1 .. 10;
$sql .= "SELECT id FROM item WHERE label = 'item 1';\n";
$node->safe_psql('app', $sql);

is($node->safe_psql('app', q{SELECT sum(observed_hits) || ' ' || sum(observed_window_hits) || ' ' || sum(hits)
	FROM sfcache.statements WHERE query LIKE 'SELECT%item%'}),
	'13 3 0', 'the extension counted 13 observed hits, 3 by a window, and served none');

($ret, $stdout, $stderr) = run_advisor(valgrind_advisor('--max-indexes=0', $conn));
is($ret, 0, 'forecast: exit 0 (valgrind)');
like($stdout, qr/^-- observe mode \(sfcache\.cache = observe\), counters of the last [\d.]+ hours:\n-- turn it on for these statements: [\d.]+ % of your reads, [\d.]+ s saved per hour\n/m,
	'forecast: the verdict');
like($stdout, qr/^--   query id -?\d+: 75\.0 % of 12 calls would have been served \(9 hits, 0 of them by a window, 0 coalesced\), [\d.]+ s saved per hour: SELECT label FROM item WHERE id = \$1$/m,
	'forecast: the statement by id, 9 of 12 served');
like($stdout, qr/^--   query id -?\d+: 75\.0 % of 4 calls would have been served \(3 hits, 3 of them by a window, 0 coalesced\), [\d.]+ s saved per hour: SELECT count\(\*\) FROM item WHERE v <= \$1$/m,
	'forecast: the windowed statement, its 3 window hits');
like($stdout, qr/^-- left out \(served below 50 % of their calls, or fewer than --min-calls times\):\n--   query id -?\d+: 9\.1 % of 11 calls would have been served \(1 hits, 0 of them by a window, 0 coalesced\)/m,
	'forecast: the statement by label is left out');
like($stderr, qr/nothing to suggest/, 'the forecast is no migration statement');

# JSON: the same numbers, for tools.
($ret, $stdout) = run_advisor(advisor('--format=json', '--max-indexes=0', '-q', $conn));
is($ret, 0, 'json: exit 0');
my $f = decode_json($stdout)->{observe_forecast};
is($f->{served}, 12, 'json: 12 reads would have been served by the chosen statements');
cmp_ok($f->{reads}, '>=', 27, 'json: every read of the database counts');
my @chosen = sort map { $_->{calls} . '/' . $_->{observed_hits} . '/' . $_->{observed_window_hits} }
  grep { $_->{chosen} } @{ $f->{statements} };
is_deeply(\@chosen, [ '12/9/0', '4/3/3' ], 'json: the two statements to turn it on for');
is(scalar(grep { !$_->{chosen} } @{ $f->{statements} }), 1, 'json: one left out');

# --no-cache-settings: no forecast either.
($ret, $stdout) = run_advisor(advisor('--max-indexes=0', '--no-cache-settings', $conn));
is($ret, 0, '--no-cache-settings: exit 0');
unlike($stdout, qr/observe mode/, '--no-cache-settings: no forecast');

# on mode serves: hits, not observed hits, and the forecast is unchanged.
$node->safe_psql('app', "SET sfcache.cache = on; SELECT label FROM item WHERE id = 1;");
is($node->safe_psql('app', q{SELECT sum(observed_hits) || ' ' || sum(hits)
	FROM sfcache.statements WHERE query LIKE 'SELECT label FROM item%'}),
	'9 1', 'on mode: a hit, the observed counters unchanged');

$node->stop;
done_testing();
