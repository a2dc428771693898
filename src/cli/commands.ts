// The commands as `forklab --help` lists them, and the module that adds each one. Starting forklab loads only the
// module of the command it runs: this table lists the others (their name, usage and summary) without loading
// them. test/cli-commands.test.ts checks it against the commands the modules add (names, order, usage, summary).
import type { Command } from 'commander';
import { EXPERIMENT_COMMAND_LINES, TRACE_COMMAND_LINE, line, type CommandLine } from '../experiments/command-lines.js';

export type { CommandLine };

/** The commands one module adds, in the order it adds them, and that module's function that adds them. */
export interface CommandGroup {
  readonly commands: readonly CommandLine[];
  load(): Promise<(program: Command) => void>;
}

/** forklab's commands, in the order --help lists them (the experiments in the registry's order). */
export const COMMAND_GROUPS: readonly CommandGroup[] = [
  {
    load: async () => (await import('./experiment-commands.js')).registerExperimentCommands,
    commands: EXPERIMENT_COMMAND_LINES,
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
    commands: [TRACE_COMMAND_LINE],
  },
];
