// `forklab report`: a run (from the history database, or a JSON document with --input) as a self-contained
// HTML page or as Markdown; `--compare A B` shows two runs together.
import { Command } from 'commander';
import { readBounded } from './input.js';
import { basename } from 'node:path';
import type { RunDocument } from '../document/run.js';
import { DocumentError, parseRunDocument } from '../document/validate.js';
import type { ClaimVerdict, PublishedComparison } from '../report/judged.js';
import type { RunConclusions } from '../report/judged.js';
import type { Published } from '../reference/published.js';
import { asReproduceDocument, reproductionInText, type ReproduceDocument } from '../claims/reproduction.js';
import { isReproductionRef } from '../store/db.js';
import { isFileRef } from './named.js';
import { CliError } from './errors.js';
import { dbOption, fileOption } from './options.js';
import { UsageError } from '../errors.js';
import { planOutputs, writeOutputs, type OutputPlan } from './door.js';

export interface ReportDeps {
  /** The run REF (undefined: the latest) from the history database at dbPath (undefined: the default); throws an Error naming the problem. */
  loadRun(ref: string | undefined, dbPath: string | undefined): RunDocument | Promise<RunDocument>;
  /** A stored reproduction by reference (R<n>, Rlatest) and those of its runs still in the history. */
  loadReproduction?(
    ref: string,
    dbPath: string | undefined,
  ): { doc: unknown; runs: RunDocument[]; missing: number } | Promise<{ doc: unknown; runs: RunDocument[]; missing: number }>;
  /** 'R<n>' when `latest` (the default) names a reproduction: the latest thing made was a forklab reproduce. */
  latestReproduction?(dbPath: string | undefined): string | null;
  /** --json: what forklab judge REFS --json writes (the verdicts, figures and runs as JSON); its exit status. */
  judgeJson?(refs: string[], o: { json: string | boolean; db?: string }): number;
  /** The articles' figures and claims (default: data/published.json through src/reference/published.ts). */
  published?(): Published;
}

interface ReportOptions {
  db?: string;
  json?: string | boolean;
  input?: string[];
  compare?: string[];
  html?: string | boolean;
  markdown?: string | boolean;
}

/** A run document read from a JSON file with the one reader of run documents (src/document/validate.ts); throws an Error naming the file and the problem. */
export function readRunDocument(file: string): RunDocument {
  const text = readBounded(file); // a ForklabError naming the file and the cause
  try {
    return parseRunDocument(text);
  } catch (e) {
    if (e instanceof DocumentError) throw new Error(`${file}: ${e.message}`);
    throw e;
  }
}

/** The verdicts and published figures the claims engine gives for this run; a problem with the data is a note, not a failure. */
async function conclusionsFor(doc: RunDocument, deps: ReportDeps): Promise<RunConclusions> {
  try {
    const { runConclusions } = await import('../report/judged.js');
    const published = deps.published ? deps.published() : (await import('../reference/published.js')).loadPublished();
    return runConclusions(doc, published);
  } catch (e) {
    return { verdicts: [], comparisons: [], note: `the published figures could not be loaded (${(e as Error).message}); the report leaves them out` };
  }
}

/** The articles' figures and claims the report is made with (data/published.json unless the caller gives others). */
async function publishedFor(deps: ReportDeps): Promise<Published | undefined> {
  try {
    return deps.published ? deps.published() : (await import('../reference/published.js')).loadPublished();
  } catch {
    return undefined; // the renderers that need them say so; conclusionsFor has noted it
  }
}

function usage(message: string): never {
  throw new CliError(message);
}

async function loadDocs(run: string | undefined, o: ReportOptions, deps: ReportDeps): Promise<RunDocument[]> {
  const inputs = o.input ?? [];
  if (inputs.length > 2) usage('--input: at most two files (two compare them)');
  if (inputs.length && (run !== undefined || o.compare)) usage('--input: give either run references (RUN, --compare A B) or --input files, not both');
  if (inputs.length && o.db !== undefined) usage('--db: not used with --input (the documents are read from the files)');
  if (o.compare && run !== undefined) usage(`--compare: takes both runs (--compare A B); remove the extra run ${run}`);
  if (o.compare && o.compare.length !== 2) usage(`--compare: expected two runs (--compare A B), got ${o.compare.length}`);
  const refs = inputs.length ? inputs : (o.compare ?? [run]);
  const docs: RunDocument[] = [];
  for (const ref of refs) {
    try {
      docs.push(inputs.length ? readRunDocument(ref!) : await deps.loadRun(ref, o.db));
    } catch (e) {
      if (e instanceof CliError) throw e;
      // The same status as `forklab show` for a run that is not there, or a file that cannot be read: bad input.
      throw new CliError(`${inputs.length ? '--input: ' : ''}${(e as Error).message}`, 2);
    }
  }
  return docs;
}

/** When a report cannot be written, what was at the file is left as it was. */
const unchanged = { hint: (_flag: string, display: string) => `nothing was changed at ${display}` };

export async function reportAction(run: string | undefined, o: ReportOptions, deps: ReportDeps): Promise<number> {
  // A file named where a run goes is read as --input would read it.
  if (run !== undefined && !o.input && !o.compare && isFileRef(run)) {
    o = { ...o, input: [run] };
    run = undefined;
  }
  // --json: the verdicts and figures as data are judge's (the report itself is HTML or Markdown).
  if (o.json !== undefined) {
    if (o.html !== undefined || o.markdown !== undefined) usage('--json: give it alone (it writes what forklab judge --json writes); --html and --markdown write the report');
    if (o.compare) usage('--json: the verdicts of one run or reproduction; forklab compare A B --json writes a comparison');
    if (!deps.judgeJson) usage('--json: forklab judge RUN --json FILE writes the verdicts');
    const latest = run === undefined || run.trim().toLowerCase() === 'latest' ? (deps.latestReproduction?.(o.db) ?? null) : null;
    return deps.judgeJson([...(o.input ?? [latest ?? run ?? 'latest'])], { json: o.json, db: o.db });
  }
  // Everything the user typed, before any work: Markdown on standard output unless another format is asked for.
  let plan: OutputPlan;
  try {
    plan = planOutputs({ html: o.html, markdown: o.markdown }, 'markdown');
  } catch (e) {
    if (e instanceof UsageError) usage(e.message);
    throw e;
  }
  // `latest` (the default) is the latest thing made: after forklab reproduce, the reproduction.
  if ((run === undefined || run.trim().toLowerCase() === 'latest') && !o.input && !o.compare && deps.latestReproduction) {
    const r = deps.latestReproduction(o.db);
    if (r !== null) run = r;
  }
  if (await reportReproduction(run, o, deps, plan)) return 0;
  const docs = await loadDocs(run, o, deps);
  const [a, b] = docs as [RunDocument, RunDocument | undefined];
  if (b && a.experiment !== b.experiment)
    usage(`--compare: the first run is of experiment ${a.experiment} and the second of ${b.experiment}; only runs of one experiment are compared (report each alone)`);
  const names = o.compare ?? (o.input ?? []).map((f, _, all) => (basename(all[0]!) === basename(all[1] ?? '') ? f : basename(f)));
  const labels: [string, string] = b ? [names[0]!, names[1]!] : ['A', 'B'];
  let comparisons: PublishedComparison[] = [];
  let verdicts: readonly ClaimVerdict[] = [];
  let compareVerdicts: [readonly ClaimVerdict[], readonly ClaimVerdict[]] | undefined;
  if (!b) {
    const c = await conclusionsFor(a, deps);
    if (c.note) process.stderr.write(`forklab report: ${c.note}\n`);
    ({ comparisons, verdicts } = c);
  } else {
    // Each run judged alone, to say which verdicts changed between them.
    const [ca, cb] = [await conclusionsFor(a, deps), await conclusionsFor(b, deps)];
    if (ca.verdicts.length && cb.verdicts.length) compareVerdicts = [ca.verdicts, cb.verdicts];
  }
  const published = await publishedFor(deps);
  if (b) await writeOutputs('report', plan, 'compare', { a, b, labels, verdicts: compareVerdicts }, { ...unchanged, published });
  else await writeOutputs('report', plan, 'report', { doc: a, verdicts, comparisons }, { ...unchanged, published });
  return 0;
}

/** The reproduction REF names (R<n>), or the one an --input file holds; null when the report is of runs. */
async function reproductionFor(run: string | undefined, o: ReportOptions, deps: ReportDeps): Promise<{ doc: ReproduceDocument; runs: RunDocument[]; note: string | null } | null> {
  if (run !== undefined && isReproductionRef(run)) {
    if (o.compare || o.input) usage('a reproduction (R…) is reported alone: leave out --compare and --input');
    if (!deps.loadReproduction) usage('reproductions cannot be read here');
    let got: Awaited<ReturnType<NonNullable<typeof deps.loadReproduction>>>;
    try {
      got = await deps.loadReproduction(run, o.db);
    } catch (e) {
      if (e instanceof CliError) throw e;
      throw new CliError((e as Error).message, 1);
    }
    const doc = asReproduceDocument(got.doc, `reproduction ${run}`);
    return {
      doc,
      runs: got.runs,
      note: got.missing ? `${got.missing} of its runs are no longer in the history (forklab rm): their charts are left out, their verdicts are kept` : null,
    };
  }
  if (o.input?.length !== 1) return null;
  const doc = reproductionInText(readBounded(o.input[0]!), o.input[0]!);
  if (doc === null) return null; // a run document: readRunDocument names any problem
  const runs = doc.runs.filter((r): r is RunDocument => typeof r === 'object');
  return {
    doc,
    runs,
    note: runs.length < doc.runs.length ? 'the file names stored runs by id only: their charts are left out (forklab report R<n> draws them from the history)' : null,
  };
}

/** A reproduction as a report: HTML with --html, Markdown with --markdown or on standard output. */
async function reportReproduction(run: string | undefined, o: ReportOptions, deps: ReportDeps, plan: OutputPlan): Promise<boolean> {
  const r = await reproductionFor(run, o, deps);
  if (!r) return false;
  if (r.note) process.stderr.write(`forklab report: ${r.note}\n`);
  await writeOutputs('report', plan, 'reproduction', { doc: r.doc, runs: r.runs }, { ...unchanged, published: await publishedFor(deps) });
  return true;
}

/** Adds `forklab report` to the program. */
export function registerReportCommand(program: Command, deps: ReportDeps): void {
  program.addCommand(
    new Command('report')
      .description('a run as a self-contained HTML page (charts included, works offline) or as Markdown for an issue or a post')
      .argument(
        '[run]',
        'a run (id, uuid prefix, latest; default: the latest run), a reproduction: R and its number (forklab history lists both), or a file: a run document or a forklab reproduce --json file',
      )
      .addOption(dbOption())
      .option('--input <files...>', 'read the run document(s) from JSON file(s) written with --json instead (two files: compare them)')
      .option('--compare <runs...>', 'show two runs together: --compare RUN_A RUN_B')
      .addOption(fileOption('--html', 'write a self-contained HTML report'))
      .addOption(fileOption('--markdown', 'write GitHub-flavoured Markdown (the default output)'))
      .addOption(fileOption('--json', 'write the verdicts, the figures and the runs they rest on as JSON, as forklab judge RUN --json does'))
      .exitOverride()
      .action(async (run: string | undefined, o: ReportOptions) => {
        process.exitCode = await reportAction(run, o, deps);
      }),
  );
}
