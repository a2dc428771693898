// The types of data/published.json (articles, figures, claims and their checks), and the vocabularies they use.
// docs/published-figures.md says what every field means.

/**
 * The name of a forklab experiment (its command). The experiments are listed in one place, the registry in
 * src/experiments/index.ts; the published data is checked against it by the tests (test/experiment-registry.test.ts).
 */
export type ExperimentName = string;

export const LANGUAGES = ['vi', 'zh'] as const;
export type Language = (typeof LANGUAGES)[number];

export const UNITS = ['us', 'ns', 'ms', 'us/MB', 'ns/entry', 'ns/page', 'kB', 'KB', 'bytes', 'ratio', '%', 'entries', 'pages', 'mappings'] as const;
export type Unit = (typeof UNITS)[number];

/** How a published number was obtained. "unspecified": the article does not say (mean or median). */
export const STATISTICS = ['mean', 'median', 'min', 'unspecified', 'ratio', 'slope', 'per-entry', 'total', 'difference', 'bound', 'count', 'parameter', 'reading', 'size'] as const;
export type Statistic = (typeof STATISTICS)[number];

/** The statistic a check computes over forklab's samples. */
export const CHECK_STATISTICS = ['mean', 'median', 'min'] as const;
export type CheckStatistic = (typeof CHECK_STATISTICS)[number];

export type SeriesValue = string | number | boolean;
/** Keys that identify a series in forklab terms (e.g. method, rssMb, thp); a run matches when every key is equal. */
export type Series = Readonly<Record<string, SeriesValue>>;

export interface ArticleSeries {
  /** The series' name in the article's language and in English; null when the article gives none. */
  name: string | null;
  nameEn: string | null;
  /** Which part, and of how many; null where the article does not number it. */
  part: number | null;
  of: number | null;
  /** The article's own words about the series (verbatim), and in English. */
  stated: string;
  statedEn: string;
}

export interface MeasuredWith {
  container: string | null;
  compiler: string | null;
  cpu: string | null;
  kernel: string | null;
}

export interface Article {
  id: string;
  file: string;
  title: string;
  titleEn: string;
  /** Where the title comes from: the article's own title or its first heading. */
  titleSource: 'title' | 'first-heading';
  language: Language;
  /** The measuring environment, only as the article states it. */
  environment: string;
  /** How the article measured (iterations, statistic, set-up), as stated. */
  protocol?: string;
  /** The forklab command(s) that reproduce the article. */
  experiment: ExperimentName | ExperimentName[];
  /** The series the article belongs to, as far as it says (null: it names none). */
  series: ArticleSeries | null;
  /** What the article measured with, only where it says (null: not stated). */
  measuredWith: MeasuredWith;
  author?: string;
  published?: string;
}

export interface PublishedFigure {
  id: string;
  /** What the figure is, in words a reader of a report understands ("fork()+exec() from a 1024 MB parent, huge pages off"). */
  label: string;
  article: string;
  /** Which table or block of the article the number comes from. */
  table: string;
  experiment: ExperimentName;
  series: Series;
  /** A series forklab can run that reproduces the article's condition on any machine (e.g. THP "always" as
   * the system default, reproduced by thp "on" = MADV_HUGEPAGE, which also works where the default is madvise). */
  equivalentSeries?: Series;
  /** For differences: the series whose value was subtracted (e.g. fork+exit from fork+exec). */
  minus?: Series;
  /** For slopes and per-entry costs: the key the value is taken over. */
  over?: string;
  /** What was read when it is not the time of the operation (pageTablesKb, slabKb, vmPteKb, fileBytes). */
  metric?: string;
  statistic: Statistic;
  value: number;
  unit: Unit;
  /** The source text containing the number, verbatim (modulo whitespace). */
  quote: string;
  note?: string;
  /** The article quotes this number from another article rather than measuring it. */
  cited?: boolean;
  /** The article does not label the phase; it was assigned from the order of the readings. */
  phaseInferred?: boolean;
  /** Shown in `forklab reproduce`'s per-article summary (the others are in its JSON). */
  headline?: boolean;
}

/**
 * A quantity computed from measured data: statistic(series.metric) − statistic(minus.minusMetric), times
 * multiplyBy. minus defaults to series and minusMetric to metric (so one of them must be given to subtract);
 * atMax keeps only the configurations where that key is largest (e.g. the most VMAs a machine allows).
 */
export interface Operand {
  series: Series;
  minus?: Series;
  metric?: string;
  minusMetric?: string;
  atMax?: string;
  multiplyBy?: number;
}

/**
 * approx: published/factor ≤ measured ≤ published·factor; with tolerance.of = "excess" the factor applies to the
 * ratio minus one, 1 + (published − 1)/factor ≤ measured ≤ 1 + (published − 1)·factor, so that a claim that A costs
 * more than B never reaches down to 1. at-least / at-most: against limit. between: min ≤ measured ≤ max.
 */
export type Expectation =
  | { expect: 'approx'; published: number; tolerance: { factor: number; of?: 'value' | 'excess' }; limit?: never; min?: never; max?: never }
  | { expect: 'at-least' | 'at-most'; published?: number; limit: number; tolerance?: never; min?: never; max?: never }
  | { expect: 'between'; published?: number; min: number; max: number; limit?: never; tolerance?: never };

interface CheckBase {
  /** How the published value or limit was derived from the article's numbers. */
  basis?: string;
  statistic?: CheckStatistic;
}

/** The series does not change over `over`: largest ÷ smallest of its statistics over x ≤ 1 + maxRelativeChange, and optionally
 * |slope| ≤ fraction × slope of another series. Evaluated separately for each value of the eachOf keys. */
export interface FlatCheck extends CheckBase {
  type: 'flat';
  series: Series;
  over: string;
  metric?: string;
  eachOf?: string[];
  maxRelativeChange: number;
  maxSlopeFraction?: { of: Series; fraction: number };
}

/** Straight growth over `over`: rising (statistic at the largest x ≥ minGrowthFactor × at the smallest, or a positive slope),
 * and the least-squares parabola's bow (largest gap from its chord ÷ its rise) within ±maxBow. */
export interface GrowsLinearlyCheck extends CheckBase {
  type: 'grows-linearly';
  series: Series;
  over: string;
  metric?: string;
  minus?: Series;
  eachOf?: string[];
  maxBow: number;
  minGrowthFactor?: number;
}

/** Ratio of the fitted slopes of two series over `over`. */
export type SlopeRatioCheck = CheckBase &
  Expectation & {
    type: 'slope-ratio';
    over: string;
    numerator: Series;
    denominator: Series;
  };

/** The unit of a cost per entry: per page-table entry, per VMA, per descriptor. */
export const PER_ENTRY_UNITS = ['ns/entry', 'ns/VMA', 'ns/descriptor'] as const;
export type PerEntryUnit = (typeof PER_ENTRY_UNITS)[number];

/**
 * A cost per entry from a fitted slope. Over a region's size in MB (`over`: time per MB), the slope divided by the
 * page-table entries per MB (`entriesPerMb`: 256 PTEs, or 0.5 PMDs), in ns/entry. Over a count of the entries
 * themselves (VMAs, descriptor numbers of the limit), the slope is the cost per entry: no `entriesPerMb`, and the
 * unit names the entry (ns/VMA, ns/descriptor).
 */
export type PerEntryCheck = CheckBase &
  Expectation & {
    type: 'per-entry';
    series: Series;
    over: string;
    entriesPerMb?: number;
    unit: PerEntryUnit;
  };

export type RatioCheck = CheckBase &
  Expectation & {
    type: 'ratio';
    numerator: Operand;
    denominator: Operand;
  };

/** greater ≥ lesser × minFactor (default 1) × (1 − slack), for each combination of the pairBy keys. */
export interface GreaterCheck extends CheckBase {
  type: 'greater';
  greater: Operand;
  lesser: Operand;
  pairBy?: string[];
  minFactor?: number;
  slack?: number;
}

/** max / min of the operands ≤ maxFactor. */
export interface ApproxEqualCheck extends CheckBase {
  type: 'approx-equal';
  operands: Operand[];
  maxFactor: number;
}

/** An absolute value, in `unit`. */
export type ValueCheck = CheckBase &
  Expectation & {
    type: 'value';
    operand: Operand;
    unit: Unit;
  };

/** Mean per-iteration count in `field` (e.g. minflt) divided by the pages touched ≈ expected. */
export interface CountPerCheck extends CheckBase {
  type: 'count-per';
  series: Series;
  field: string;
  per: 'page';
  expected: number;
  maxAbsDeviation: number;
}

/** (max − min) / mean of the per-repeat statistic across independent repeats ≤ maxRelativeSpread. */
export interface SpreadCheck extends CheckBase {
  type: 'spread';
  series: Series;
  across: 'repeat';
  eachOf?: string[];
  maxRelativeSpread: number;
  published?: number;
}

/** A yes/no outcome the experiment reports per repeat (a field or an info field), for one variant or a series. */
export interface BooleanCheck extends CheckBase {
  type: 'boolean';
  field: string;
  /** The configurations: variant X (deadlock), or any series selector. */
  variant?: string;
  series?: Series;
  expected: boolean;
}

export type Check =
  | FlatCheck
  | GrowsLinearlyCheck
  | SlopeRatioCheck
  | PerEntryCheck
  | RatioCheck
  | GreaterCheck
  | ApproxEqualCheck
  | ValueCheck
  | CountPerCheck
  | SpreadCheck
  | BooleanCheck;
export type CheckType = Check['type'];
export const CHECK_TYPES: readonly CheckType[] = [
  'flat',
  'grows-linearly',
  'slope-ratio',
  'per-entry',
  'ratio',
  'greater',
  'approx-equal',
  'value',
  'count-per',
  'spread',
  'boolean',
];

/** What a source is: where its figures were published. */
export const SOURCE_KINDS = ['pull-request', 'issue', 'mailing-list-series', 'commit', 'blog-post', 'guide'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** A number a source publishes, in our words (statedAs is a paraphrase, never the source's text). */
export interface SourceFigure {
  label: string;
  value: number;
  unit: string;
  /** The figure as the source states it, paraphrased (marked as such wherever it is shown). */
  statedAs: string;
}

/**
 * A published figure on process creation beyond the five articles: a pull request, an issue, a kernel patch
 * series, a blog post or a guide. Its claims name it (`source`) instead of an article.
 */
export interface Source {
  /** A short lower-case id ("bun-25839"), never three digits (those are articles'). */
  id: string;
  title: string;
  /** Where it was published; null where the address could not be confirmed (addressNote says so). */
  address: string | null;
  addressNote?: string;
  year: number;
  kind: SourceKind;
  /** The experiments its claims are judged on. */
  experiment: ExperimentName[];
  /** What it measured on, as far as it says. */
  measuredOn: string;
  figures: SourceFigure[];
}

interface ClaimBase {
  id: string;
  experiment: ExperimentName;
  /** shape: a direction or form the articles say is general; magnitude: a number that depends on the machine. */
  kind: 'shape' | 'magnitude';
  statement: string;
  /** Figures the claim rests on (may be empty when the article publishes no numbers for it). */
  figureIds: string[];
  check: Check;
  /**
   * The claim compares two kernels or two builds (a patch, a build flag, before and after a change): one machine
   * cannot judge it. Its check still measures this machine's figure, shown beside it, with this reason.
   */
  notJudgeable?: string;
}

/** An article's claim. */
export interface ArticleClaim extends ClaimBase {
  article: string;
  source?: never;
  /** The article's own words the claim rests on, verbatim. */
  statementSource: string;
}

/** A source's claim (a figure published beyond the five articles). */
export interface SourceClaim extends ClaimBase {
  source: string;
  article?: never;
  /** What the source says, paraphrased (never presented as its words). */
  statedAs: string;
}

export type Claim = ArticleClaim | SourceClaim;

/** The id of what a claim comes from: its article or its source. */
export const claimOrigin = (c: Claim): string => (c.article !== undefined ? c.article : c.source);

export interface Published {
  schemaVersion: 1;
  articles: Article[];
  /** Published figures beyond the five articles (each with its claims). */
  sources: Source[];
  figures: PublishedFigure[];
  claims: Claim[];
}
