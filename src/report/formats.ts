// One door for every output format. Each format is registered here once: its flag, the documents it renders
// and, for each, a render function that is always handed the document, the unit its medians are stated in
// (resolved once, here, from the experiment's own declaration) and the articles' published data (read once by
// the caller). A command asks for documents by kind; src/cli/door.ts decides where each format goes.
import type { RunDocument } from '../document/run.js';
import type { ReproduceDocument } from '../claims/reproduction.js';
import { loadPublished, type Published } from '../reference/published.js';
import { compareRuns } from '../store/compare.js';
import { MICROSECONDS_PER_CALL, type TimeUnit } from '../experiments/contract/types.js';
import { timeUnit } from './groups.js';
import type { ClaimVerdict, PublishedComparison } from './judged.js';
import { renderMarkdown } from './markdown.js';
import { renderCompareMarkdown } from './compare.js';
import { runsSamplesCsv, samplesCsv, summaryMarkdown } from './export.js';

/** Every format forklab writes; all but the terminal's have a flag (`--json [FILE]`...). */
export const FORMAT_NAMES = ['terminal', 'json', 'html', 'markdown', 'csv'] as const;
export type FormatName = (typeof FORMAT_NAMES)[number];
export type FileFormat = Exclude<FormatName, 'terminal'>;
export type FormatFlag = `--${FileFormat}`;

/** What a render function is handed besides its document. */
export interface RenderContext {
  /** The unit of the experiment's medians (ns/page, µs), as the experiment declares it. */
  unit: TimeUnit;
  /** The articles' figures and claims (data/published.json, read once, when a renderer first needs them). */
  readonly published: Published;
}

/** Two runs of one experiment side by side (`forklab compare A B`, `forklab report --compare A B`). */
export interface ComparedRuns {
  a: RunDocument;
  b: RunDocument;
  /** How the two runs are named (what the user typed, or A and B). */
  labels: [string, string];
  /** Each run's verdicts, to say which claims changed (absent when either run has none). */
  verdicts?: [readonly ClaimVerdict[], readonly ClaimVerdict[]];
}

/** The documents forklab renders, by kind. */
export interface Documents {
  /** A run's report: the run, its verdicts and its figures beside the article's (`forklab report RUN`). */
  report: { doc: RunDocument; verdicts: readonly ClaimVerdict[]; comparisons: readonly PublishedComparison[] };
  /** A run as data (`forklab export RUN`, `show --json`, an experiment's `--json`). */
  run: RunDocument;
  /** A reproduction's runs as data (`forklab export R<n>`): the reproduction with its runs whole. */
  runs: { reproduction: ReproduceDocument; runs: readonly RunDocument[] };
  /** Two runs compared. */
  compare: ComparedRuns;
  /** A reproduction's report (`forklab reproduce --html`, `forklab report R<n>`). */
  reproduction: { doc: ReproduceDocument; runs: readonly RunDocument[] };
}
export type DocumentKind = keyof Documents;

export type Render<K extends DocumentKind> = (doc: Documents[K], ctx: RenderContext) => string | Promise<string>;

export interface Format {
  name: FormatName;
  /** The flag that asks for it (null: the terminal's text, written when no document owns standard output). */
  flag: FormatFlag | null;
  /** The documents it renders, each with its render function. */
  renders: { [K in DocumentKind]?: Render<K> };
}

const jsonText = (value: unknown) => `${JSON.stringify(value, null, 1)}\n`;

export const FORMATS: { readonly [F in FormatName]: Format } = {
  terminal: { name: 'terminal', flag: null, renders: {} },
  json: {
    name: 'json',
    flag: '--json',
    renders: {
      run: (doc) => jsonText(doc),
      runs: (d) => jsonText({ ...d.reproduction, runs: d.runs }),
      compare: (d) => jsonText(compareRuns(d.a, d.b)),
      reproduction: (d) => jsonText(d.doc),
    },
  },
  html: {
    name: 'html',
    flag: '--html',
    renders: {
      report: async (d) => (await import('./html.js')).renderHtml({ doc: d.doc, comparisons: d.comparisons, verdicts: d.verdicts }),
      compare: async (d) => (await import('./html.js')).renderHtml({ doc: d.a, compareWith: d.b, labels: d.labels, compareVerdicts: d.verdicts }),
      reproduction: async (d, { published }) => (await import('./reproduction.js')).reproductionHtml(d.doc, d.runs, published),
    },
  },
  markdown: {
    name: 'markdown',
    flag: '--markdown',
    renders: {
      report: (d) => renderMarkdown(d.doc, { comparisons: d.comparisons, verdicts: d.verdicts }),
      run: (doc, { unit }) => summaryMarkdown(doc, unit),
      runs: (d) => d.runs.map((r) => `### ${r.experiment}, run ${(r.runId ?? '').slice(0, 8)}\n\n${summaryMarkdown(r, unitOf(r.experiment))}`).join('\n'),
      compare: (d) => renderCompareMarkdown(d.a, d.b, d.labels, d.verdicts),
      reproduction: async (d, { published }) => (await import('./reproduction.js')).reproductionMarkdown(d.doc, d.runs, published),
    },
  },
  csv: {
    name: 'csv',
    flag: '--csv',
    renders: {
      run: (doc) => samplesCsv(doc),
      runs: (d) => runsSamplesCsv(d.runs),
    },
  },
};

/** The file formats in the order a command writes them (the data first, then the reports). */
export const FILE_FORMATS: readonly FileFormat[] = ['json', 'html', 'markdown', 'csv'];

/** The unit of an experiment's medians as it declares it; µs for an experiment this forklab does not know. */
export const unitOf = (experiment: string): TimeUnit => timeUnit(experiment);

/** The experiment a document is of: the unit of its medians is that experiment's. */
function experimentOf<K extends DocumentKind>(kind: K, doc: Documents[K]): string | null {
  if (kind === 'run') return (doc as Documents['run']).experiment;
  if (kind === 'report') return (doc as Documents['report']).doc.experiment;
  if (kind === 'compare') return (doc as Documents['compare']).a.experiment;
  return null; // a reproduction's runs are of several experiments: each run's unit is its own
}

/** Does `format` render documents of this kind? */
export const renders = (format: FormatName, kind: DocumentKind): boolean => FORMATS[format].renders[kind] !== undefined;

/** The formats that render a kind of document. */
export const formatsOf = (kind: DocumentKind): FormatName[] => FORMAT_NAMES.filter((f) => renders(f, kind));

/**
 * The document rendered in `format`, handed its unit and the published data (those given, else data/published.json
 * when the renderer asks for them). Throws when the format does not render that kind (the commands offer only the
 * flags that do: formatsOf).
 */
export async function render<K extends DocumentKind>(format: FormatName, kind: K, doc: Documents[K], published?: Published): Promise<string> {
  const fn = FORMATS[format].renders[kind] as Render<K> | undefined;
  if (!fn) throw new Error(`the ${format} format does not render a ${kind} document`);
  const experiment = experimentOf(kind, doc);
  let data = published;
  const ctx: RenderContext = {
    unit: experiment === null ? MICROSECONDS_PER_CALL : unitOf(experiment),
    get published() {
      data ??= loadPublished();
      return data;
    },
  };
  return fn(doc, ctx);
}
