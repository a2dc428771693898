// The commands as `forklab --help` lists them, and the module that adds each one. Starting forklab loads only the
// module of the command it runs: this table lists the others (their name, usage and summary) without loading
// them. test/cli-commands.test.ts checks it against the commands the modules add (names, order, usage, summary).
import type { Command } from 'commander';

/** A command as the usage lists it: its name, what follows the name (`[options] <run>`), its summary. */
export interface CommandLine {
  readonly name: string;
  readonly usage: string;
  readonly summary: string;
  /** Its output is read on a terminal, and so fits 100 columns unless --wide (the flag is added to it). */
  readonly wide: boolean;
}

/** The commands one module adds, in the order it adds them, and that module's function that adds them. */
export interface CommandGroup {
  readonly commands: readonly CommandLine[];
  load(): Promise<(program: Command) => void>;
}

const line = (name: string, usage: string, summary: string, wide = true): CommandLine => ({ name, usage, summary, wide });

/** forklab's commands, in the order --help lists them (the experiments in the registry's order). */
export const COMMAND_GROUPS: readonly CommandGroup[] = [
  {
    load: async () => (await import('./experiment-commands.js')).registerExperimentCommands,
    commands: [
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
    ],
  },
  {
    load: async () => (await import('./selfcheck.js')).registerSelfcheck,
    commands: [line('selfcheck', '[options]', "fidelity benchmark: forklab's per-call figure ÷ a bare C loop's, interleaved (must stay within ±10 %)")],
  },
  {
    load: async () => (await import('./doctor.js')).registerDoctor,
    commands: [
      line(
        'doctor',
        '[options]',
        'what on this machine moves the figures (governor, boost, SMT, THP, overcommit, cgroup limits, steal, load, pinning, ASLR, tracer), why, and how to change it',
      ),
    ],
  },
  {
    load: async () => (await import('./history.js')).registerHistoryCommands,
    commands: [
      line('history', '[options]', 'list the recorded runs (oldest first), all of them or those the filters select'),
      line('show', '[options] <run>', "one run's record: machine, parameters, warnings, medians with their intervals; or a reproduction's verdicts (R<n>)"),
      line('compare', '[options] <runA> <runB>', 'compare two runs of one experiment figure by figure: medians, B/A with its interval, p-value; only real differences marked'),
      line('export', '[options] <run>', 'print a run: its versioned JSON document (default), every raw sample as CSV, or its summary as a Markdown table', false),
      line('import', '[options] <file>', 'check a run document (from export or --json) and add it to the history; prints the new run id', false),
      line('rm', '[options] <runs...>', 'remove runs and their samples from the history (asks first on a terminal; --yes elsewhere)', false),
    ],
  },
  {
    load: async () => (await import('./report-stored.js')).registerStoredReport,
    commands: [line('report', '[options] [run]', 'a run as a self-contained HTML page (charts included, works offline) or as Markdown for an issue or a post', false)],
  },
  {
    load: async () => (await import('./reproduce.js')).registerReproduceCommand,
    commands: [line('reproduce', '[options]', 'run every experiment at the articles’ settings and judge each published claim on this machine (docs/reproduce.md)')],
  },
  {
    load: async () => (await import('./judge.js')).registerJudgeCommand,
    commands: [line('judge', '[options] <runs...>', 'judge every published claim on stored runs or exported run documents, without measuring (docs/reproduce.md)')],
  },
  {
    load: async () => (await import('./fleet.js')).registerFleetCommand,
    commands: [line('fleet', '', 'the lab on many machines through Kubernetes, Slurm or ssh, and machines side by side (docs/fleet.md)', false)],
  },
  {
    load: async () => (await import('./trace.js')).registerTraceCommand,
    commands: [
      line('trace', '[options] [command...]', 'run COMMAND (or attach to --pid) under strace: which processes fork, at what size, what it costs here, and what to change'),
    ],
  },
];
