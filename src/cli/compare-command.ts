// `forklab compare A B [--fail-above PCT]`: two runs of one experiment figure by figure; only real differences
// are marked (store/compare.ts). With --fail-above the exit status is 1 when a marked difference is larger than
// PCT, for CI; the figures that caused it are named on stderr.
import { Option, type Command } from 'commander';
import { compareRuns, type Comparison, type FigureComparison } from '../store/compare.js';
import { UsageError } from '../errors.js';
import { renderTable } from '../text/table.js';
import { fmtIn } from '../text/format.js';
import { unitOf } from '../report/formats.js';
import { resultsOf } from '../report/results.js';
import { renderView } from '../report/terminal.js';
import { findExperiment } from '../experiments/index.js';
import type { RunDocument } from '../document/run.js';
import { dbOption, fileOption, noColorOption } from './options.js';
import { outputOf, planOutputs, writeOutputs } from './door.js';
import type { ClaimVerdict } from '../report/judged.js';
import { CliError } from './errors.js';
import { colors, plain, guarded, localTime, out, RUN_HELP, show, withLazyStore, type Colors, type Opts } from './history-common.js';
import { namedRuns, oneRun } from './named.js';

function fmtP(p: number): string {
  return p < 0.001 ? '<0.001' : p.toFixed(3);
}

function ratioCell(f: FigureComparison): string {
  if (f.ratio === null) return '—';
  const ci = f.ratioLow === null || f.ratioHigh === null ? '' : ` [${f.ratioLow.toFixed(3)}–${f.ratioHigh.toFixed(3)}]`;
  return `${f.ratio.toFixed(3)}${ci}`;
}

function verdictCell(f: FigureComparison, c: Colors): string {
  if (f.verdict === 'slower') return c.red('▲ slower');
  if (f.verdict === 'faster') return c.green('▼ faster');
  return c.dim('same');
}

function renderComparison(cmp: Comparison, ids: [string, string], c: Colors): string {
  const side = (name: string, id: string, r: Comparison['a']) =>
    `${name}: ${id} (${(r.runId ?? '').slice(0, 8)}) ${r.experiment}, started ${localTime(r.startedAt)}, host ${r.hostname}`;
  const lines = [side('A', ids[0], cmp.a), side('B', ids[1], cmp.b)];
  if (cmp.machineDifferences.length) lines.push(c.yellow(`machines differ: ${cmp.machineDifferences.map((d) => `${d.name} ${show(d.a)} → ${show(d.b)}`).join('; ')}`));
  else lines.push('same machine (hostname, kernel, CPU model and count, THP, pinning)');
  if (cmp.paramDifferences.length) lines.push(`parameters differ: ${cmp.paramDifferences.map((d) => `${d.name} ${show(d.a)} → ${show(d.b)}`).join('; ')}`);
  lines.push('');
  const unit = unitOf(cmp.a.experiment);
  const rows = cmp.figures.map((f) => [f.label, fmtIn(f.a.medianNs, unit), fmtIn(f.b.medianNs, unit), ratioCell(f), fmtP(f.pValue), verdictCell(f, c)]);
  lines.push(renderTable(['configuration', `A ${unit.label}`, `B ${unit.label}`, 'B/A [95 % CI]', 'p', 'B vs A'], rows));
  const r = cmp.rule;
  lines.push(
    c.dim(
      `marked only when p < ${r.maxP}, the ${r.confidence * 100} % interval of B/A excludes 1 and B/A is at least ` +
        `${r.minEffect * 100} % away from 1 (medians of pooled repeats; Mann–Whitney U on the raw samples)`,
    ),
  );
  if (cmp.onlyInA.length) lines.push(`only in A: ${cmp.onlyInA.join(', ')}`);
  if (cmp.onlyInB.length) lines.push(`only in B: ${cmp.onlyInB.join(', ')}`);
  for (const n of cmp.noSamples) lines.push(c.yellow(`no successful samples ${n.side === 'both' ? 'in either run' : `in ${n.side}`}: ${n.label}`));
  return lines.join('\n');
}

/**
 * For an experiment whose figures are outcomes (deadlock: did the child get the lock), both runs in its own terms,
 * after the comparison of their timings; nothing for the others.
 */
function outcomesOf(docs: readonly [RunDocument, RunDocument], ids: [string, string], c: Colors): string {
  if (findExperiment(docs[0].experiment)?.figures !== 'outcomes') return '';
  const color = c !== plain;
  return ['', `A (${ids[0]}):`, renderView(resultsOf(docs[0]), { color }), '', `B (${ids[1]}):`, renderView(resultsOf(docs[1]), { color })].join('\n');
}

/** --fail-above PCT: a percentage above 0; throws UsageError naming the flag. */
function parseFailAbove(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const pct = Number(raw.trim().replace(/%$/, ''));
  if (raw.trim() === '' || !Number.isFinite(pct) || pct < 0 || pct > 10_000)
    throw new UsageError('--fail-above', `expected a percentage such as 5 (B differs from A by more than 5 %), got ${JSON.stringify(raw)}`);
  return pct;
}

/** The figures that fail --fail-above PCT: marked as a real difference (significant) and more than PCT % away from 1. */
function failingFigures(cmp: Comparison, pct: number): FigureComparison[] {
  return cmp.figures.filter((f) => f.verdict !== 'same' && f.ratio !== null && Math.abs(f.ratio - 1) * 100 > pct);
}

function failureLines(failing: readonly FigureComparison[], pct: number): string {
  const what = failing.map((f) => `  ${f.label}: B is ${(Math.abs(f.ratio! - 1) * 100).toFixed(1)} % ${f.verdict} (B/A ${f.ratio!.toFixed(3)}, p ${fmtP(f.pValue)})`);
  return `forklab compare: ${failing.length} figure${failing.length === 1 ? '' : 's'} differ by more than ${pct} % (--fail-above):\n${what.join('\n')}\n`;
}

interface CompareOpts extends Opts {
  failAbove?: string;
  html?: string | boolean;
  markdown?: string | boolean;
}

/** Each run judged alone, for a report to say which verdicts changed between them; none when either has none or the published figures cannot be read. */
async function verdictsOf(docs: readonly [RunDocument, RunDocument]): Promise<[readonly ClaimVerdict[], readonly ClaimVerdict[]] | undefined> {
  try {
    const { runConclusions } = await import('../report/judged.js');
    const { loadPublished } = await import('../reference/published.js');
    const a = runConclusions(docs[0], loadPublished()).verdicts;
    const b = runConclusions(docs[1], loadPublished()).verdicts;
    return a.length && b.length ? [a, b] : undefined;
  } catch (e) {
    process.stderr.write(`forklab compare: the published figures could not be loaded (${(e as Error).message}); the report leaves the verdicts out\n`);
    return undefined;
  }
}

export function registerCompareCommand(program: Command): void {
  program
    .command('compare')
    .description('compare two runs of one experiment figure by figure: medians, B/A with its interval, p-value; only real differences marked')
    .argument('<runA>', `${RUN_HELP}; or a run document file`)
    .argument('<runB>', `${RUN_HELP}; or a run document file`)
    .addOption(dbOption())
    .addOption(new Option('--fail-above <percent>', 'exit with status 1 when a marked (significant) difference is larger than this many percent, naming the figures (for CI)'))
    .addOption(fileOption('--json', 'write the comparison as JSON'))
    .addOption(fileOption('--html', 'write both runs as one self-contained HTML report, what differs first (as forklab report --compare A B --html does)'))
    .addOption(fileOption('--markdown', 'write the same report as Markdown'))
    .addOption(noColorOption())
    .exitOverride()
    .action((refA: string, refB: string, o: CompareOpts) =>
      guarded('compare', async () => {
        const plan = planOutputs({ json: o.json, html: o.html, markdown: o.markdown });
        let pct: number | undefined;
        try {
          pct = parseFailAbove(o.failAbove);
        } catch (e) {
          throw new CliError((e as Error).message);
        }
        const [a, b] = withLazyStore(o, (open) => [namedRuns(refA, open), namedRuns(refB, open)] as const);
        const docs = [oneRun(a, 'compare'), oneRun(b, 'compare')] as const;
        const ids: [string, string] = [a.shown, b.shown];
        if ((a.id !== null && a.id === b.id) || (docs[0].runId !== null && docs[0].runId === docs[1].runId))
          throw new CliError(`${refA} and ${refB} are the same run (${(docs[0].runId ?? a.shown).slice(0, 8)}): give two different runs (forklab history lists them)`);
        if (docs[0].experiment !== docs[1].experiment)
          throw new CliError(
            `${ids[0]} is an experiment ${docs[0].experiment} run and ${ids[1]} an experiment ${docs[1].experiment} run: ` +
              `only runs of one experiment can be compared (forklab history --experiment ${docs[0].experiment} lists its runs)`,
          );
        const cmp = compareRuns(docs[0], docs[1]);
        // The table on stdout unless a document is written there (then on stderr); the documents where asked.
        // (with --json, as before the reports, the JSON stands for the table).
        if (!plan.ownsStdout && !outputOf(plan, 'json')) out(renderComparison(cmp, ids, colors(o)) + outcomesOf(docs, ids, colors(o)));
        const reports = plan.outputs.some((x) => x.format !== 'json');
        await writeOutputs('compare', plan, 'compare', { a: docs[0], b: docs[1], labels: ids, verdicts: reports ? await verdictsOf(docs) : undefined });
        if (pct === undefined) return;
        const failing = failingFigures(cmp, pct);
        if (failing.length) {
          process.stderr.write(failureLines(failing, pct));
          process.exitCode = 1;
        } else process.stderr.write(`forklab compare: no marked difference is larger than ${pct} % (--fail-above)\n`);
      }),
    );
}
