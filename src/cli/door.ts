// Where the documents a command writes go: its file flags (--json, --html, --markdown, --csv) planned before any
// work, the one rule for standard output (at most one document there, and then the command's own text goes to
// standard error), and the writing, each document rendered by its format (src/report/formats.ts).
import type { Published } from '../reference/published.js';
import { FILE_FORMATS, FORMATS, render, type DocumentKind, type Documents, type FileFormat, type FormatFlag } from '../report/formats.js';
import { UsageError } from '../errors.js';
import { BROKEN_PIPE_STATUS, OutputError, planOutput, writeOutput, writeStdout, type OutputTarget } from './output.js';

/** One document to write: in which format, asked by which flag, and where. */
export interface Output {
  format: FileFormat;
  /** The format's flag (what a hint tells the user to give to write it again). */
  flag: FormatFlag;
  /** Whether the user gave the flag; false for the command's default document (export's JSON, report's Markdown), whose messages name no flag. */
  given: boolean;
  target: OutputTarget;
}

export interface OutputPlan {
  /** In the order they are written: the data first, then the reports (FILE_FORMATS). */
  outputs: Output[];
  /** A document goes to standard output: the command's own text (a table, a summary) goes to standard error. */
  ownsStdout: boolean;
}

/** What commander gives for each file flag: true without FILE, the FILE, or nothing when the flag was not given. */
export type GivenFlags = Partial<Record<FileFormat, string | boolean | undefined>>;

/** What commander gives for a file flag as the path to plan ('-' for standard output); undefined when not given. */
export function flagPath(value: string | boolean | undefined): string | undefined {
  if (value === undefined || value === false) return undefined;
  return value === true ? '-' : value;
}

const isStdout = (t: OutputTarget) => t.kind === 'fd' && t.fd === 1;

/**
 * Every file flag given, planned now, before any work (a UsageError naming the flag: a directory, a missing
 * directory, a read-only file...), and the one check that no two documents go to the same descriptor (standard
 * output, /dev/fd/3). `fallback`: the format written on standard output when no file flag is given (export: the
 * run's JSON; report: Markdown).
 */
export function planOutputs(given: GivenFlags, fallback?: FileFormat): OutputPlan {
  const outputs: Output[] = [];
  for (const format of FILE_FORMATS) {
    const path = flagPath(given[format]);
    if (path === undefined) continue;
    const flag = FORMATS[format].flag!;
    const target = planOutput(flag, path);
    const same = target.kind === 'fd' ? outputs.find((o) => o.target.kind === 'fd' && o.target.fd === target.fd) : undefined;
    if (same) throw new UsageError(flag, `${same.flag} already writes to ${target.display}; give one of them a file`);
    outputs.push({ format, flag, given: true, target });
  }
  if (outputs.length === 0 && fallback) outputs.push({ format: fallback, flag: FORMATS[fallback].flag!, given: false, target: planOutput(FORMATS[fallback].flag!, '-') });
  return { outputs, ownsStdout: outputs.some((o) => isStdout(o.target)) };
}

/** The one output planned for a format, or null. */
export const outputOf = (plan: OutputPlan, format: FileFormat): Output | null => plan.outputs.find((o) => o.format === format) ?? null;

export interface WriteOptions {
  /** What the user can do when a write fails (how to get the run or the reproduction out of the history). */
  hint?: (flag: FormatFlag, display: string) => string | undefined;
}

/**
 * Writes text where an output was planned: standard output (a reader that goes away ends forklab quietly, 141)
 * or the file (replaced atomically), saying on stderr which file was written. A failed write throws OutputError
 * naming the flag, the file and the cause; what was there stays as it was.
 */
export function writeText(command: string, out: Output, text: string, o: WriteOptions = {}): void {
  try {
    if (isStdout(out.target)) writeStdout(text);
    else writeOutput(out.flag, out.target, text);
  } catch (e) {
    if (!(e instanceof OutputError)) throw e;
    if (e.errno === 'EPIPE') process.exit(BROKEN_PIPE_STATUS); // the reader is gone: end quietly, as a pipe's writer does
    // Only a flag the user gave is named: the default document's failure is the command's own.
    throw new OutputError(e.display, e.errno, out.given ? `${out.flag}: ${e.message}` : e.message, o.hint?.(out.flag, e.display));
  }
  if (out.target.kind !== 'fd') process.stderr.write(`forklab ${command}: wrote ${out.target.display}\n`);
}

/** Every planned output of a document, each rendered by its format with the document's unit and the published data. */
export async function writeOutputs<K extends DocumentKind>(
  command: string,
  plan: OutputPlan,
  kind: K,
  doc: Documents[K],
  o: WriteOptions & { published?: Published } = {},
): Promise<void> {
  for (const out of plan.outputs) writeText(command, out, await render(out.format, kind, doc, o.published), o);
}
