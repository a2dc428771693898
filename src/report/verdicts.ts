// The terminal summary of `forklab reproduce`: per article, its headline figures beside this machine's and
// every claim's verdict, then the totals.
import type { Article, Source } from '../reference/published.js';
import { renderTable } from '../text/table.js';
import type { Verdict } from '../claims/evaluate.js';
import type { ExperimentStatus } from '../claims/reproduction.js';
import type { FigureComparison } from '../claims/figures.js';
import { fmtFactor, fmtInUnit, fmtNum } from '../claims/format.js';
import { FEW_RUNS, driftAmount } from '../claims/drift-words.js';
import { inWords } from './in-words.js';

type Paint = (s: string) => string;
export interface Paints {
  bold: Paint;
  dim: Paint;
  green: Paint;
  red: Paint;
  yellow: Paint;
}
export const PLAIN: Paints = { bold: (s) => s, dim: (s) => s, green: (s) => s, red: (s) => s, yellow: (s) => s };

export function verdictLabel(v: Verdict): string {
  if (v.verdict === 'holds') return 'holds';
  if (v.verdict === 'differs') return v.factor !== null && Number.isFinite(v.factor) && v.factor > 0 ? `differs ×${fmtNum(v.factor)}` : 'differs';
  if (v.verdict === 'inconclusive') return 'inconclusive';
  return 'not measurable';
}

function paintVerdict(v: Verdict, c: Paints): string {
  const l = verdictLabel(v);
  return v.verdict === 'holds' ? c.green(l) : v.verdict === 'differs' ? c.red(l) : v.verdict === 'inconclusive' ? c.yellow(l) : c.dim(l);
}

/** The figure in words; its id where a stored reproduction predates the words (and with --verbose). */
export function figureLabel(f: FigureComparison, verbose = false): string {
  const id = f.figureId.slice(f.article.length + 1);
  return f.label ? (verbose ? `${f.label} [${id}]` : f.label) : id;
}

function statLabel(f: FigureComparison): string {
  return f.statistic === 'unspecified' ? 'median*' : f.statistic;
}

/** One article's section. Plain by default (the article's sentence, the verdict, the figures in words); verbose adds each claim's id, kind and formula. */
export function renderArticle(
  a: Article,
  statuses: readonly ExperimentStatus[],
  figures: readonly FigureComparison[],
  verdicts: readonly Verdict[],
  c: Paints,
  verbose = false,
  saidOnce: SaidOnce = NOTHING_SAID,
): string {
  const out: string[] = [];
  out.push(c.bold(`Article ${a.id} — ${a.titleEn}`));
  out.push(c.dim(`${a.title} (${a.language}); ${statuses.map((s) => `${s.experiment}: ${s.state}`).join('; ')}`));
  const head = figures.filter((f) => f.headline);
  if (head.length) {
    const rows = head.map((f) => [
      figureLabel(f, verbose),
      statLabel(f),
      fmtInUnit(f.published, f.unit),
      f.measured === null ? '—' : fmtInUnit(f.measured, f.unit),
      f.ratio === null ? '—' : fmtFactor(f.ratio),
    ]);
    out.push(renderTable(['figure', 'statistic', 'published', 'this machine', 'ratio'], rows, { leftAlign: [0, 1] }));
    if (head.some((f) => f.statistic === 'unspecified')) out.push(c.dim('* the article does not name its statistic; this machine: median'));
    const missing = new Map<string, string[]>();
    for (const f of head) if (f.measured === null) missing.set(f.detail, [...(missing.get(f.detail) ?? []), figureLabel(f)]);
    for (const [why, labels] of missing) out.push(c.dim(`  ${labels.length > 3 ? `${labels.length} figures` : labels.join(', ')}: ${why}`));
  }
  out.push(...verdictLines(verdicts, c, verbose, saidOnce));
  return out.join('\n');
}

/** A source beyond the articles: its title, kind, year and address, then every verdict on its claims, each naming it. */
export function renderSource(
  src: Source,
  statuses: readonly ExperimentStatus[],
  verdicts: readonly Verdict[],
  c: Paints,
  verbose = false,
  saidOnce: SaidOnce = NOTHING_SAID,
): string {
  const out: string[] = [c.bold(`Source ${src.id} — ${src.title}`)];
  const where = src.address ?? `address ${src.addressNote ?? 'not confirmed'}`;
  out.push(c.dim(`${src.kind.replace(/-/g, ' ')}, ${src.year}; ${where}; ${statuses.map((s) => `${s.experiment}: ${s.state}`).join('; ')}`));
  out.push(
    ...verdictLines(
      verdicts.map((v) => ({ ...v, statement: `${v.statement} (${src.id})` })),
      c,
      verbose,
      saidOnce,
    ),
  );
  return out.join('\n');
}

/** Every verdict with its reasoning, the notes its experiment's verdicts share said once above them. */
function verdictLines(verdicts: readonly Verdict[], c: Paints, verbose: boolean, saidOnce: SaidOnce): string[] {
  const out: string[] = [];
  const shared = sharedNotes(verdicts);
  for (const [experiment, notes] of shared) for (const n of notes) if (!saidOnce.texts.has(n)) out.push(c.dim(`  ${experiment}, every verdict: ${inWords(n)}`));
  out.push('');
  const width = Math.max(...verdicts.map((v) => verdictLabel(v).length), 5);
  for (const v of verdicts) {
    const pad = ' '.repeat(Math.max(0, width - verdictLabel(v).length));
    const tag = verbose ? `${c.dim(`[${v.kind}] ${v.claimId}`)} ` : '';
    out.push(`  ${paintVerdict(v, c)}${pad}  ${tag}${v.statement}`);
    const indent = `  ${' '.repeat(width)}  `;
    out.push(c.dim(`${indent}${verbose ? v.detail : inWords(v.plain ?? v.detail)}`));
    if (v.drift) out.push(c.dim(`${indent}${driftLine(v, !saidOnce.driftSource)}`));
    if (v.settle && !saidOnce.texts.has(v.settle)) out.push(c.dim(`${indent}to settle it: ${inWords(v.settle)}`));
    const common = shared.get(v.experiment) ?? [];
    for (const n of v.notes) if (!common.includes(n) && !saidOnce.texts.has(n)) out.push(c.dim(`${indent}note: ${inWords(n)}`));
  }
  return out;
}

/** What the summary says once, above the articles, instead of under every verdict that carries it. */
export interface SaidOnce {
  /** Notes and "to settle it" advice that several verdicts share, word for word. */
  texts: ReadonlySet<string>;
  /** Where every verdict's drift was learnt from is the same, and said in the intervals line. */
  driftSource: boolean;
}
const NOTHING_SAID: SaidOnce = { texts: new Set(), driftSource: false };

/** What several verdicts would repeat word for word, and how it is said once: one line each, with how many verdicts share it. */
export function saidOnce(verdicts: readonly Verdict[]): { said: SaidOnce; lines: string[] } {
  const count = (texts: readonly (string | undefined)[]) => {
    const m = new Map<string, number>();
    for (const t of texts) if (t) m.set(t, (m.get(t) ?? 0) + 1);
    return [...m].filter(([, n]) => n > 1);
  };
  // A note every verdict of one experiment carries is said once in its article (sharedNotes); the others here.
  const ownNote = (n: string) => {
    const carriers = verdicts.filter((v) => v.notes.includes(n));
    const e = carriers[0]!.experiment;
    return carriers.every((v) => v.experiment === e) && verdicts.filter((v) => v.experiment === e).length === carriers.length;
  };
  const notes = count(verdicts.flatMap((v) => [...new Set(v.notes)])).filter(([n]) => !ownNote(n));
  const experiments = (note: string) => [...new Set(verdicts.filter((v) => v.notes.includes(note)).map((v) => v.experiment))].join(', ');
  const settle = count(verdicts.map((v) => v.settle ?? undefined));
  const sources = new Set(verdicts.filter((v) => v.drift).map((v) => driftSource(v)));
  const lines = [
    ...notes.map(([n, k]) => `Note on ${k} verdicts (${experiments(n)}): ${inWords(n)}`),
    ...settle.map(([s, k]) => `To settle the ${k} verdicts it applies to: ${inWords(s)}`),
  ];
  return { said: { texts: new Set([...notes, ...settle].map(([t]) => t)), driftSource: sources.size === 1 }, lines };
}

function driftSource(v: Verdict): string {
  const d = v.drift!;
  return d.runs === 0 ? 'the stated prior: no earlier run here yet' : `from ${d.runs} earlier run${d.runs === 1 ? '' : 's'}${d.runs < FEW_RUNS ? ' and the stated prior' : ''}`;
}

/** The drift a verdict's intervals include, in one line: "between runs here: ±4.2 % (from 6 earlier runs); this run alone: holds". */
export function driftLine(v: Verdict, withSource = true): string {
  const d = v.drift!;
  const from = withSource ? ` (${driftSource(v)})` : '';
  const alone = v.withinRun && v.withinRun.verdict !== v.verdict ? `; this run alone: ${v.withinRun.verdict}` : '';
  const own = v.alone && v.alone.verdict !== v.verdict ? `; this run's own, with the drift: ${v.alone.verdict}` : '';
  const pooled = d.pooled ? `; the machine's value from ${d.pooled} runs here (this one and ${d.pooled - 1} before it)${own}` : '';
  return `between runs here: ${driftAmount(d)}${from}${pooled}${alone}`;
}

/** Notes every verdict of an experiment carries (its run's warnings, an incomplete run): printed once, not per claim. */
function sharedNotes(verdicts: readonly Verdict[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const e of new Set(verdicts.map((v) => v.experiment))) {
    const mine = verdicts.filter((v) => v.experiment === e);
    if (mine.length < 2) continue;
    const common = mine[0]!.notes.filter((n) => mine.every((v) => v.notes.includes(n)));
    if (common.length) out.set(e, common);
  }
  return out;
}

/** What the intervals include: this machine's drift between runs, or (--within-run) one run's own noise alone. */
export function intervalsLine(verdicts: readonly Verdict[], withinRun: boolean): string {
  if (withinRun) return "Intervals: this run's own (--within-run), without the drift between runs on this machine; the verdicts say what one run shows, not what the machine does.";
  const drifted = verdicts.filter((v) => v.drift);
  if (drifted.length === 0) return '';
  const runs = Math.max(...drifted.map((v) => v.drift!.runs));
  const pooled = Math.max(0, ...drifted.map((v) => v.drift!.pooled ?? 0));
  const pool =
    pooled > 1
      ? `; each verdict is on this machine's value, this run pooled with up to ${pooled - 1} earlier run${pooled === 2 ? '' : 's'} of the same settings (--no-pool: this run alone)`
      : '';
  return `Intervals include the drift between runs on this machine (${runs === 0 ? 'no earlier run here yet: the stated prior' : `learnt from up to ${runs} earlier run${runs === 1 ? '' : 's'} here`}; docs/reproduce.md)${pool}; --within-run shows one run's own.`;
}

export function renderTotals(verdicts: readonly Verdict[], c: Paints, withinRun = false): string {
  const count = (kind: string | null, verdict: string) => verdicts.filter((v) => (kind === null || v.kind === kind) && v.verdict === verdict).length;
  const tally = (kind: string | null) =>
    `${count(kind, 'holds')} hold, ${count(kind, 'differs')} differ, ${count(kind, 'inconclusive')} inconclusive, ${count(kind, 'not-measurable')} not measurable`;
  const line = (kind: 'shape' | 'magnitude') => `${kind}: ${verdicts.filter((v) => v.kind === kind).length} claims — ${tally(kind)}`;
  return [
    c.bold(`Claims: ${tally(null)}`),
    `  ${line('shape')}`,
    `  ${line('magnitude')}`,
    c.dim(
      'A claim holds when the whole 95 % interval of the measured quantity lies inside its band, differs when the whole interval lies ' +
        'outside, and is inconclusive when the interval straddles an edge (docs/published-figures.md). Shape claims should hold on any ' +
        'Linux machine; magnitude claims depend on the machine.',
    ),
    ...(intervalsLine(verdicts, withinRun) ? [c.dim(intervalsLine(verdicts, withinRun))] : []),
  ].join('\n');
}
