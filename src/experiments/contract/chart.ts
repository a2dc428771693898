// What an experiment's own chart shows, as data: the kind of chart, which field goes where, the scales, whether
// a least-squares line is drawn and how the articles' values are marked. src/report/charts.ts draws each kind;
// an experiment never renders, and the report knows no experiment by name.

/** Words for the article's values in a caption, added when some are drawn. */
export interface PublishedMarksSpec {
  /** The published unit the marks are taken in ("us", "ns/page": data/published.json's). */
  unit: string;
  /** The sentence the caption gains when the article's values are drawn. */
  caption: string;
  /** Where the marks take their colour: the series' own ('series'), or one dark colour ('dark'). */
  colour: 'series' | 'dark';
}

/** The axis a chart's configurations are laid along. */
export interface ChartAxis {
  /** The field, 'series' for the series itself. */
  field: string;
  title: string | null;
  /** 'linear' and 'log' take numbers (linear: ticks at the values measured), 'categories' the values in the experiment's order. */
  scale: 'linear' | 'log' | 'categories';
  /** Tilt of the category labels, in degrees. */
  labelAngle?: number;
}

/** Medians with their 95 % intervals as points, one colour per value of a field, along x. */
export interface PointsChartSpec {
  kind: 'points';
  id: string;
  title: string;
  caption: string;
  x: ChartAxis;
  y: { title: string; scale: 'linear' | 'log' };
  /** The field that gives a point its colour ('series' for the series), its legend title (null: none). */
  colour: { field: string; title: string | null; ordered: boolean };
  /** Points of different colours side by side at one x (categories only). */
  offset?: boolean;
  /** One panel per value of this field, and the panel's title. */
  facet?: { field: string; title: string };
  /** A dashed least-squares line per colour and panel over a numeric x. */
  fit?: boolean;
  /** Points of one colour joined by a line. */
  line?: boolean;
  /** With `line`: one line per value of this field within a colour, told apart by its dash (where the run has several values). */
  dash?: { field: string; title: string };
  /** Only configurations whose x is above 0 (a log axis has no 0). */
  positiveX?: boolean;
  /** Only these series (absent: every series): an experiment whose series are not all along x (contend's stall beside its creators). */
  series?: readonly string[];
  width: number;
  height: number;
  published?: PublishedMarksSpec;
}

/** One bar per series (its median with its interval, or several statistics side by side). */
export interface BarsChartSpec {
  kind: 'bars';
  id: string;
  title: string;
  caption: string;
  y: { title: string };
  /** Statistics shown side by side in each series' place, coloured by statistic; absent: the median with its 95 % interval. */
  statistics?: readonly ('min' | 'median')[];
  width: number;
  height: number;
  published?: PublishedMarksSpec;
}

/**
 * Readings that are not times (kB of page tables, say) as bars: the measurements of one series, one panel per
 * value of `facet`, along `x`, the readings side by side (their median over repeats).
 */
export interface ReadingsChartSpec {
  kind: 'readings';
  id: string;
  title: string;
  caption: string;
  /** The series whose measurements carry the readings. */
  series: string;
  facet: string;
  x: string;
  /** The observed fields drawn, in order. */
  readings: readonly string[];
  /** Where a document without such measurements keeps them: an array of the summary (by its key). */
  summaryKey?: string;
  y: { title: string };
  legendTitle: string;
  width: number;
  height: number;
}

export type ChartSpec = PointsChartSpec | BarsChartSpec | ReadingsChartSpec;

/** How a field's value is said in a configuration's label: "64 MB", "THP on", "1000 VMAs". */
export interface FieldLabel {
  /** Words before the value ("THP"). */
  prefix?: string;
  /** Words after the value ("MB", "VMAs"). */
  suffix?: string;
  /**
   * What one of its values counts, singular, where a figure is given per one of it ("MB" for rssMb, "VMA" for vmas:
   * a verdict's "29.1 µs per MB"); absent: the figure is said per its key.
   */
  unit?: string;
}

/**
 * How "THP on" and "THP off" are checked against what the kernel did: the field that holds the choice, the one
 * that holds the region's size in MB, and the reading of its huge pages in kB; `readings` are the metrics that
 * read the region's own pages (what the condition is verified with, so not gated by it).
 */
export interface ThpCondition {
  field: string;
  regionMbField: string;
  hugePagesKbField: string;
  readings: readonly string[];
}
