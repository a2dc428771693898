// Every published figure beside this machine's value: the same statistic of the matching configurations
// (the figure's equivalentSeries where it has one), in the figure's unit. Ratios, per-entry costs and
// totals are taken from the claim that checks them; counts and set-up parameters are not measurements.
import type { RunDocument } from '../document/run.js';
import type { CheckStatistic, Claim, PublishedFigure, Series } from '../reference/published.js';
import { linearFit } from '../stats/regression.js';
import { evaluateClaim, type EvaluateOptions, type Verdict } from './evaluate.js';
import { NotMeasurable, dataFor, describeSeries, nsTo, pooledValues, select, statistic, type ExperimentData } from './select.js';

export interface FigureComparison {
  figureId: string;
  /** The figure in words (absent from reproductions stored before figures had one: show the id then). */
  label?: string;
  article: string;
  experiment: string;
  headline: boolean;
  statistic: string;
  unit: string;
  published: number;
  /** This machine's value in the figure's unit; null where forklab does not measure it (see detail). */
  measured: number | null;
  /** measured ÷ published. */
  ratio: number | null;
  detail: string;
}

export interface CompareOptions extends EvaluateOptions {
  /** Claims whose checks compute the derived figures (ratios, per-entry costs, totals). */
  claims?: readonly Claim[];
  /** Verdicts already computed for those claims (saves evaluating them again). */
  verdicts?: readonly Verdict[];
}

/** From the values of a metric (or ns samples) to the figure's unit. */
function unitScale(f: PublishedFigure): number {
  if (f.metric === undefined) return nsTo(f.unit);
  if (/Bytes$/.test(f.metric) && (f.unit === 'KB' || f.unit === 'kB')) return 1 / 1024;
  return 1;
}

function statisticOf(data: ExperimentData, sel: Series, metric: string | undefined, stat: CheckStatistic): number {
  return statistic(pooledValues(data, select(data, sel), metric, sel), stat);
}

function direct(data: ExperimentData, f: PublishedFigure, claimStat: CheckStatistic): { value: number; how: string } | null {
  const sel = f.equivalentSeries ?? f.series;
  const scale = unitScale(f);
  const what = `${data.experiment} ${describeSeries(sel)}${f.metric ? ` [${f.metric}]` : ''}`;
  switch (f.statistic) {
    case 'mean':
    case 'median':
    case 'min':
      return { value: statisticOf(data, sel, f.metric, f.statistic) * scale, how: `${f.statistic} of ${what}` };
    case 'unspecified':
      return { value: statisticOf(data, sel, f.metric, 'median') * scale, how: `median of ${what} (the article does not name its statistic)` };
    case 'reading':
    case 'size':
      return { value: statisticOf(data, sel, f.metric, 'median') * scale, how: `${what}` };
    case 'difference': {
      if (!f.minus) return null;
      const v = statisticOf(data, sel, f.metric, 'median') - statisticOf(data, f.minus, f.metric, 'median');
      return { value: v * scale, how: `median of ${what} − median of ${describeSeries(f.minus)}` };
    }
    case 'slope': {
      if (!f.over) return null;
      const configs = select(data, sel);
      const xs = [...new Set(configs.map((c) => c[f.over!]).filter((x): x is number => typeof x === 'number'))].sort((a, b) => a - b);
      if (xs.length < 2) throw new NotMeasurable(`${what} was measured at fewer than two values of ${f.over}`);
      const ys = xs.map((x) => statisticOf(data, { ...sel, [f.over!]: x }, f.metric, claimStat));
      return { value: linearFit(xs, ys).slope * scale, how: `least-squares slope over ${f.over} of the ${claimStat} of ${what}` };
    }
    default:
      return null;
  }
}

/** The claim that computes a derived figure: it names the figure and checks the same published number. */
function claimFor(f: PublishedFigure, claims: readonly Claim[]): { claim: Claim; percent: boolean } | null {
  for (const c of claims) {
    if (!c.figureIds.includes(f.id) || !('published' in c.check) || typeof c.check.published !== 'number') continue;
    if (c.check.published === f.value) return { claim: c, percent: false };
    if (f.unit === '%' && Math.abs(c.check.published * 100 - f.value) < 1e-9) return { claim: c, percent: true };
  }
  return null;
}

export function compareFigures(docs: readonly RunDocument[], figures: readonly PublishedFigure[], opts: CompareOptions = {}): FigureComparison[] {
  const claims = opts.claims ?? [];
  const verdictOf = (c: Claim) => opts.verdicts?.find((v) => v.claimId === c.id) ?? evaluateClaim(docs, c, opts);
  return figures.map((f) => {
    const base = {
      figureId: f.id,
      label: f.label,
      article: f.article,
      experiment: f.experiment,
      headline: f.headline === true,
      statistic: f.statistic,
      unit: f.unit,
      published: f.value,
    };
    const none = (detail: string): FigureComparison => ({ ...base, measured: null, ratio: null, detail });
    if (f.cited) return none('quoted by the article from another article, not measured there');
    const derived = claimFor(f, claims);
    const claimStat = claims.find((c) => c.figureIds.includes(f.id) && c.check.statistic)?.check.statistic ?? 'median';
    try {
      const data = dataFor(docs, f.experiment, opts.absent?.[f.experiment]);
      const d = direct(data, f, claimStat);
      if (d) return { ...base, measured: d.value, ratio: f.value !== 0 ? d.value / f.value : null, detail: d.how };
    } catch (e) {
      if (!(e instanceof NotMeasurable || e instanceof RangeError)) throw e;
      if (!derived) return none(e.message);
    }
    if (derived) {
      const v = verdictOf(derived.claim);
      if (v.measured === null) return none(v.detail);
      const m = derived.percent ? v.measured * 100 : v.measured;
      return { ...base, measured: m, ratio: f.value !== 0 ? m / f.value : null, detail: `as computed by claim ${v.claimId}: ${v.detail}` };
    }
    if (f.statistic === 'count' || f.statistic === 'parameter') return none(`a ${f.statistic === 'count' ? 'count' : 'set-up parameter'} of the article, not a measurement`);
    return none(`no forklab measurement corresponds to this ${f.statistic}`);
  });
}
