// The measuring experiments' commands and trace's, as `forklab --help` lists them: their lines for a command line
// that has not loaded the experiments (src/cli/commands.ts). test/cli-commands.test.ts holds each line to the
// command the registry's module adds (name, order, usage, summary with its article or source, --wide).

/** A command as the usage lists it: its name, what follows the name (`[options] <run>`), its summary. */
export interface CommandLine {
  readonly name: string;
  readonly usage: string;
  readonly summary: string;
  /** Its output is read on a terminal, and so fits 100 columns unless --wide (the flag is added to it). */
  readonly wide: boolean;
}

export const line = (name: string, usage: string, summary: string, wide = true): CommandLine => ({ name, usage, summary, wide });

/** The experiments' commands, in the registry's order. */
export const EXPERIMENT_COMMAND_LINES: readonly CommandLine[] = [
  line('spawn', '[options] [args...]', 'fork+exec vs vfork+exec vs posix_spawn (and clone, fork+_exit) as the parent RSS grows, THP on/off (article 000)'),
  line(
    'cow',
    '[options]',
    "copy-on-write after fork: a child's read, first write (CoW fault) and second write per page against the parent's own write and read, THP on/off (article 001)",
  ),
  line('create', '[options]', 'pthread_create+join of an empty thread vs fork+waitpid of a child that exits at once (article 002)'),
  line('exec', '[options] [args...]', 'fork+execve+wait of a `return 0` program, dynamic vs static, against fork+_exit; ld.so statistics (article 004)'),
  line('pagetables', '[options]', 'page tables of a sparse address space: doubled by fork while the child lives, given back at exec; fork+_exit sparse vs dense (article 003)'),
  line('vma', '[options]', 'fork time and Slab grow with the number of mappings (VMAs); clone(CLONE_VM) and posix_spawn do not (article 003)'),
  line('deadlock', '[options]', 'fork while another thread holds a mutex: the child deadlocks, unless pthread_atfork hands it over (article 003)'),
  line(
    'runtimes',
    '[options]',
    'what starting a child costs from every Node line, Bun, Deno, Python, Java, Perl, Go, Ruby and Rust, against the heap, and which system call each makes (article 000)',
  ),
  line('fds', '[options]', 'fork+exec and posix_spawn against open descriptors and RLIMIT_NOFILE: close loops, /proc/self/fd, close_range, close-on-exec (source bun-25839)'),
  line(
    'cgroup',
    '[options]',
    'a child started into another cgroup v2 group: clone3(CLONE_INTO_CGROUP) against a write to cgroup.procs, after a pause and back to back (source bun-37466)',
  ),
  line(
    'contend',
    '[options]',
    'N concurrent creators (processes or threads of one parent): fork+exec, vfork+exec, posix_spawn throughput and latency against N (source per-vma-lock-fork)',
  ),
];

/** trace's command (a recording, not a sweep: src/cli/trace.ts adds it). */
export const TRACE_COMMAND_LINE: CommandLine = line(
  'trace',
  '[options] [command...]',
  'run COMMAND (or attach to --pid) under strace: which processes fork, at what size, what it costs here, and what to change',
);
