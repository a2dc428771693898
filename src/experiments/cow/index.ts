// Experiment "cow" (article 001): what copy-on-write costs a forked child per page. The child reads every
// page, writes every page once (the CoW fault and 4 KiB copy), writes every page again; the baseline is the
// same write pass in the parent, on pages that need no fault. With THP on it reports what the kernel did
// with the huge pages on the first write: split them, or copied them whole.
import { getArticle, getFigure, publishedValue } from '../../reference/published.js';
import { experimentEntry } from '../command-lines.js';
import { fixedPlan } from '../../runner/plans.js';
import { sweep } from '../shared/sweep.js';
import { probeFailedWarnings } from '../shared/failures.js';
import { readMemoryBudget } from '../../env/memory.js';
import { finishRun, infoNumber, measurementsFrom } from '../shared/measure.js';
import { parseChoiceList, parseInteger, str } from '../../text/parse.js';
import { countOptions, parseCount, type CountSpecs } from '../shared/counts.js';
import { fmtNs, fmtRatio } from '../../text/format.js';
import { heading, text, note, blank, table, conclusion, type Block } from '../contract/view.js';
import { ratioSentence } from '../shared/conclude.js';
import { THP_CONDITION, thpNeverWarnings } from '../shared/thp.js';
import { NANOSECONDS_PER_PAGE, type Experiment, type Measurement, type Warning } from '../contract/types.js';
import { budgetSources, HEADROOM_BYTES, requireMemory } from '../shared/preflight.js';
import { COW_FIELDS, COW_IDENTITY, type CowFields } from './configuration.js';
import { COW_SERIES, splitForkSeries, summarizeCow, type CowCell, type CowPass, type CowSeries, type CowSummary } from './summary.js';
import { COW_THP_MODES, type CowThp } from './configuration.js';

/** The experiment's vocabulary and the probe-line split, exported beside it (the tests read them here). */
export { COW_SERIES, COW_THP_MODES, splitForkSeries };
export { thpVerdict } from './summary.js';

export interface CowParams {
  sizeMb: number;
  thp: CowThp[];
  /** Fresh probe processes per THP mode, interleaved. */
  repeats: number;
  /** Timed forks per probe process. */
  iterations: number;
  warmup: number;
}

/** Article 001's figures (80 MB, 4 KiB pages, THP off), from data/published.json. */
function article001(): Record<CowSeries, number | null> & { ratio: number; totalMs: number } {
  return {
    read: publishedValue('001.read'),
    'first-write': publishedValue('001.first-write'),
    'second-write': publishedValue('001.second-write'),
    'no-fork-write': publishedValue('001.no-fork-write'),
    'no-fork-read': null, // the article gives none ("as cheap as an ordinary read")
    ratio: publishedValue('001.first-over-second-write'),
    totalMs: publishedValue('001.total-cow-80mb'),
  };
}

const MIB = 1024 * 1024;
const DEFAULTS = { sizeMb: '80', thp: 'off,on', repeats: '5', iterations: '3', warmup: '1' };
const COUNTS: CountSpecs = {
  iterations: { description: 'timed forks per probe process (each one child, three passes)', defaultValue: DEFAULTS.iterations, unit: 'forks', max: 10_000 },
  warmup: { description: 'untimed forks per probe process before the timed ones', defaultValue: DEFAULTS.warmup, unit: 'forks', max: 1000 },
  repeats: { description: 'fresh probe processes per THP mode, interleaved', defaultValue: DEFAULTS.repeats, unit: 'processes', max: 1000 },
};

function describeVerdict(c: CowCell): string {
  const mb = (kb: number | null) => (kb === null ? '?' : `${(kb / 1024).toFixed(kb % 1024 ? 1 : 0)} MB`);
  const fpp = c.passes['first-write']?.faultsPerPage;
  const faults = fpp === undefined ? '?' : `${fpp.toFixed(fpp < 0.1 ? 4 : 2)} faults/page`;
  const head = `AnonHugePages ${mb(c.hugeBeforeKb)} before the first write → ${mb(c.hugeAfterKb)} after, ${faults}`;
  switch (c.thpVerdict) {
    case 'no-huge-pages':
      return `${head}: 4 KiB pages only, one CoW fault per page.`;
    case 'split':
      return `${head}: the kernel SPLIT each 2 MiB page on the first write and copied it 4 KiB at a time.`;
    case 'copied-huge':
      return `${head}: the kernel copied each 2 MiB page WHOLE (≈ 1 fault per 512 pages).`;
    case 'mixed':
      return `${head}: neither a clean split nor whole-page copies (some huge pages of each kind?).`;
    default:
      return `${head}.`;
  }
}

function warningsFor(run: { measurements: Measurement[]; summary: CowSummary }): Warning[] {
  const w: Warning[] = [];
  for (const c of run.summary.cells) {
    if (c.thp === 'on' && c.hugeBeforeKb !== null && c.hugeBeforeKb < c.sizeMb * 1024 * 0.9)
      w.push({
        code: 'thp-not-applied',
        message: `--thp on: the child saw only ${c.hugeBeforeKb} kB of ${c.sizeMb * 1024} kB as huge pages, so the THP rows mostly measure 4 KiB pages. Check /sys/kernel/mm/transparent_hugepage/enabled and defrag, or free memory (compaction).`,
      });
    const fw = c.passes['first-write'];
    if (fw && c.thpVerdict === 'no-huge-pages' && (fw.faultsPerPage < 0.9 || fw.faultsPerPage > 1.1))
      w.push({
        code: 'unexpected-faults',
        message: `THP ${c.thp}: the first write took ${fw.faultsPerPage.toFixed(2)} minor faults per page, not one; something else faulted (or a fault was avoided). Rerun on a quiet machine; check that nothing else maps the region.`,
      });
  }
  w.push(...probeFailedWarnings(run.measurements, (m) => `${m.series}, THP ${m.identity.thp}, repeat ${m.repeat}`));
  return w;
}

/** The region of the selfcheck pair, in MB. */
const SELFCHECK_MB = 64;

const LABELS: Record<CowSeries, string> = {
  read: 'read (shared, no CoW)',
  'first-write': 'first write (CoW fault + copy)',
  'second-write': 'second write (own copy)',
  'no-fork-write': 'baseline: write, no fork',
  'no-fork-read': 'baseline: read, no fork',
};

export const cowExperiment: Experiment<CowParams, CowSummary, CowFields> = {
  ...experimentEntry('cow'),
  figureKeys: ['thp'],
  cases: ['cow'],
  identity: COW_IDENTITY,
  series: COW_SERIES,
  valueOrder: { thp: ['on', 'off', 'default'] },
  unit: NANOSECONDS_PER_PAGE,
  figures: 'timings',
  chart: {
    kind: 'points',
    id: 'cow-passes',
    title: 'Copy-on-write: ns per page by pass',
    caption: 'Median ns per page for each pass (log scale) with its 95 % interval, one panel per THP mode.',
    x: { field: 'series', title: 'pass', scale: 'categories', labelAngle: -30 },
    y: { title: 'median ns per page', scale: 'log' },
    colour: { field: 'sizeMb', title: 'region MB', ordered: false },
    offset: true,
    facet: { field: 'thp', title: 'THP' },
    width: 220,
    height: 220,
    published: { unit: 'ns/page', colour: 'dark', caption: 'Hollow diamonds: article 001’s published per-page means.' },
  },
  paired: true,
  thpCondition: THP_CONDITION('sizeMb'),
  fieldLabels: { sizeMb: { suffix: 'MB', unit: 'MB' }, thp: { prefix: 'THP' } },
  presets: {
    // 001: 80 MB of 4 KiB pages (one CoW fault per page); THP on only in the full run, for the render.
    full: { sizeMb: '80', thp: 'off,on', repeats: '5', iterations: '3', warmup: '1' },
    quick: { sizeMb: '80', thp: 'off', repeats: '4', iterations: '2', warmup: '1' },
    note: 'article 001: 80 MB touched before fork, 4 KiB pages',
  },
  selfcheck: () => [
    {
      label: `cow first write per page ${SELFCHECK_MB} MB THP off`,
      regionMb: SELFCHECK_MB,
      // The parent's region and the child's copy of it.
      memoryMb: 2 * SELFCHECK_MB,
      // Each call copies the whole region: a twentieth of --iterations (at least 5) is plenty.
      calls: (it) => Math.max(5, Math.ceil(it / 20)),
      probe: () => ({
        caseName: 'cow',
        args: { 'size-mb': SELFCHECK_MB, thp: 'off' },
        series: 'fork',
        // The child's first write pass over the region, per page (the probe's read pass comes before it); each
        // pass is a block of its own, as each loop iteration is.
        blocks: (s, info) => {
          const pass = s.columns.firstWriteNs;
          const pages = infoNumber(info, 'pages');
          return pass?.length && pages ? pass.map((ns) => ns / pages) : null;
        },
      }),
      loop: (n, it) => ['cow', String(SELFCHECK_MB), 'off', String(it), n.targetStatic],
    },
  ],
  options: [
    { flags: '--size-mb <n>', description: 'region the parent maps and touches before fork, in MB (MiB); 80 MB = 20480 pages', defaultValue: DEFAULTS.sizeMb, unit: 'MB' },
    { flags: '--thp <list>', description: 'transparent huge pages for the region: off (MADV_NOHUGEPAGE), on (MADV_HUGEPAGE), default (no madvise)', defaultValue: DEFAULTS.thp },
    ...countOptions(COUNTS, ['repeats', 'iterations', 'warmup']),
  ],

  parse(raw) {
    return {
      sizeMb: parseInteger('--size-mb', str(raw, 'sizeMb', DEFAULTS.sizeMb), 1, 1 << 22),
      thp: parseChoiceList('--thp', str(raw, 'thp', DEFAULTS.thp), COW_THP_MODES),
      repeats: parseCount('repeats', raw, COUNTS),
      iterations: parseCount('iterations', raw, COUNTS),
      warmup: parseCount('warmup', raw, COUNTS),
    };
  },

  preflight(p) {
    // The parent's region, the child's copy of all of it after its first write, THP alignment, headroom.
    const needBytes = 2 * p.sizeMb * MIB + 2 * MIB + HEADROOM_BYTES;
    const budget = readMemoryBudget();
    requireMemory(
      '--size-mb',
      needBytes,
      (mb) =>
        `${p.sizeMb} MB does not fit: the parent holds it and the child copies all of it, so it needs about ${Math.ceil(needBytes / MIB)} MB, ` +
        `and this machine can give about ${mb} MB (${budgetSources(budget)}). Use a smaller --size-mb.`,
      budget.fitBytes,
    );
    return thpNeverWarnings(p.thp);
  },

  summarize: (ms, _p, seed) => summarizeCow(ms, seed),

  async run(p, ctx) {
    const pagesGuess = p.sizeMb * 256;
    const { measurements, complete } = await sweep({
      configs: p.thp,
      repeats: p.repeats,
      ctx,
      label: (thp) => `size=${p.sizeMb} MB thp=${thp}`,
      job: (thp) => ({
        caseName: 'cow',
        args: { 'size-mb': p.sizeMb, thp },
        plan: fixedPlan(p.warmup, p.iterations),
        timeoutMs: 60_000 + (p.warmup + p.iterations) * (5_000 + pagesGuess * 0.05),
      }),
      measure: (thp, result, repeat) => {
        const pages = infoNumber(result.info, 'pages') ?? pagesGuess;
        const split = {
          ...result,
          series: splitForkSeries(
            result.series.find((s) => s.series === 'fork'),
            pages,
          ),
        };
        const hugePagesKb = infoNumber(result.info, 'hugePagesKb');
        return measurementsFrom(COW_FIELDS, split, { sizeMb: p.sizeMb, thp, pages }, { hugePagesKb }, repeat, COW_SERIES, ctx.seed);
      },
    });
    const summary = summarizeCow(measurements, ctx.seed);
    return finishRun<CowSummary, CowParams>({ experiment: 'cow', params: { ...p }, measurements, summary, complete }, warningsFor);
  },

  view(run) {
    const ARTICLE_001 = article001();
    const out: Block[] = [];
    const ci = (x: CowPass) => `${fmtNs(x.medianNs)} [${fmtNs(x.ciLowNs)}–${fmtNs(x.ciHighNs)}]`;
    // the conclusion: per THP mode (at most three), what the child's first write costs against its second, and in all
    const said = run.summary.cells.slice(0, 3).map((cell) => {
      const w1 = cell.passes['first-write'];
      const where = `THP ${cell.thp}, ${cell.sizeMb} MB`;
      if (!w1) return `${where}: the first write was not measured.`;
      const total = cell.cowTotalMs !== null ? `; copying all ${cell.pages} pages ≈ ${cell.cowTotalMs.toFixed(1)} ms (article 001: ≈${ARTICLE_001.totalMs} ms)` : '';
      return `${where}: ${ratioSentence("the child's first write", 'its second', cell.firstToSecond, `article 001: ≈${ARTICLE_001.ratio}×`)}, ${fmtNs(w1.medianNs)} ns per page${total}.`;
    });
    out.push(conclusion(said.length ? said : ['No configuration was measured: nothing to conclude.']), blank);
    for (const cell of run.summary.cells) {
      const n = cell.passes['first-write']?.n ?? 0;
      out.push(heading(`THP ${cell.thp}: child after fork, ${cell.sizeMb} MB = ${cell.pages} pages of 4 KiB — ns per page, median [95 % CI] of ${n} forks`));
      const rows = COW_SERIES.map((s) => {
        const x = cell.passes[s];
        return [
          LABELS[s],
          x ? ci(x) : '—',
          x && Number.isFinite(x.minflt) ? fmtMinflt(x.minflt) : '—',
          x && Number.isFinite(x.faultsPerPage) ? x.faultsPerPage.toFixed(x.faultsPerPage < 0.1 ? 4 : 2) : '—',
          ARTICLE_001[s] === null ? '—' : String(ARTICLE_001[s]),
        ];
      });
      out.push(table(['pass', 'ns/page [95 % CI]', 'minor faults', 'faults/page', 'article 001'], rows));
      const parts: string[] = [];
      if (cell.firstToSecond) parts.push(`first ÷ second write = ${fmtRatio(cell.firstToSecond.ratio)} [${fmtRatio(cell.firstToSecond.low)}–${fmtRatio(cell.firstToSecond.high)}]`);
      if (cell.firstToNoFork !== null) parts.push(`first write ÷ no-fork write = ${fmtRatio(cell.firstToNoFork)}`);
      if (cell.cowTotalMs !== null)
        parts.push(`CoW total for ${cell.sizeMb} MB ≈ ${cell.cowTotalMs.toFixed(1)} ms [${cell.cowTotalLowMs!.toFixed(1)}–${cell.cowTotalHighMs!.toFixed(1)}]`);
      if (parts.length) out.push(text(`→ ${parts.join('  |  ')}`));
      if (cell.thpVerdict) out.push(text(`kernel: ${describeVerdict(cell)}`));
      const rd = cell.passes.read;
      const nf = cell.passes['no-fork-write'];
      // The child's read against the parent's read of its own pages (runs before no-fork-read: its write).
      const base = cell.passes['no-fork-read'] ?? nf;
      if (rd && base && rd.medianNs > 4 * base.medianNs && rd.faultsPerPage < 0.1)
        out.push(
          note(
            `note: the child's read costs ${fmtRatio(rd.medianNs / base.medianNs)} the ${base === nf ? 'write baseline' : 'read baseline'} without a single fault: fork hands the child its page-table entries marked "not accessed", and the first touch sets the Accessed bit in each — cheap on bare metal, slow in a (nested) VM.`,
          ),
        );
      const w2 = cell.passes['second-write'];
      if (cell.thpVerdict === 'split' && w2 && nf && w2.medianNs > 1.5 * nf.medianNs)
        out.push(
          note(
            `note: after the split the child maps the region with 4 KiB entries while the parent's baseline still runs on 2 MiB ones, so the child's second write misses the TLB more (${fmtNs(w2.medianNs)} vs ${fmtNs(nf.medianNs)} ns/page).`,
          ),
        );
      out.push(blank);
    }
    out.push(
      note(
        `article 001 (${getArticle('001')?.environment ?? 'environment not recorded'}, ${getFigure('001.pages')?.series.sizeMb ?? '?'} MB): read ${ARTICLE_001.read}, first write ${ARTICLE_001['first-write']}, second ${ARTICLE_001['second-write']}, no-fork ${ARTICLE_001['no-fork-write']} ns/page; ` +
          `first ÷ second ≈ ${ARTICLE_001.ratio}×; CoW total ≈ ${ARTICLE_001.totalMs} ms. Figures change with the machine; the shape is what holds.`,
      ),
    );
    return out;
  },
};

function fmtMinflt(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}
