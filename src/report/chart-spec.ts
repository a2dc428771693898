// The vega-lite building blocks every chart of a report shares: the chart definition, its look, the order of a
// field's values, points with their 95 % intervals, and the medians of a run's configurations in a unit.
import type { TopLevelSpec } from 'vega-lite';
import { configLabel, type Group } from './groups.js';

export interface ChartDef {
  id: string;
  title: string;
  caption: string;
  spec: TopLevelSpec;
}

const CONFIG = {
  font: 'sans-serif',
  axis: { labelFontSize: 11, titleFontSize: 12, gridColor: '#e6e6e6' },
  legend: { labelFontSize: 11, titleFontSize: 12 },
  header: { labelFontSize: 12, titleFontSize: 12 },
  view: { stroke: '#cccccc' },
};

/** A chart of `values` (none: no chart), its vega-lite specification titled like the figure. */
export function chart(id: string, title: string, caption: string, values: Record<string, unknown>[], body: Record<string, unknown>): ChartDef | null {
  if (values.length === 0) return null;
  return { id, title, caption, spec: { title, background: 'white', config: CONFIG, data: { values }, ...body } as TopLevelSpec };
}

export const present = (values: Record<string, unknown>[], field: string, order: readonly string[] = []) => {
  const seen = [...new Set(values.map((v) => String(v[field])))];
  return [...order.filter((x) => seen.includes(x)), ...seen.filter((x) => !order.includes(x))];
};

/** Point, line and 95 % interval rule layers over x; y, ciLow and ciHigh fields in the plotted unit (`pointOnly`: encodings a rule cannot take, such as shape). */
export function pointsWithCi(
  x: Record<string, unknown>,
  y: Record<string, unknown>,
  color: Record<string, unknown>,
  line: boolean,
  extra: Record<string, unknown> = {},
  pointOnly: Record<string, unknown> = {},
) {
  return [
    { mark: line ? { type: 'line', point: { filled: true, size: 50 } } : { type: 'point', filled: true, size: 60 }, encoding: { x, y, color, ...extra, ...pointOnly } },
    { mark: { type: 'rule', strokeWidth: 1.5 }, encoding: { x, y: { ...y, field: 'ciLow' }, y2: { field: 'ciHigh' }, color, ...extra } },
  ];
}

export interface TimeValue extends Record<string, unknown> {
  series: string;
  label: string;
  median: number;
  min: number;
  ciLow: number;
  ciHigh: number;
}

/** The medians of a run's groups (of `experiment`, whose fields label them) in a unit of perNs nanoseconds. */
export const timeValues = (experiment: string, groups: Group[], perNs: number): TimeValue[] =>
  groups
    .filter((g) => g.stats !== null && g.stats.medianNs > 0)
    .map((g) => ({
      series: g.series,
      ...g.fields,
      label: configLabel(experiment, g.series, g.fields),
      median: g.stats!.medianNs / perNs,
      min: g.stats!.minNs / perNs,
      ciLow: Math.max(g.stats!.ciLowNs, g.stats!.medianNs / 1e3) / perNs,
      ciHigh: g.stats!.ciHighNs / perNs,
    }));

/** A log y scale fitted to the data (not widened to whole decades), with some room above and below. */
export const LOG_Y = { type: 'log', nice: false, padding: 12 };

/** Log when the medians span more than 20×, else linear without zero. */
export const autoScale = (vs: { median: number }[]) => {
  const m = vs.map((v) => v.median);
  return m.length && Math.max(...m) / Math.min(...m) > 20 ? LOG_Y : { type: 'linear', zero: false, padding: 12 };
};
