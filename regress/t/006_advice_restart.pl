# The index advice's record survives a clean restart (written by the
# postmaster at shutdown to pg_stat/sfcache_advice.stat, read back at
# start): the same quals, statements, table activity and advice, and the
# result cache windows starved for want of an index (window advice). A
# file of format 1 (before window advice) is read; a corrupt file or one
# of another version is ignored with a LOG line and the record starts
# empty; an immediate-mode stop (as a crash) loses the
# record, as the README says.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use AdvisorTest;

my $node = advisor_node('advice_restart');
# The statements (with their constants, which re-planning needs) are
# written to the file only with sfcache.literal_texts on; 036 tests the
# default, which writes none.
$node->append_conf('postgresql.conf', 'sfcache.literal_texts = on');
$node->reload;
load_lms($node);
run_workload($node, 3);
# Two leaders whose windows on lms_university.name are points (a LIMIT
# stops the scan; no index on name)
$node->safe_psql('app', q{
	SET sfcache.cache = on;
	SET sfcache.admission = off;
	SELECT id FROM lms_university WHERE name >= 'a' LIMIT 1;
	SELECT id FROM lms_university WHERE name >= 'b' LIMIT 1;
});

my $file = $node->data_dir . '/pg_stat/sfcache_advice.stat';

# Everything a user sees of the record, in a stable order.
sub record
{
	return $node->safe_psql('app', q{
		SELECT 'quals', count(*), sum(calls), sum(rows_scanned) FROM sfcache.advice_quals;
		SELECT 'tables', tablename, writes, invalidations FROM sfcache.table_activity ORDER BY 2;
		SELECT 'first_seen', tablename, first_seen, last_write FROM sfcache.table_activity ORDER BY 2;
		SELECT 'advice', index_name, index_ddl, calls FROM sfcache.index_advice ORDER BY 2;
		SELECT 'windows', tablename, column_name, windows_starved FROM sfcache.window_advice ORDER BY 2});
}

# CRC-32C, as the file's trailer has it (PostgreSQL's pg_crc32c).
sub crc32c
{
	my ($data) = @_;
	my $crc = 0xFFFFFFFF;
	foreach my $byte (unpack('C*', $data))
	{
		$crc ^= $byte;
		$crc = ($crc & 1) ? (($crc >> 1) ^ 0x82F63B78) : ($crc >> 1) for 1 .. 8;
	}
	return $crc ^ 0xFFFFFFFF;
}

my $before = record();
like($before, qr/^advice\|lms_announcement_scope_ids/m, 'the workload gets advice');
like($before, qr/^tables\|lms_university\|3\|3$/m, 'and its writes are counted');
like($before, qr/^windows\|lms_university\|name\|2$/m, 'and its starved windows');

$node->restart;
ok(!-e $file, 'the file is removed once read');
is(record(), $before, 'a clean restart keeps the quals, table activity and advice');
ok($node->log_contains(qr/LOG:  restored the index advice from file "pg_stat\/sfcache_advice\.stat"\n.*DETAIL:  Quals: 12, statements: 5, tables: 1\./),
	'the start logs what it restored');

# A file of format 1, written before window advice: read.
$node->stop;
{
	open(my $fh, '+<:raw', $file) or die "open $file: $!";
	local $/;
	my $data = <$fh>;
	is(unpack('V', substr($data, 4, 4)), 2, 'the file is of format 2');
	substr($data, 4, 4) = pack('V', 1);
	substr($data, -4) = pack('V', crc32c(substr($data, 0, -4)));
	seek($fh, 0, 0);
	print $fh $data;
	close($fh);
}
$node->start;
is(record(), $before, 'a file of format 1 is read');

# A corrupt file: one byte flipped in the middle.
$node->stop;
ok(-s $file, 'a clean stop writes the file');
{
	open(my $fh, '+<:raw', $file) or die "open $file: $!";
	my $pos = int((-s $file) / 2);
	seek($fh, $pos, 0);
	read($fh, my $byte, 1);
	seek($fh, $pos, 0);
	print $fh chr(ord($byte) ^ 0xff);
	close($fh);
}
my $offset = -s $node->logfile;
$node->start;
ok($node->wait_for_log(qr/LOG:  ignoring index advice file "pg_stat\/sfcache_advice\.stat"\n.*DETAIL:  Its checksum does not match its contents: the file is corrupt\./, $offset),
	'a corrupt file is ignored with a LOG line');
is($node->safe_psql('app', 'SELECT (SELECT count(*) FROM sfcache.advice_quals) + (SELECT count(*) FROM sfcache.table_activity)'),
	'0', 'and the record starts empty');
ok(!-e $file, 'the corrupt file is removed');

# A file of another version: the version string in the header changed.
run_workload($node, 1);
$node->stop;
{
	open(my $fh, '+<:raw', $file) or die "open $file: $!";
	seek($fh, 12, 0);    # after magic, format and major: the library version
	print $fh "9.9\0";
	close($fh);
}
$offset = -s $node->logfile;
$node->start;
ok($node->wait_for_log(qr/LOG:  ignoring index advice file "pg_stat\/sfcache_advice\.stat"\n.*DETAIL:  The file was written by sfcache 9\.9 \(file format 2\)/, $offset),
	'a file of another version is ignored with a LOG line');
is($node->safe_psql('app', 'SELECT count(*) FROM sfcache.advice_quals'), '0',
	'and the record starts empty');

# An immediate stop writes nothing: the record is lost, as after a crash.
run_workload($node, 1);
cmp_ok($node->safe_psql('app', 'SELECT count(*) FROM sfcache.advice_quals'), '>', 0,
	'recorded again');
$node->stop('immediate');
ok(!-e $file, 'an immediate stop writes no file');
$node->start;
is($node->safe_psql('app', 'SELECT count(*) FROM sfcache.advice_quals'), '0',
	'an immediate stop loses the record');

$node->stop;
done_testing();
