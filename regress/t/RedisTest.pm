# RedisTest: a private redis-server on a Unix socket for the bus's TAP
# tests (no TCP port, no persistence), and the redis-cli calls they make.
package RedisTest;

use strict;
use warnings;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

# Every server started, stopped when the test ends, however it ends.
my @servers;

sub new
{
	my ($class) = @_;
	my $dir = PostgreSQL::Test::Utils::tempdir_short();
	my $self = bless { dir => $dir, sock => "$dir/redis.sock" }, $class;
	$self->start;
	push @servers, $self;
	return $self;
}

sub sock { return $_[0]->{sock}; }
sub url  { return 'unix://' . $_[0]->{sock}; }

sub start
{
	my ($self) = @_;
	my $dir = $self->{dir};
	unlink $self->{sock};
	system('redis-server', '--port', '0', '--unixsocket', $self->{sock},
		'--unixsocketperm', '700', '--save', '', '--appendonly', 'no',
		'--daemonize', 'yes', '--pidfile', "$dir/redis.pid",
		'--logfile', "$dir/redis.log", '--dir', $dir) == 0
	  or BAIL_OUT('redis-server did not start');
	for (1 .. 100)
	{
		if ($self->cli('PING') eq 'PONG')
		{
			# kept here: the pid file goes with the temporary directory
			$self->{pid} = $self->pid;
			return;
		}
		usleep(50_000);
	}
	BAIL_OUT('redis-server does not answer on ' . $self->{sock});
}

sub pid
{
	my ($self) = @_;
	open my $fh, '<', "$self->{dir}/redis.pid" or return $self->{pid};
	my $pid = <$fh>;
	chomp $pid;
	return $pid;
}

# SIGKILL: the worst way to lose Redis.
sub kill9
{
	my ($self) = @_;
	my $pid = $self->pid;
	kill 'KILL', $pid;
	usleep(50_000) while kill 0, $pid;
	unlink "$self->{dir}/redis.pid";
	$self->{pid} = undef;
}

sub signal { my ($self, $sig) = @_; kill $sig, $self->pid; }

# This Redis's run id (a restart makes a new one).
sub run_id
{
	my ($self) = @_;
	my ($id) = $self->cli('INFO', 'server') =~ /^run_id:(\w+)/m;
	return $id // '';
}

# postgresql.conf lines of a node named $name on this Redis with the shared
# result tier on.
sub tier_conf
{
	my ($self, $name) = @_;
	return "shared_preload_libraries = 'sfcache'\n"
	  . "sfcache.redis_url = '" . $self->url . "'\n"
	  . "sfcache.node_name = '$name'\n"
	  . "sfcache.redis_liveness_s = 2\n"
	  . "sfcache.redis_results = on\n"
	  # every statement through the tier, however fast (034 tests the gate)
	  . "sfcache.redis_results_min_duration = 0\n"
	  # generous for a loaded machine; 034's SIGSTOP case lowers it
	  . "sfcache.redis_results_timeout = 2000\n"
	  . "sfcache.wait_timeout = 3000\n"
	  . "sfcache.enable_test_holds = on\n";
}

sub cli
{
	my ($self, @args) = @_;
	my ($out, $err);
	IPC::Run::run([ 'redis-cli', '-s', $self->{sock}, @args ], '>', \$out, '2>', \$err);
	$out //= '';
	chomp $out;
	return $out;
}

sub DESTROY
{
	my ($self) = @_;
	kill 'KILL', $self->{pid} if $self->{pid};
	$self->{pid} = undef;
}

END
{
	$_->DESTROY for grep { defined } @servers;
}

1;
