# forklab runtime driver for Perl: starts the target with system() and times each start to its reaping,
# inside Perl. Speaks the probe protocol (docs/protocol.md) on stdout/stdin.
#   perl perl.pl CASE target=PATH [heap-mb=N] [heap-kind=string]
# Cases: system (system LIST, no shell).
use strict;
use warnings;
use Time::HiRes qw(clock_gettime CLOCK_MONOTONIC);
use File::Basename qw(dirname);
use File::Spec;

# The driver's version is its package's: the runner refuses a driver from another forklab.
my $DRIVER = do {
    my $pkg = File::Spec->catfile(dirname(File::Spec->rel2abs(__FILE__)), '..', 'package.json');
    open(my $f, '<', $pkg) or die "forklab driver: cannot read $pkg: $!\n";
    local $/;
    my $text = <$f>;
    $text =~ /"version"\s*:\s*"([^"]+)"/ or die "forklab driver: no version in $pkg\n";
    $1;
};
my %CASES = (system => 1);
my %KEYS = (target => 1, 'heap-mb' => 1, 'heap-kind' => 1);
my $MIB = 1024 * 1024;
$| = 1;

sub json_str {
    my ($s) = @_;
    $s =~ s/(["\\])/\\$1/g;
    $s =~ s/([\x00-\x1f])/sprintf('\\u%04x', ord $1)/ge;
    return qq("$s");
}

sub fail {
    my ($call, $message, $errno) = @_;
    print '{"type":"error","call":', json_str($call), ',"errno":', ($errno // 0) + 0, ',"message":', json_str($message), "}\n";
    exit 2;
}

sub now_ns { return int(clock_gettime(CLOCK_MONOTONIC) * 1e9) }

sub rss_kb {
    open(my $f, '<', '/proc/self/status') or return -1;
    while (<$f>) { return $1 + 0 if /^VmRSS:\s+(\d+)/ }
    return -1;
}

# A counter of /proc/thread-self/FILE, or undef where it cannot be read.
sub thread_counter {
    my ($file, $key) = @_;
    open(my $f, '<', "/proc/thread-self/$file") or return undef;
    while (<$f>) { return $1 + 0 if /^\Q$key\E\s*:\s*(\d+)/ }
    return undef;
}

sub counters {
    return [thread_counter('status', 'nonvoluntary_ctxt_switches'), thread_counter('status', 'voluntary_ctxt_switches'),
        thread_counter('sched', 'se.nr_migrations')];
}

# The usage line: the driver's switches and migrations since ready; core Perl cannot read its children's.
sub usage_line {
    my ($at) = @_;
    my $now = counters();
    return if grep { !defined } @$now[0, 1], @$at[0, 1];
    my $moved = defined $now->[2] && defined $at->[2] ? $now->[2] - $at->[2] : 'null';
    print '{"type":"usage","nivcsw":', $now->[0] - $at->[0], ',"nvcsw":', $now->[1] - $at->[1], ',"childNivcsw":null,"migrations":', $moved, "}\n";
}

my $case = $ARGV[0];
print '{"type":"hello","protocol":1,"probe":', json_str($DRIVER), ',"case":', (defined $case ? json_str($case) : 'null'), ',"pid":', $$, "}\n";
fail('usage', 'unknown case: ' . ($case // '')) unless defined $case && $CASES{$case};

my %args;
for my $a (@ARGV[1 .. $#ARGV]) {
    my ($k, $v) = $a =~ /^([^=]+)=(.*)$/s or fail('usage', "expected key=value: $a");
    fail('usage', "unknown argument: $k") unless $KEYS{$k};
    fail('usage', "repeated argument: $k") if exists $args{$k};
    $args{$k} = $v;
}
my $target = $args{target};
fail('usage', 'missing argument: target') unless defined $target && length $target;
my $heap_mb = $args{'heap-mb'} // '0';
fail('usage', 'not a whole number: heap-mb') unless $heap_mb =~ /^\d+$/;
fail('usage', 'unknown value: heap-kind') if ($args{'heap-kind'} // 'string') ne 'string';

# The heap: one string per 64 MB, every byte written.
my @heap;
for (my $left = $heap_mb; $left > 0; $left -= 64) {
    my $mb = $left < 64 ? $left : 64;
    push @heap, "\x01" x ($mb * $MIB);
}

my $version = sprintf('%vd', $^V);
print '{"type":"info","runtime":"perl","runtimeVersion":', json_str($version), ',"heapKind":"string","heapMb":', $heap_mb + 0,
    ',"rssKb":', rss_kb(), "}\n";
print qq({"type":"ready"}\n);
my $at_ready = counters();

while (my $line = <STDIN>) {
    last if $line =~ /^stop/;
    my ($cmd, $n) = $line =~ /^(warmup|run) (\d+)\s*$/ or fail('usage', "unknown command: $line");
    fail('usage', "iteration count out of range: $line") if $n < 1 || $n > 10_000_000;
    my @ns;
    for (1 .. $n) {
        my $t0 = now_ns();
        my $rc = system { $target } $target;
        push @ns, now_ns() - $t0;
        fail('spawn', "$!", $! + 0) if $rc == -1;
        fail('wait', "target exited with status $?") if $rc != 0;
    }
    my $warmup = $cmd eq 'warmup' ? 'true' : 'false';
    print '{"type":"samples","series":', json_str($case), ',"warmup":', $warmup, ',"ns":[', join(',', @ns), "]}\n";
    print qq({"type":"end","warmup":$warmup}\n);
}
usage_line($at_ready);
print qq({"type":"done"}\n);
exit 0;
