# forklab runtime driver for Ruby: starts the target the ways a Ruby program does and times each start to its
# reaping, inside Ruby. Speaks the probe protocol (docs/protocol.md) on stdout/stdin.
#   ruby ruby.rb CASE target=PATH [heap-mb=N] [heap-kind=string]
# Cases: spawn (Process.spawn(target) then Process.wait), system (system(target)).
require 'json'

# The driver's version is its package's: the runner refuses a driver from another forklab.
DRIVER = JSON.parse(File.read(File.join(__dir__, '..', 'package.json')))['version']
CASES = %w[spawn system].freeze
KEYS = %w[target heap-mb heap-kind].freeze
MIB = 1024 * 1024
$stdout.sync = true

def out(obj)
  $stdout.write("#{JSON.generate(obj)}\n")
end

def fail(call, message, errno = 0)
  out({ type: 'error', call: call, errno: errno, message: message })
  exit 2
end

def now_ns
  Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
end

def proc_field(path, key)
  File.foreach(path) { |l| return Regexp.last_match(1).to_i if l =~ /^#{Regexp.escape(key)}\s*:\s*(\d+)/ }
  nil
rescue SystemCallError
  nil
end

# The spawning thread's counters (core Ruby has no getrusage; its children's are not readable).
def counters
  [proc_field('/proc/thread-self/status', 'nonvoluntary_ctxt_switches'),
   proc_field('/proc/thread-self/status', 'voluntary_ctxt_switches'),
   proc_field('/proc/thread-self/sched', 'se.nr_migrations')]
end

def usage_line(at)
  now = counters
  return if [now[0], now[1], at[0], at[1]].any?(&:nil?)
  moved = now[2] && at[2] ? now[2] - at[2] : nil
  out({ type: 'usage', nivcsw: now[0] - at[0], nvcsw: now[1] - at[1], childNivcsw: nil, migrations: moved })
end

case_name = ARGV[0]
out({ type: 'hello', protocol: 1, probe: DRIVER, case: case_name, pid: Process.pid }.merge(case_name ? {} : { cases: CASES }))
if case_name.nil?
  out({ type: 'info', runtime: 'ruby', runtimeVersion: RUBY_VERSION, engine: RUBY_ENGINE })
  out({ type: 'done' })
  exit 0
end
fail('usage', "unknown case: #{case_name}") unless CASES.include?(case_name)

args = {}
ARGV[1..].each do |a|
  k, eq, v = a.partition('=')
  fail('usage', "expected key=value: #{a}") if eq.empty? || k.empty?
  fail('usage', "unknown argument: #{k}") unless KEYS.include?(k)
  fail('usage', "repeated argument: #{k}") if args.key?(k)
  args[k] = v
end
target = args['target']
fail('usage', 'missing argument: target') if target.nil? || target.empty?
heap_mb = args.fetch('heap-mb', '0')
fail('usage', 'not a whole number: heap-mb') unless heap_mb =~ /\A\d+\z/
heap_mb = heap_mb.to_i
fail('usage', 'unknown value: heap-kind') if args.fetch('heap-kind', 'string') != 'string'

# The heap: one string per 64 MB, every byte written.
HEAP = []
left = heap_mb
while left.positive?
  HEAP << ("\x01".b * ([left, 64].min * MIB))
  left -= 64
end

once = if case_name == 'spawn'
         lambda do
           pid = Process.spawn(target)
           Process.wait(pid)
           $?
         end
       else
         -> { system(target) ? $? : ($? || :not_started) }
       end

out({ type: 'info', runtime: 'ruby', runtimeVersion: RUBY_VERSION, engine: RUBY_ENGINE, heapKind: 'string', heapMb: heap_mb,
      rssKb: proc_field('/proc/self/status', 'VmRSS') || -1 })
out({ type: 'ready' })
at_ready = counters

$stdin.each_line do |line|
  break if line.start_with?('stop')
  m = /\A(warmup|run) (\d+)\s*\z/.match(line)
  fail('usage', "unknown command: #{line.strip}") unless m
  n = m[2].to_i
  fail('usage', "iteration count out of range: #{line.strip}") if n < 1 || n > 10_000_000
  ns = Array.new(n) do
    t0 = now_ns
    begin
      status = once.call
    rescue SystemCallError => e
      fail('spawn', e.message, e.errno)
    end
    t = now_ns - t0
    fail('spawn', "#{target} could not be started") if status == :not_started || status.nil?
    fail('wait', "target exited with #{status}") unless status.success?
    t
  end
  warmup = m[1] == 'warmup'
  out({ type: 'samples', series: case_name, warmup: warmup, ns: ns })
  out({ type: 'end', warmup: warmup })
end
usage_line(at_ready)
out({ type: 'done' })
exit 0
