// Option texts every command shares, so that --help says the same thing everywhere.
import { Option } from 'commander';
import type { OptionSpec } from '../experiments/contract/types.js';
import { type OutputTarget, planOutput, writeOutput, writeStdout } from './output.js';

/** --db on every command that reads or writes the history. */
export const DB_HELP = 'the history database (default: $FORKLAB_DB, else $XDG_DATA_HOME/forklab/forklab.db, else ~/.local/share/forklab/forklab.db)';

/** --label on every measuring command. */
export const LABEL_HELP =
  "a run's label: a short text stored with what a command measures (baseline, after-patch), shown by history and reports; history --label selects the runs that have it";

/** --target on the experiments that start a program (spawn, exec). */
export const TARGET_HELP =
  'measure starting this program (a path, or a name found in PATH) instead of the built-in `return 0` target; ' +
  'it gets the arguments after --, your environment, and /dev/null as stdin, stdout and stderr; it must exit 0';

/** An option as an experiment declares it (flags, description, default with its unit), for commander. */
export function specOption(o: OptionSpec): Option {
  const opt = new Option(o.flags, o.description);
  if (o.defaultValue !== undefined) opt.default(o.defaultValue, defaultText(o.defaultValue, o.unit));
  return opt;
}

/** A default as --help shows it: numbers with their unit, lists spaced ("0, 128, 512, 1024 MB"), no quotes. */
export function defaultText(value: string, unit?: string): string {
  const spaced = value
    .split(',')
    .map((v) => v.trim())
    .join(', ');
  return unit ? `${spaced} ${unit}` : spaced;
}

// ------------------------------------------------------------------------------------------------------------
// Flags with one meaning on every command (test/cli-flags.test.ts walks every command and checks them).

/** --json, --markdown, --html, --csv, --yaml: write to FILE; no FILE, or -, is standard output. */
export type FileFlag = '--json' | '--markdown' | '--html' | '--csv' | '--yaml';
export const FILE_FLAG_SUFFIX = 'to FILE (no FILE, or -: standard output)';

/** `--json [file]` and its kin: `what` says what is written ("the run as a versioned JSON document"). */
export function fileOption(flag: FileFlag, what: string): Option {
  return new Option(`${flag} [file]`, `${what}, ${FILE_FLAG_SUFFIX}`);
}

/** What commander gives for a file flag (true without FILE, the FILE, or nothing) as the path to plan: '-' for stdout. */
export function fileFlagPath(value: string | boolean | undefined): string | undefined {
  if (value === undefined || value === false) return undefined;
  return value === true ? '-' : value;
}

/** Where a file flag will write, checked before any work (UsageError naming the flag); null when it was not given. */
export function planFileFlag(flag: FileFlag, value: string | boolean | undefined): OutputTarget | null {
  const path = fileFlagPath(value);
  return path === undefined ? null : planOutput(flag, path);
}

/** Writes text where planFileFlag said: standard output (a reader that goes away ends forklab quietly) or the file. */
export function emitTo(flag: FileFlag, target: OutputTarget, text: string): void {
  if (target.kind === 'fd' && target.fd === 1) writeStdout(text);
  else writeOutput(flag, target, text);
}

export const SEED_HELP = 'seed of the interleaving order and of the bootstrap intervals (the same runs and seed give the same figures and verdicts)';
export const NO_STORE_HELP = 'do not store what this command measures in the history database';
export const NO_COLOR_HELP = 'no ANSI colours (also: the NO_COLOR environment variable, or output that is not a terminal)';
export const PIN_HELP =
  'pin what measures (probes, their children, drivers) to this CPU, or none (default: spawn pins to the last CPU it may run on, the other experiments float; on 2 cores a pinned probe shares its CPU with its child)';
export const WIDE_HELP = 'print lines as long as they come (by default what is printed fits 100 columns, or a narrower terminal: long lines wrap, wide tables fold)';
export const QUICK_HELP = "the experiment's quick preset, as forklab reproduce --quick runs it: every configuration its claims need, in less time";

export const dbOption = () => new Option('--db <path>', DB_HELP);
export const labelOption = () => new Option('--label <text>', LABEL_HELP);
export const seedOption = () => new Option('--seed <n>', SEED_HELP).default('1', '1');
export const noStoreOption = () => new Option('--no-store', NO_STORE_HELP);
export const noColorOption = () => new Option('--no-color', NO_COLOR_HELP);
export const pinOption = () => new Option('--pin <cpu>', PIN_HELP);
export const quickOption = () => new Option('--quick', QUICK_HELP);
export const wideOption = () => new Option('--wide', WIDE_HELP);
const WITHIN_RUN_HELP =
  "today's intervals: what the runs themselves show, without this machine's drift between runs (by default every interval includes it, learnt from the machine's earlier runs: docs/reproduce.md)";
export const withinRunOption = () => new Option('--within-run', WITHIN_RUN_HELP);
const NO_POOL_HELP =
  "the run alone (its intervals still include the drift between runs), not pooled with this machine's earlier runs of the same settings; by default a verdict is on the machine's value: the run pooled with the runs before it (docs/reproduce.md)";
/** --no-pool on the commands that judge with the machine's drift (reproduce, judge). */
export const noPoolOption = () => new Option('--no-pool', NO_POOL_HELP);

/** --only on the commands that run the articles' experiments (reproduce, fleet run, fleet slurm). */
export const ONLY_HELP = 'only these articles, comma-separated: 000,001,002,003,004';
export const onlyOption = () => new Option('--only <articles>', ONLY_HELP);
/** --preset on the fleet commands that start reproductions. */
export const PRESET_HELP = 'quick or full (the articles’ settings)';
export const presetOption = () => new Option('--preset <name>', PRESET_HELP).choices(['quick', 'full']).default('quick');
/** --verbose on the commands that print verdicts (judge, reproduce). */
export const VERBOSE_HELP = "each claim's id, kind and the formula it was judged by, besides the article's sentence";
export const verboseOption = () => new Option('--verbose', VERBOSE_HELP);
