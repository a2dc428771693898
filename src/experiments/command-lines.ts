// What names each measuring experiment, written once: its entry (name, article or source, one-line summary), which
// its module's Experiment takes from here (experimentEntry), and its command's usage. `forklab --help` lists the
// experiments' commands from this table without loading the experiments (src/cli/commands.ts), so it imports no
// value. test/cli-commands.test.ts holds each line to the command the registry's module adds (name, order, usage,
// summary with its article or source, --wide) and each registered experiment to its line.
import type { ExperimentEntry } from './contract/types.js';

/** A command as the usage lists it: its name, what follows the name (`[options] <run>`), its summary. */
export interface CommandLine {
  readonly name: string;
  readonly usage: string;
  readonly summary: string;
  /** Its output is read on a terminal, and so fits 100 columns unless --wide (the flag is added to it). */
  readonly wide: boolean;
}

export const line = (name: string, usage: string, summary: string, wide = true): CommandLine => ({ name, usage, summary, wide });

/** An experiment's entry (contract/types.ts) and what follows its name in its command's usage. */
interface ExperimentLine extends Readonly<ExperimentEntry> {
  readonly usage: string;
}

/** The measuring experiments, in the registry's order. */
const EXPERIMENT_LINES = [
  {
    name: 'spawn',
    usage: '[options] [args...]',
    article: '000',
    summaryLine: 'fork+exec vs vfork+exec vs posix_spawn (and clone, fork+_exit) as the parent RSS grows, THP on/off',
  },
  {
    name: 'cow',
    usage: '[options]',
    article: '001',
    summaryLine: "copy-on-write after fork: a child's read, first write (CoW fault) and second write per page against the parent's own write and read, THP on/off",
  },
  { name: 'create', usage: '[options]', article: '002', summaryLine: 'pthread_create+join of an empty thread vs fork+waitpid of a child that exits at once' },
  {
    name: 'exec',
    usage: '[options] [args...]',
    article: '004',
    summaryLine: 'fork+execve+wait of a `return 0` program, dynamic vs static, against fork+_exit; ld.so statistics',
  },
  {
    name: 'pagetables',
    usage: '[options]',
    article: '003',
    summaryLine: 'page tables of a sparse address space: doubled by fork while the child lives, given back at exec; fork+_exit sparse vs dense',
  },
  {
    name: 'vma',
    usage: '[options]',
    article: '003',
    summaryLine: 'fork time and Slab grow with the number of mappings (VMAs); clone(CLONE_VM) and posix_spawn do not',
  },
  {
    name: 'deadlock',
    usage: '[options]',
    article: '003',
    summaryLine: 'fork while another thread holds a mutex: the child deadlocks, unless pthread_atfork hands it over',
  },
  {
    name: 'runtimes',
    usage: '[options]',
    article: '000',
    summaryLine: 'what starting a child costs from every Node line, Bun, Deno, Python, Java, Perl, Go, Ruby and Rust, against the heap, and which system call each makes',
  },
  {
    name: 'fds',
    usage: '[options]',
    article: '',
    source: 'bun-25839',
    summaryLine: 'fork+exec and posix_spawn against open descriptors and RLIMIT_NOFILE: close loops, /proc/self/fd, close_range, close-on-exec',
  },
  {
    name: 'cgroup',
    usage: '[options]',
    article: '',
    source: 'bun-37466',
    summaryLine: 'a child started into another cgroup v2 group: clone3(CLONE_INTO_CGROUP) against a write to cgroup.procs, after a pause and back to back',
  },
  {
    name: 'contend',
    usage: '[options]',
    article: '',
    source: 'per-vma-lock-fork',
    summaryLine: 'N concurrent creators (processes or threads of one parent): fork+exec, vfork+exec, posix_spawn throughput and latency against N',
  },
] as const satisfies readonly ExperimentLine[];

/** The name of an experiment this table has a line for. */
export type LinedExperiment = (typeof EXPERIMENT_LINES)[number]['name'];

/** An experiment's entry, for its module's Experiment to spread: its name, article or source, and summary line. */
export function experimentEntry(name: LinedExperiment): ExperimentEntry {
  const l: ExperimentLine = EXPERIMENT_LINES.find((x) => x.name === name)!;
  return l.source === undefined
    ? { name: l.name, article: l.article, summaryLine: l.summaryLine }
    : { name: l.name, article: l.article, source: l.source, summaryLine: l.summaryLine };
}

/** An experiment's summary as its command's help says it: its summary line, then its article or its source. */
export const commandSummary = (e: ExperimentEntry): string => `${e.summaryLine} (${e.article ? `article ${e.article}` : `source ${e.source}`})`;

/** The experiments' commands, in the registry's order. */
export const EXPERIMENT_COMMAND_LINES: readonly CommandLine[] = EXPERIMENT_LINES.map((l) => line(l.name, l.usage, commandSummary(l)));

/** trace's command (a recording, not a sweep: src/cli/trace.ts adds it). */
export const TRACE_COMMAND_LINE: CommandLine = line(
  'trace',
  '[options] [command...]',
  'run COMMAND (or attach to --pid) under strace: which processes fork, at what size, what it costs here, and what to change',
);
