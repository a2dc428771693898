// The articles' values drawn on a run's own charts: each published figure that sits at one of the run's
// configurations (same series and identity fields) and is a plain statistic of it (mean, median, min, or one the
// article does not name), in the chart's unit. Ratios, slopes, differences and totals stay in the table beside.
import type { PublishedComparison } from './judged.js';
import type { Group } from './groups.js';
import type { Scalar } from '../experiments/contract/types.js';

/** One published value at one configuration of the run. */
export interface PublishedMark extends Record<string, unknown> {
  kind: 'published';
  series: string;
  /** The value in the chart's unit. */
  published: number;
  statistic: string;
  /** "article 000 (mean)": what a legend or caption calls it. */
  source: string;
}

const PLAIN_STATISTICS: ReadonlySet<string> = new Set(['mean', 'median', 'min', 'unspecified']);

/** Whether the figure's configuration is this group's: every key it names has the group's value (series is the group's series). */
function at(g: Group, where: Readonly<Record<string, Scalar>>): boolean {
  return Object.entries(where).every(([k, v]) => (k === 'series' ? g.series === v : g.fields[k] === v));
}

/** The published values at the run's configurations, in `unit` (the figure's own unit: "us", "ns/page"), one per configuration and statistic. */
export function publishedMarks(groups: readonly Group[], comparisons: readonly PublishedComparison[], unit: string): PublishedMark[] {
  const out = new Map<string, PublishedMark>();
  for (const c of comparisons) {
    if (c.unit !== unit || !c.series || !PLAIN_STATISTICS.has(c.statistic ?? '') || !(c.publishedValue > 0)) continue;
    const g = groups.find((x) => at(x, c.series!));
    if (!g) continue;
    const statistic = c.statistic === 'unspecified' ? 'statistic not named' : c.statistic!;
    const key = JSON.stringify([g.series, g.fields, c.statistic]);
    if (!out.has(key))
      out.set(key, {
        ...g.fields,
        kind: 'published',
        series: g.series,
        published: c.publishedValue,
        statistic: c.statistic!,
        source: c.article ? `article ${c.article} (${statistic})` : `published (${statistic})`,
      });
  }
  return [...out.values()];
}
