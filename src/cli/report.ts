// `forklab report`: a run (from the history database, or a JSON document with --input) as a self-contained
// HTML page or as Markdown; `--compare A B` shows two runs together.
import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { checkWritable, writeFileAtomic, DOCUMENT_SCHEMA, type RunDocument } from '../report/document.js';
import { configLabel, statsWhere, type Cell, type ClaimVerdict, type PublishedComparison } from '../report/charts.js';
import { renderCompareMarkdown, renderMarkdown } from '../report/markdown.js';
import { CliError } from './run.js';
import { DB_HELP } from './options.js';

export interface ReportDeps {
  /** The run REF (undefined: the latest) from the history database at dbPath (undefined: the default); throws an Error naming the problem. */
  loadRun(ref: string | undefined, dbPath: string | undefined): RunDocument | Promise<RunDocument>;
  /** Claim verdicts for a run (optional: without it the report says no claim was judged). */
  judgeClaims?(doc: RunDocument): readonly ClaimVerdict[] | Promise<readonly ClaimVerdict[]>;
  /** The published figures (default: data/published.json through src/reference/published.ts). */
  publishedFigures?(): readonly PublishedFigureLike[];
  /** This run beside the published figures, replacing the built-in matching (publishedComparisons) entirely. */
  comparePublished?(doc: RunDocument): readonly PublishedComparison[] | Promise<readonly PublishedComparison[]>;
}

interface ReportOptions {
  db?: string;
  input?: string[];
  compare?: string[];
  html?: string;
  markdown?: string | boolean;
}

/** A run document read from a JSON file, checked enough to render; throws an Error naming the file and the problem. */
export function readRunDocument(file: string): RunDocument {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file} is not JSON: ${(e as Error).message}`);
  }
  const d = doc as Partial<RunDocument> | null;
  if (typeof d !== 'object' || d === null || d.schema !== DOCUMENT_SCHEMA)
    throw new Error(`${file} is not a forklab run document (no "schema": "${DOCUMENT_SCHEMA}")`);
  if (d.schemaVersion !== 1) throw new Error(`${file} has schemaVersion ${String(d.schemaVersion)}; this forklab reads version 1`);
  for (const k of ['experiment', 'machine', 'configurations', 'warnings', 'params', 'load'] as const)
    if (d[k] === undefined || d[k] === null) throw new Error(`${file}: the document has no "${k}"`);
  if (!Array.isArray(d.configurations) || !Array.isArray(d.warnings)) throw new Error(`${file}: "configurations" and "warnings" must be arrays`);
  return d as RunDocument;
}

/** The shape of a figure of data/published.json that matching needs (see src/reference/published.ts). */
export interface PublishedFigureLike {
  id: string;
  article: string;
  experiment: string;
  series: Record<string, string | number | boolean>;
  equivalentSeries?: Record<string, string | number | boolean>;
  minus?: unknown;
  metric?: string;
  statistic: string;
  value: number;
  unit: string;
}

const NS_PER: Record<string, number> = { us: 1000, ns: 1, ms: 1e6, 'ns/page': 1 };

/**
 * This run beside the published figures of its experiment: every figure of a plain time statistic (mean, median,
 * min; "unspecified" is compared with the median) whose series (or its equivalentSeries, the condition forklab can
 * reproduce) names measured configurations of this run. Ratios, slopes and readings are left to the claim verdicts.
 */
export function publishedComparisons(doc: RunDocument, figures: readonly PublishedFigureLike[]): PublishedComparison[] {
  const out: PublishedComparison[] = [];
  const seen = new Set<string>();
  for (const f of figures) {
    const perNs = NS_PER[f.unit];
    if (f.experiment !== doc.experiment || perNs === undefined || f.minus !== undefined || f.metric !== undefined) continue;
    if (!['mean', 'median', 'min', 'unspecified'].includes(f.statistic)) continue;
    const where: Record<string, Cell> = Object.fromEntries(Object.entries(f.equivalentSeries ?? f.series).filter(([k]) => k !== 'thpSystem'));
    const key = JSON.stringify([f.statistic, where]);
    if (Object.keys(where).length === 0 || seen.has(key)) continue;
    const st = statsWhere(doc, where);
    if (!st) continue;
    seen.add(key);
    const statistic = f.statistic === 'unspecified' ? 'median' : f.statistic;
    const ns = statistic === 'mean' ? st.meanNs : statistic === 'min' ? st.minNs : st.medianNs;
    out.push({
      label: `${configLabel(String(where.method ?? where.series ?? ''), where)} · ${statistic}`,
      publishedValue: f.value,
      measuredValue: ns / perNs,
      unit: f.unit,
      article: f.article,
      figureId: f.id,
      statistic: f.statistic === 'unspecified' ? 'median (article: unspecified)' : statistic,
      ...(f.equivalentSeries ? { note: `published for ${configLabel(String(f.series.method ?? f.series.series ?? ''), f.series)}` } : {}),
    });
  }
  return out;
}

async function defaultFigures(): Promise<readonly PublishedFigureLike[]> {
  const { loadPublished } = await import('../reference/published.js');
  return loadPublished().figures;
}

async function comparisonsFor(doc: RunDocument, deps: ReportDeps): Promise<{ comparisons: PublishedComparison[]; note: string | null }> {
  try {
    if (deps.comparePublished) return { comparisons: [...(await deps.comparePublished(doc))], note: null };
    const figures = deps.publishedFigures ? deps.publishedFigures() : await defaultFigures();
    return { comparisons: publishedComparisons(doc, figures), note: null };
  } catch (e) {
    return { comparisons: [], note: `forklab report: the published figures could not be loaded (${(e as Error).message}); the report leaves them out` };
  }
}

function usage(message: string): never {
  throw new CliError(`forklab report: ${message}`);
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
      throw new CliError(`forklab report: ${inputs.length ? '--input: ' : ''}${(e as Error).message}`, 1);
    }
  }
  return docs;
}

export async function reportAction(run: string | undefined, o: ReportOptions, deps: ReportDeps): Promise<number> {
  // Everything the user typed, before any work.
  for (const [flag, file] of [['--html', o.html], ['--markdown', typeof o.markdown === 'string' ? o.markdown : undefined]] as const) {
    if (file === undefined) continue;
    try {
      checkWritable(file);
    } catch (e) {
      usage(`${flag}: ${(e as Error).message}`);
    }
  }
  const docs = await loadDocs(run, o, deps);
  const [a, b] = docs as [RunDocument, RunDocument | undefined];
  const names = o.compare ?? (o.input ?? []).map((f, _, all) => (basename(all[0]!) === basename(all[1] ?? '') ? f : basename(f)));
  const labels: [string, string] = b ? [names[0]!, names[1]!] : ['A', 'B'];
  let comparisons: PublishedComparison[] = [];
  let verdicts: readonly ClaimVerdict[] = [];
  if (!b) {
    const c = await comparisonsFor(a, deps);
    if (c.note) process.stderr.write(`${c.note}\n`);
    comparisons = c.comparisons;
    if (deps.judgeClaims) verdicts = await deps.judgeClaims(a);
  }
  const markdown = () => (b ? renderCompareMarkdown(a, b, labels) : renderMarkdown(a, { comparisons, verdicts }));
  if (o.html !== undefined) {
    const { renderHtml } = await import('../report/html.js');
    const html = await renderHtml({ doc: a, ...(b ? { compareWith: b, labels } : {}), comparisons, verdicts });
    writeFileAtomic(o.html, html);
    process.stderr.write(`forklab: wrote ${o.html}\n`);
  }
  if (typeof o.markdown === 'string') {
    writeFileAtomic(o.markdown, markdown());
    process.stderr.write(`forklab: wrote ${o.markdown}\n`);
  } else if (o.markdown === true || o.html === undefined) {
    process.stdout.write(markdown());
  }
  return 0;
}

/** Adds `forklab report` to the program. */
export function registerReportCommand(program: Command, deps: ReportDeps): void {
  program.addCommand(
    new Command('report')
      .description('a run as a self-contained HTML page (charts included, works offline) or as Markdown for an issue or a post')
      .argument('[run]', 'run id from the history database (default: the latest run)')
      .option('--db <path>', DB_HELP)
      .option('--input <files...>', 'read the run document(s) from JSON file(s) written with --json instead (two files: compare them)')
      .option('--compare <runs...>', 'show two runs together: --compare RUN_A RUN_B')
      .option('--html <file>', 'write a self-contained HTML report to FILE')
      .option('--markdown [file]', 'write GitHub-flavoured Markdown to FILE, or to standard output without FILE (the default output)')
      .exitOverride()
      .action(async (run: string | undefined, o: ReportOptions) => {
        process.exitCode = await reportAction(run, o, deps);
      }),
  );
}
