// What every experiment module provides, and what a finished run of one looks like.
import type { InfoValue, ProbeUsage } from '../../runner/protocol.js';
import type { NativePaths } from '../../runner/paths.js';
import type { Summary } from '../../stats/descriptive.js';
import type { ChartSpec, FieldLabel, ThpCondition } from './chart.js';
import type { SelfcheckSuite } from './selfcheck.js';
import type { Block } from './view.js';

export type Scalar = string | number | boolean | null;

/** Statistics of one series of raw samples. */
export interface SeriesStats extends Summary {
  ciLowNs: number;
  ciHighNs: number;
  ciConfidence: number;
}

/** One measured series from one probe process. */
export interface Measurement {
  /** What was timed, e.g. "fork-exec" or "first-write". */
  series: string;
  /**
   * What identifies the configuration: what was chosen (method, rssMb, thp, ...). Its keys are among the
   * experiment's `identity`; two measurements with equal series and identity are repeats of one configuration.
   */
  identity: Record<string, Scalar>;
  /** What was observed about it (hugePagesKb, stopReason, ...): reported, never used to match configurations. */
  observed: Record<string, Scalar>;
  repeat: number;
  state: 'ok' | 'failed';
  failure: string | null;
  /** Everything the probe reported about its setup. */
  info: Record<string, InfoValue>;
  samplesNs: number[];
  /** Extra per-iteration columns (e.g. minor faults), as long as samplesNs. */
  columns: Record<string, number[]>;
  stats: SeriesStats | null;
}

/**
 * A configuration as a run document holds it (src/document/run.ts writes it from a Measurement, its reader checks
 * every key): the keys every configuration has, and the experiment's fields, identity and observed, beside them at
 * the top level. `F` is the experiment's fields; by default any field, unknown until read.
 */
export type Configuration<F extends object = ConfigurationFields> = ConfigurationKeys & F;

/** The keys every configuration object has (CONFIGURATION_KEYS in src/document/run.ts). */
export interface ConfigurationKeys {
  series: string;
  repeat: number;
  state: 'ok' | 'failed';
  /** Present when state is 'failed'. */
  failure?: string;
  info: Record<string, InfoValue>;
  samplesNs: number[];
  /** Absent when the probe recorded no extra columns. */
  columns?: Record<string, number[]>;
  stats: SeriesStats | null;
}

/** The fields of a configuration whose experiment is not known by type: scalars, but read as unknown. */
export interface ConfigurationFields {
  [field: string]: unknown;
}

/** Field values as a measurement carries them: scalars by name (absent: a field that documents of earlier versions lack). */
export type FieldValues = Record<string, Scalar | undefined>;

/**
 * An experiment's fields, the types of the spec its configuration.ts declares once (src/experiments/contract/fields.ts):
 * what identifies a configuration (the keys of its `identity`) and what was observed about it. Its probe calls write
 * them, its summary reads them, a document holds them side by side (ConfigurationOfSpec).
 */
export interface Fields<I extends FieldValues = FieldValues, O extends FieldValues = FieldValues> {
  identity: I;
  observed: O;
}

/** A measurement of an experiment whose fields are known: its identity and observed fields typed as it declares them. */
export type MeasurementOf<F extends Fields> = Omit<Measurement, 'identity' | 'observed'> & { identity: F['identity']; observed: F['observed'] };

/** The keys of a type, of every member where it is a union (series of one experiment may carry different fields). */
type KeysOf<T> = T extends unknown ? keyof T : never;

/** The name of one of an experiment's identity fields. */
export type IdentityKey<F extends Fields> = KeysOf<F['identity']> & string;

/**
 * Every code forklab writes in a warning; a misspelt code does not compile. Documents and history rows from another
 * version may carry a code not listed here, so what is read back is a StoredWarning (its code any string).
 */
export type WarningCode =
  | 'atfork-did-not-help'
  | 'cgroup-left'
  | 'cgroup-unavailable'
  | 'child-late'
  | 'driver-failed'
  | 'emulated'
  | 'execve-alone-not-positive'
  | 'fds-capped'
  | 'fetch-failed'
  | 'history-not-saved'
  | 'ld-statistics-failed'
  | 'long-run'
  | 'mechanism-mismatch'
  | 'no-deadlock'
  | 'noise'
  | 'pagetables-noisy'
  | 'pagetables-unsettled'
  | 'plain-lock-returned'
  | 'probe-failed'
  | 'pte-not-copied'
  | 'run-killed'
  | 'runtime-not-found'
  | 'slab-noisy'
  | 'targets-mislinked'
  | 'thp-never'
  | 'thp-not-applied'
  | 'too-few-samples'
  | 'unexpected-faults'
  | 'vmas-capped'
  | 'vmas-merged'
  | 'way-unavailable';

/** A warning forklab writes: one of its own codes. */
export interface Warning {
  code: WarningCode;
  message: string;
}

/** A warning as read back from a document or the history: a document from another version may carry any code. */
export interface StoredWarning {
  code: string;
  message: string;
}

/** Why the sweep stopped running repeats: recorded in the run's params as `repeatsStop`. */
export interface RepeatsStop {
  /** planned: adaptive repeats were off (exactly --repeats). */
  reason: 'planned' | 'ci-reached' | 'max-repeats' | 'budget' | 'cancelled';
  /** Rounds run (the most any configuration got). */
  rounds: number;
  /** The widest figure's half-width ÷ median when it stopped (null: nothing to judge). */
  widestCiFraction: number | null;
}

/** What a run's parameters carry besides the experiment's own: why its sweep stopped repeating (shared/sweep.ts). */
export interface RunExtras {
  repeatsStop?: RepeatsStop;
}

/**
 * A run of one experiment: its measurements, the derived summary, what went wrong. The warnings of a run forklab
 * makes are its own codes (Warning); a run read back from a document may carry any code (W = StoredWarning).
 */
export interface ExperimentRun<S = unknown, P = object, W extends StoredWarning = Warning> {
  experiment: string;
  /** The parameters it ran with: the experiment's own (its parse()'s result). */
  params: P & RunExtras;
  measurements: Measurement[];
  summary: S;
  warnings: W[];
  /** False when cancelled or when some probe failed. */
  complete: boolean;
}

/** A run as a view reads it: made now, or read back from a document (runOfDocument), whose warnings may carry any code. */
export type ShownRun<S = unknown, P = object> = ExperimentRun<S, P, StoredWarning>;

export interface Progress {
  /** A step started: its label, how many steps in all, which one this is (0-based). */
  step(label: string, index: number, total: number): void;
  /** Free text (a configuration failed, say). */
  note(message: string): void;
}

export interface RunContext {
  native: NativePaths;
  signal: AbortSignal;
  progress: Progress;
  pinCpu: number | null;
  seed: number;
  /** Called with each probe's measurements as soon as they exist (the history store saves them there). */
  record?(ms: readonly Measurement[]): void;
  /** Called once per finished probe process with its scheduling counters (the noise witness sums them). */
  probeFinished?(usage: ProbeUsage | undefined, durationMs: number): void;
}

/** The options as the command line gave them: strings, switches, and the positional arguments (targetArgs). */
export type CommandOptions = Record<string, string | boolean | string[] | undefined>;

/** A command-line option of an experiment: flag, description with unit and default. */
export interface OptionSpec {
  flags: string;
  description: string;
  defaultValue?: string;
  /** Unit of the value (MB, ms, %, iterations), shown with the default in --help: "(default: 400 ms)". */
  unit?: string;
  /** The key of the run's params this flag sets, where it is not the flag in camelCase (with a unit suffix): --repeats-ci sets repeatsCiTarget. */
  param?: string;
}

/** The unit an experiment's timings are shown in: µs per call (perNs 1000) or ns per page (perNs 1). */
export interface TimeUnit {
  /** Shown in headers: "µs", "ns/page". */
  label: string;
  /** Nanoseconds in one unit. */
  perNs: number;
}

export const MICROSECONDS_PER_CALL: TimeUnit = { label: 'µs', perNs: 1000 };
export const NANOSECONDS_PER_PAGE: TimeUnit = { label: 'ns/page', perNs: 1 };

/** Option values as the command line would give them (parsed with the experiment's own parse()). */
export type RawOptions = Record<string, string>;

/** The settings `forklab reproduce` runs an experiment with. */
export interface Presets {
  /** The articles' settings where this machine allows them. */
  full: RawOptions;
  /** Every configuration a claim or headline figure needs, measured for less time. */
  quick: RawOptions;
  /** Why the settings are what they are (docs/reproduce.md). */
  note: string;
  /**
   * What `forklab reproduce` runs instead, where that is not the presets above (runtimes: its presets are its
   * command's, every runtime found): per preset, the settings, or the sentence saying why reproduce leaves it out;
   * a preset not named here is run as above.
   */
  reproduce?: { full?: RawOptions | string; quick?: RawOptions | string };
}

/** What the registry and the command line name it by. */
export interface ExperimentEntry {
  name: string;
  /** Which article it reproduces (000–004; '' for none) and a one-line description. */
  article: string;
  /** The published source beyond the articles it answers, when no article's (data/published.json `sources`). */
  source?: string;
  summaryLine: string;
}

/** How it is measured (read by src/lab/ and src/cli/): its probe cases, options, parameters, presets, run and selfcheck. */
export interface ExperimentMeasure<P, S> {
  /** The probe cases it starts (native/case_NAME.c registers each with FL_CASE). */
  cases: readonly string[];
  /** Programs in drivers/ it starts in the probe's place (they speak the probe protocol); absent: none. */
  drivers?: readonly string[];
  options: OptionSpec[];
  /** From the raw option strings to typed parameters; throws UsageError naming the flag. No work. */
  parse(raw: CommandOptions): P;
  /** Takes --target PROGRAM [ARGS…]: the user's program instead of the built-in `return 0` target (raw.target, raw.targetArgs). */
  acceptsTarget?: boolean;
  /** Checks what the machine allows (memory, limits) before anything is started; throws UsageError. */
  preflight(params: P): Warning[];
  run(params: P, ctx: RunContext): Promise<ExperimentRun<S, P>>;
  /** Its settings for `forklab reproduce`. */
  presets: Presets;
  /** The flag that sets how many samples a series gets, for series where that is not --iterations (exec's ld-startup: --ld-runs). */
  samplesFlag?: Readonly<Record<string, string>>;
  /** Its pairs for `forklab selfcheck` (selfcheck.ts): a probe series beside a bare C loop of the same operation; absent: none. */
  selfcheck?: SelfcheckSuite;
}

/** What one measurement's configuration keeps runnable at once (ExperimentSummarise.concurrency). */
export interface TasksAtOnce {
  /** Tasks runnable at the same time: creators, or siblings and the launching thread. */
  tasks: number;
  /** The CPUs they could run on, as the probe saw them; null: not said (the lab's own allowed CPUs are used). */
  cpus: number | null;
  /** The tasks in words: "4 creator threads", "2 sibling threads and the launching one". */
  what: string;
}

export interface Concurrency {
  /** A measurement's tasks at once; null where it runs one. */
  of(m: Measurement): TasksAtOnce | null;
  /** Options that rerun it with no more tasks than CPUs, so that its spread is the machine's alone ("--creators 1"). */
  alone: string;
}

/** How its measurements are read and summarised (src/document/, the noise warning). */
export interface ExperimentSummarise<P, S, F extends Fields> {
  /**
   * Every key a measurement's `identity` may carry (in the order the JSON document writes them). Any other
   * field of a configuration was observed. Stored documents are read with this list (src/document/).
   */
  identity: readonly IdentityKey<F>[];
  /** The series it reports, in the order tables and charts show them. */
  series: readonly string[];
  /**
   * The measurement fields that, with the series name, identify one timed figure (spawn: thp, rssMb): the
   * noise warning pools samples by them and judges each figure's interval. null: no timed figures to judge.
   * Absent: the experiment's identity.
   */
  figureKeys?: readonly IdentityKey<F>[] | null;
  /**
   * What it runs at once itself, where a configuration keeps several tasks runnable (contend: N creators, or sibling
   * threads beside the launching one): the noise warning tells the spread this concurrency explains (more tasks than
   * CPUs) from the machine's. Absent: one task at a time.
   */
  concurrency?: Concurrency;
  /** Whether its series are timed in the same iterations of one probe process (a claim may then pair them). */
  paired?: boolean;
  /**
   * Pinned to one CPU unless --pin says otherwise (the last CPU this process may run on; `--pin none` lets it
   * float): for a single-threaded probe whose child runs while it waits, where the scheduler's placement of the
   * child beside other work, not the work measured, made whole probe processes 2.6× slower (docs/noise.md).
   */
  pinsByDefault?: boolean;
  /**
   * The identity fields one probe process fixes, from a run's parameters, where one probe measures several
   * configurations round by round (spawn: one probe per RSS × THP times every method): configurations of the same
   * probes are then resampled iteration by iteration together. null: one probe per configuration (runs stored before).
   */
  probeKeys?(params: Readonly<Record<string, unknown>>): readonly string[] | null;
  /**
   * The summary of a run from its measurements (what `run` computes), for a stored document without one.
   * What the measurements do not hold (exec's ld.so statistics) is left empty.
   */
  summarize(measurements: readonly Measurement[], params: P, seed: number): S;
}

/** What the claims read besides its configurations (src/claims/). */
export interface ExperimentJudge<F extends Fields> {
  /** How its THP condition is verified against the huge pages the kernel gave; absent: it has none. */
  thpCondition?: ThpCondition;
  /** The identity field whose value names the series (spawn's method), where a published series names it instead of the series. */
  seriesField?: IdentityKey<F>;
  /** Keys of its published series that describe the article's machine, not forklab data (thpSystem): never matched. */
  contextKeys?: readonly string[];
}

/** How it is shown (src/report/ and the CLI's views). */
export interface ExperimentPresent<P, S> {
  /** The order in which tables and charts show the values of identity fields (e.g. thp: on, off, default). */
  valueOrder: Readonly<Record<string, readonly string[]>>;
  /** The unit its timings are shown in. */
  unit: TimeUnit;
  /**
   * What its figures are: 'timings' (medians in `unit`, compared run against run), or 'outcomes' (what happened,
   * e.g. whether a child got a lock: `show` and `compare` print its view instead of medians).
   */
  figures: 'timings' | 'outcomes';
  /** Its own chart in reports (chart.ts), drawn by kind; null: none (the distribution of samples is still drawn); absent: its medians per series. */
  chart?: ChartSpec | null;
  /** How its fields are said in a configuration's label ("64 MB", "THP on"); a field without one: "key value". */
  fieldLabels?: Readonly<Record<string, FieldLabel>>;
  /**
   * What a run shows, in the article's layout: headings, tables, lines, notes, the latency chart, as data.
   * src/report/ renders it for the terminal, Markdown and HTML alike.
   */
  view(run: ShownRun<S, P>): Block[];
}

/**
 * An experiment: P its parameters, S its summary, F its fields (its configuration.ts; by default any scalars), in five
 * parts by what reads them; a new experiment fills in every required member and the optional ones it needs.
 */
export interface Experiment<P, S, F extends Fields = Fields>
  extends ExperimentEntry,
    ExperimentMeasure<P, S>,
    ExperimentSummarise<P, S, F>,
    ExperimentJudge<F>,
    ExperimentPresent<P, S> {}

/**
 * A kind of run a command of its own records, instead of a sweep of probe configurations (`forklab trace` observes
 * the user's own command; its life is in src/lab/): stored, read, judged and shown like an experiment's run, so it
 * has every part of one but the measuring part (no probe cases, options, presets or run). The registry lists it
 * in RECORDED.
 */
export interface Recording<P, S, F extends Fields = Fields> extends ExperimentEntry, ExperimentSummarise<P, S, F>, ExperimentJudge<F>, ExperimentPresent<P, S> {
  /** The command that records one, as a user types it. */
  recordedBy: string;
}
