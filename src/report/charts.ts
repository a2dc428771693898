// The vega-lite specifications of every chart of a report (rendered to SVG by svg.ts): each experiment's own, with
// the articles' values drawn where they sit (published-marks.ts), and the charts beside the published figures. No
// rendering here; the grouping is groups.ts's, the building blocks chart-spec.ts's.
import type { RunDocument } from '../document/run.js';
import type { BarsChartSpec, PointsChartSpec, PublishedMarksSpec, ReadingsChartSpec } from '../experiments/contract/chart.js';
import { findExperiment } from '../experiments/index.js';
import { linearFit } from '../stats/regression.js';
import { autoScale, chart, LOG_Y, pointsWithCi, present, timeValues, type ChartDef, type TimeValue } from './chart-spec.js';
import { distributionChart } from './distribution.js';
import { groupsOf, orderOf, readingRecords, timeUnit, type Group } from './groups.js';
import { publishedMarks, type PublishedMark } from './published-marks.js';
import type { PublishedComparison } from './judged.js';

export type { ChartDef };

/** What a legend calls the run's own points beside the article's. */
const OWN = 'this machine (median)';

/** The colour of the article's values in a chart whose own marks are not coloured by series. */
const DARK = { value: '#1f2328' };

/** The marks' shape: the run's medians as dots, the article's values as hollow diamonds (a legend only when there are both). */
function sourceShape(marks: readonly PublishedMark[]): Record<string, unknown> {
  if (marks.length === 0) return {};
  const domain = [OWN, ...new Set(marks.map((m) => m.source))];
  return {
    shape: {
      field: 'source',
      type: 'nominal',
      title: null,
      legend: { labelLimit: 240 },
      scale: { domain, range: ['circle', 'diamond', 'square', 'triangle'].slice(0, domain.length) },
    },
  };
}

/** The layer of the article's values: hollow diamonds at the same x, in the colour of the series they belong to. */
function publishedLayer(x: Record<string, unknown>, y: Record<string, unknown>, encoding: Record<string, unknown>) {
  return {
    transform: [{ filter: "datum.kind === 'published'" }],
    mark: { type: 'point', filled: false, size: 120, strokeWidth: 1.8 },
    encoding: { x, y: { ...y, field: 'published' }, ...encoding },
  };
}

/** The article's values in a chart whose own marks are bars: one diamond per source in the legend. */
const ARTICLE_SHAPE = { field: 'source', type: 'nominal', title: null, legend: { labelLimit: 240 }, scale: { range: ['diamond'] } };

/** Only the run's own rows (not the article's values). */
const ownRows = { transform: [{ filter: "datum.kind !== 'published'" }] };

const withCaption = (caption: string, marks: readonly PublishedMark[], spec?: PublishedMarksSpec) => (marks.length && spec ? `${caption} ${spec.caption}` : caption);

/** The article's values at configurations the chart shows (the same series, and the same panel). */
function marksFor(spec: PublishedMarksSpec | undefined, published: readonly PublishedMark[], values: readonly TimeValue[], same: readonly string[]): PublishedMark[] {
  if (!spec) return [];
  return published.filter((m) => values.some((v) => same.every((k) => v[k] === m[k])));
}

/** Least-squares lines through the medians of each colour (and panel) over a numeric x: their two ends, for a dashed layer. */
function fittedLines(values: readonly TimeValue[], x: string, keys: readonly string[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const idOf = (v: TimeValue) => JSON.stringify(keys.map((k) => v[k] ?? null));
  for (const id of new Set(values.map(idOf))) {
    const pts = values.filter((v) => idOf(v) === id);
    const xs = pts.map((p) => Number(p[x]));
    if (new Set(xs).size < 2) continue;
    const fit = linearFit(
      xs,
      pts.map((p) => p.median),
    );
    const at = Object.fromEntries(keys.map((k) => [k, pts[0]![k]]));
    for (const end of [Math.min(...xs), Math.max(...xs)]) out.push({ ...at, [x]: end, fit: fit.intercept + fit.slope * end });
  }
  return out;
}

function pointsChart(experiment: string, s: PointsChartSpec, groups: Group[], published: readonly PublishedMark[]): ChartDef | null {
  const unit = timeUnit(experiment);
  const tagged = s.fit === true || s.published !== undefined;
  const drawn = s.series ? groups.filter((g) => s.series!.includes(g.series)) : groups;
  const values = timeValues(experiment, drawn, unit.perNs)
    .filter((v) => !s.positiveX || Number(v[s.x.field]) > 0)
    .map((v): TimeValue => (tagged ? { ...v, source: OWN, kind: 'median' } : v));
  const marks = marksFor(s.published, published, values, ['series', ...(s.facet ? [s.facet.field] : [])]);
  const xs = () => [...new Set([...values, ...marks].map((v) => Number(v[s.x.field])))].sort((a, b) => a - b);
  const x =
    s.x.scale === 'categories'
      ? { field: s.x.field, type: 'ordinal', sort: present(values, s.x.field, orderOf(experiment, s.x.field)), title: s.x.title, axis: { labelAngle: s.x.labelAngle ?? 0 } }
      : s.x.scale === 'linear'
        ? // Linear axes with ticks at the values measured: linear growth looks linear.
          { field: s.x.field, type: 'quantitative', scale: { type: 'linear', nice: false }, axis: { values: xs(), labelOverlap: false, format: ',d' }, title: s.x.title }
        : { field: s.x.field, type: 'quantitative', scale: { type: 'log' }, title: s.x.title };
  const y =
    s.y.scale === 'linear'
      ? { field: 'median', type: 'quantitative', scale: { type: 'linear', zero: true }, axis: { format: ',~r' }, title: s.y.title }
      : { field: 'median', type: 'quantitative', scale: LOG_Y, title: s.y.title };
  const colourField = s.colour.field;
  const color = s.colour.ordered
    ? { field: colourField, type: 'nominal', scale: { domain: present(values, colourField, orderOf(experiment, colourField)) }, title: s.colour.title }
    : { field: colourField, type: 'nominal', title: s.colour.title };
  const shape = sourceShape(marks);
  const own = tagged ? { transform: [{ filter: "datum.kind === 'median'" }] } : {};
  const dashed = s.dash && new Set(values.map((v) => v[s.dash!.field])).size > 1 ? s.dash : undefined;
  const dash = dashed ? { strokeDash: { field: dashed.field, type: 'ordinal', title: dashed.title } } : {};
  const fits = s.fit ? fittedLines(values, s.x.field, [colourField, ...(s.facet ? [s.facet.field] : [])]).map((f) => ({ ...f, kind: 'fit' })) : [];
  const layer = [
    ...pointsWithCi(x, y, color, s.line === true, s.offset ? { xOffset: { field: colourField, type: 'nominal' } } : {}, { ...shape, ...dash }).map((l) => ({ ...own, ...l })),
    ...(fits.length
      ? [
          {
            transform: [{ filter: "datum.kind === 'fit'" }],
            mark: { type: 'line', strokeDash: [5, 4], strokeWidth: 1.2, opacity: 0.8 },
            encoding: { x, y: { ...y, field: 'fit' }, color },
          },
        ]
      : []),
    ...(marks.length ? [publishedLayer(x, y, { color: s.published?.colour === 'series' ? color : DARK, ...shape })] : []),
  ];
  const body = s.facet
    ? {
        facet: { column: { field: s.facet.field, type: 'nominal', title: s.facet.title, sort: present(values, s.facet.field, orderOf(experiment, s.facet.field)) } },
        spec: { width: s.width, height: s.height, layer },
        // Each panel its own y scale: THP on and off differ several-fold, and on one scale the smaller one's growth looks flat.
        resolve: { scale: { y: 'independent' } },
      }
    : { width: s.width, height: s.height, layer };
  const caption = s.facet ? `${withCaption(s.caption, marks, s.published)} Each panel has its own y scale.` : withCaption(s.caption, marks, s.published);
  return chart(s.id, s.title, caption, [...values, ...fits, ...marks], body);
}

function barsChart(experiment: string, s: BarsChartSpec, groups: Group[], published: readonly PublishedMark[]): ChartDef | null {
  const own = timeValues(experiment, groups, timeUnit(experiment).perNs);
  const x = { field: 'series', type: 'nominal', sort: present(own, 'series', orderOf(experiment, 'series')), title: null, axis: { labelAngle: 0 } };
  const statistics = s.statistics;
  if (statistics) {
    // The medians' bars are drawn first, the other statistics' beside them (the legend and x offsets keep `statistics`' order).
    const drawn = [...statistics].sort((a, b) => Number(b === 'median') - Number(a === 'median'));
    const values = own.flatMap((v) => drawn.map((statistic) => ({ series: v.series, statistic, value: statistic === 'min' ? v.min : v.median })));
    const marks = s.published ? published.filter((m) => values.some((v) => v.series === m.series && v.statistic === m.statistic)) : [];
    const xOffset = { field: 'statistic', type: 'nominal', sort: [...statistics] };
    const y = { field: 'value', type: 'quantitative', title: s.y.title };
    return chart(s.id, s.title, withCaption(s.caption, marks, s.published), [...values, ...marks], {
      width: s.width,
      height: s.height,
      layer: [
        { ...ownRows, mark: { type: 'bar' }, encoding: { x, xOffset, y, color: { field: 'statistic', type: 'nominal', sort: [...statistics], title: 'statistic' } } },
        ...(marks.length ? [publishedLayer(x, y, { xOffset, color: DARK, shape: ARTICLE_SHAPE })] : []),
      ],
    });
  }
  const marks = marksFor(s.published, published, own, ['series']);
  const y = { field: 'median', type: 'quantitative', title: s.y.title };
  return chart(s.id, s.title, withCaption(s.caption, marks, s.published), [...own, ...marks], {
    width: s.width,
    height: s.height,
    layer: [
      { ...ownRows, mark: { type: 'bar' }, encoding: { x, y, color: { field: 'series', type: 'nominal', legend: null } } },
      { ...ownRows, mark: { type: 'rule', strokeWidth: 1.5 }, encoding: { x, y: { field: 'ciLow', type: 'quantitative' }, y2: { field: 'ciHigh' } } },
      ...(marks.length ? [publishedLayer(x, y, { color: DARK, shape: ARTICLE_SHAPE })] : []),
    ],
  });
}

function readingsChart(doc: RunDocument, s: ReadingsChartSpec): ChartDef | null {
  const values = readingRecords(doc, s).flatMap((r) =>
    s.readings.filter((m) => r.readings[m] !== null).map((m) => ({ [s.facet]: r.facet, [s.x]: r.x, metric: m, value: r.readings[m] })),
  );
  return chart(s.id, s.title, s.caption, values, {
    facet: { column: { field: s.facet, type: 'nominal', title: s.facet, sort: present(values, s.facet) } },
    spec: {
      width: s.width,
      height: s.height,
      mark: { type: 'bar' },
      encoding: {
        x: { field: s.x, type: 'nominal', sort: present(values, s.x), title: s.x, axis: { labelAngle: -30 } },
        xOffset: { field: 'metric', type: 'nominal', sort: [...s.readings] },
        y: { field: 'value', type: 'quantitative', title: s.y.title },
        color: { field: 'metric', type: 'nominal', sort: [...s.readings], title: s.legendTitle },
      },
    },
  });
}

function genericChart(doc: RunDocument, groups: Group[]): ChartDef | null {
  const values = timeValues(doc.experiment, groups, 1000);
  const x = { field: 'series', type: 'nominal', sort: present(values, 'series'), title: 'series', axis: { labelAngle: -30 } };
  const y = { field: 'median', type: 'quantitative', scale: autoScale(values), title: 'median µs' };
  const layer = pointsWithCi(x, y, { field: 'series', type: 'nominal', legend: null }, false, { tooltip: { field: 'label' } });
  return chart(
    `${doc.experiment}-medians`,
    `${doc.experiment}: medians per series`,
    'The median µs of every configuration with its 95 % interval, by series (one point per configuration).',
    values,
    { width: { step: 60 }, height: 220, layer },
  );
}

/** The experiment's own chart, drawn by the kind it declares; an unknown experiment gets a chart of medians per series. */
function ownChart(doc: RunDocument, groups: Group[], comparisons: readonly PublishedComparison[]): ChartDef | null {
  const spec = findExperiment(doc.experiment)?.chart;
  if (spec === null) return null;
  if (spec === undefined) return genericChart(doc, groups);
  const marks = spec.kind === 'readings' || !spec.published ? [] : publishedMarks(groups, comparisons, spec.published.unit);
  switch (spec.kind) {
    case 'points':
      return pointsChart(doc.experiment, spec, groups, marks);
    case 'bars':
      return barsChart(doc.experiment, spec, groups, marks);
    case 'readings':
      return readingsChart(doc, spec);
  }
}

/** The run's main chart: its experiment's own (spawn: latency against parent RSS), with the article's values where they sit. */
export function mainChart(doc: RunDocument, comparisons: readonly PublishedComparison[] = []): ChartDef | null {
  return ownChart(doc, groupsOf(doc), comparisons);
}

/** The charts of one run: the experiment's own, then the distribution of its samples. */
export function chartsFor(doc: RunDocument, comparisons: readonly PublishedComparison[] = []): ChartDef[] {
  return [mainChart(doc, comparisons), distributionChart(doc)].filter((c): c is ChartDef => c !== null);
}

/**
 * Both runs' medians per configuration in one chart, the run as colour: one row per configuration (its label
 * written out, never turned or cut), both runs' medians side by side in it with their 95 % intervals.
 */
export function compareChart(a: RunDocument, b: RunDocument, labels: [string, string]): ChartDef | null {
  const unit = timeUnit(a.experiment);
  const values = [
    ...timeValues(a.experiment, groupsOf(a), unit.perNs).map((v) => ({ ...v, run: labels[0] })),
    ...timeValues(b.experiment, groupsOf(b), unit.perNs).map((v) => ({ ...v, run: labels[1] })),
  ];
  // Rows in the table's order (configurations sorted, numbers by value).
  const rows = present(values, 'label').sort((x, y) => x.localeCompare(y, 'en', { numeric: true }));
  const y = { field: 'label', type: 'nominal', sort: rows, title: null, axis: { labelLimit: 360 } };
  const scale = autoScale(values);
  const x = { field: 'median', type: 'quantitative', scale, axis: { format: ',~r' }, title: `median ${unit.label}${scale === LOG_Y ? ' (log scale)' : ''}` };
  const color = { field: 'run', type: 'nominal', scale: { domain: labels }, title: 'run' };
  const yOffset = { field: 'run', type: 'nominal', scale: { domain: labels } };
  return chart('compare-runs', 'Both runs, configuration by configuration', `Median ${unit.label} of every configuration in both runs, with 95 % intervals.`, values, {
    width: 560,
    height: { step: 12 }, // the step of each run's point within a row (yOffset): a row of two runs is about 28 px
    layer: [
      { mark: { type: 'rule', strokeWidth: 1.5 }, encoding: { y, yOffset, x: { ...x, field: 'ciLow' }, x2: { field: 'ciHigh' }, color } },
      { mark: { type: 'point', filled: true, size: 55 }, encoding: { y, yOffset, x, color } },
    ],
  });
}

/**
 * This machine beside the published figures in one chart: per figure (in the article's words, one row each, so no
 * label is turned or cut), this machine's value ÷ the article's on a log scale, with a rule at 1× (the article's
 * value) and the statistic as colour. One chart for every unit: a slope, a ratio and a time are compared the same
 * way, and no chart is left with one or two points.
 */
export function publishedChart(comparisons: readonly PublishedComparison[]): ChartDef | null {
  const values = comparisons
    .map((c) => ({ label: c.figureLabel ?? c.label, statistic: c.statistic ?? 'value', ratio: c.measuredValue / c.publishedValue }))
    .filter((v) => Number.isFinite(v.ratio) && v.ratio > 0);
  if (values.length === 0) return null;
  const one = { ratio: 1, kind: 'one' };
  const x = {
    field: 'ratio',
    type: 'quantitative',
    scale: { type: 'log', nice: false, padding: 16 },
    axis: { format: ',~r', labelOverlap: true },
    title: 'this machine ÷ the article (1× is the article’s value; log scale)',
  };
  const y = { field: 'label', type: 'nominal', sort: null, title: null, axis: { labelLimit: 520, labelFontSize: 11 } };
  return chart(
    'published-ratios',
    'This machine beside the article, figure by figure',
    'Each published figure this run measured: this machine’s value ÷ the article’s, on a log scale; the line is 1× (the same value). The figures in numbers, in their units, are under the chart.',
    [...values, one],
    {
      width: 440,
      height: { step: 12 }, // the step of each run's point within a row (yOffset): a row of two runs is about 28 px
      layer: [
        { transform: [{ filter: "datum.kind === 'one'" }], mark: { type: 'rule', color: '#1f2328', strokeDash: [4, 3] }, encoding: { x } },
        {
          transform: [{ filter: "datum.kind !== 'one'" }],
          mark: { type: 'point', filled: true, size: 70 },
          encoding: { x, y, color: { field: 'statistic', type: 'nominal', title: 'statistic', sort: present(values, 'statistic') } },
        },
      ],
    },
  );
}
