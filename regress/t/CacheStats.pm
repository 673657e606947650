# CacheStats: the sfcache.stats readings the cache's TAP tests compare
# before and after a step (a counter, the count of one bypass reason).
package CacheStats;

use strict;
use warnings;
use Exporter 'import';

our @EXPORT = qw(cstat bypassed);

# One column of sfcache.stats on $node.
sub cstat
{
	my ($node, $col) = @_;
	return $node->safe_psql('postgres', "SELECT $col FROM sfcache.stats");
}

# How many executions on $node bypassed the cache for $reason.
sub bypassed
{
	my ($node, $reason) = @_;
	return $node->safe_psql('postgres',
		"SELECT coalesce((bypass_reasons->>'$reason')::int, 0) FROM sfcache.stats");
}

1;
