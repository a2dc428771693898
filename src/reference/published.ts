// The articles' published figures and claims, shipped as data/published.json (never read from the
// articles themselves at run time). This module types that file, validates it on load and offers
// small look-ups. See docs/published-figures.md for what every field means and how claims are judged.
import { readFileSync } from 'node:fs';

export const EXPERIMENTS = ['spawn', 'cow', 'create', 'exec', 'pagetables', 'vma', 'deadlock'] as const;
export type ExperimentName = (typeof EXPERIMENTS)[number];

export const LANGUAGES = ['vi', 'zh'] as const;
export type Language = (typeof LANGUAGES)[number];

export const UNITS = [
  'us', 'ns', 'ms', 'us/MB', 'ns/entry', 'ns/page', 'kB', 'KB', 'bytes', 'ratio', '%', 'entries', 'pages', 'mappings',
] as const;
export type Unit = (typeof UNITS)[number];

/** How a published number was obtained. "unspecified": the article does not say (mean or median). */
export const STATISTICS = [
  'mean', 'median', 'min', 'unspecified', 'ratio', 'slope', 'per-entry', 'total', 'difference', 'bound', 'count',
  'parameter', 'reading', 'size',
] as const;
export type Statistic = (typeof STATISTICS)[number];

/** The statistic a check computes over forklab's samples. */
export const CHECK_STATISTICS = ['mean', 'median', 'min'] as const;
export type CheckStatistic = (typeof CHECK_STATISTICS)[number];

export type SeriesValue = string | number | boolean;
/** Keys that identify a series in forklab terms (e.g. method, rssMb, thp); a run matches when every key is equal. */
export type Series = Readonly<Record<string, SeriesValue>>;

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
  series?: string;
  author?: string;
  published?: string;
}

export interface PublishedFigure {
  id: string;
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

/** approx: published/factor ≤ measured ≤ published·factor. at-least / at-most: against limit. between: min ≤ measured ≤ max. */
export type Expectation =
  | { expect: 'approx'; published: number; tolerance: { factor: number }; limit?: never; min?: never; max?: never }
  | { expect: 'at-least' | 'at-most'; published?: number; limit: number; tolerance?: never; min?: never; max?: never }
  | { expect: 'between'; published?: number; min: number; max: number; limit?: never; tolerance?: never };

interface CheckBase {
  /** How the published value or limit was derived from the article's numbers. */
  basis?: string;
  statistic?: CheckStatistic;
}

/** The series does not change over `over`: |fitted slope × range| / mean ≤ maxRelativeChange, and optionally
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

/** Least-squares line over `over`: R² ≥ minR2, positive slope, fitted value at the largest x ≥ minGrowthFactor × at the smallest. */
export interface GrowsLinearlyCheck extends CheckBase {
  type: 'grows-linearly';
  series: Series;
  over: string;
  metric?: string;
  minus?: Series;
  eachOf?: string[];
  minR2: number;
  minGrowthFactor?: number;
}

/** Ratio of the fitted slopes of two series over `over`. */
export type SlopeRatioCheck = CheckBase & Expectation & {
  type: 'slope-ratio';
  over: string;
  numerator: Series;
  denominator: Series;
};

/** Fitted slope over rssMb (time per MB) divided by the page-table entries per MB (256 PTEs, or 0.5 PMDs). */
export type PerEntryCheck = CheckBase & Expectation & {
  type: 'per-entry';
  series: Series;
  over: 'rssMb';
  entriesPerMb: number;
  unit: 'ns/entry';
};

export type RatioCheck = CheckBase & Expectation & {
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
export type ValueCheck = CheckBase & Expectation & {
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

/** A yes/no outcome reported by the experiment for one variant. */
export interface BooleanCheck extends CheckBase {
  type: 'boolean';
  field: string;
  variant: string;
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
  'flat', 'grows-linearly', 'slope-ratio', 'per-entry', 'ratio', 'greater', 'approx-equal', 'value', 'count-per',
  'spread', 'boolean',
];

export interface Claim {
  id: string;
  article: string;
  experiment: ExperimentName;
  /** shape: a direction or form the articles say is general; magnitude: a number that depends on the machine. */
  kind: 'shape' | 'magnitude';
  statement: string;
  statementSource: string;
  /** Figures the claim rests on (may be empty when the article publishes no numbers for it). */
  figureIds: string[];
  check: Check;
}

export interface Published {
  schemaVersion: 1;
  articles: Article[];
  figures: PublishedFigure[];
  claims: Claim[];
}

export const PUBLISHED_URL = new URL('../../data/published.json', import.meta.url);

// ---------------------------------------------------------------- validation

function fail(where: string, message: string): never {
  throw new Error(`published.json: ${where}: ${message}`);
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function obj(v: unknown, where: string): Obj {
  if (!isObj(v)) fail(where, 'must be an object');
  return v;
}

function str(o: Obj, key: string, where: string, optional = false): string | undefined {
  const v = o[key];
  if (v === undefined && optional) return undefined;
  if (typeof v !== 'string' || v.trim() === '') fail(where, `${key} must be a non-empty string`);
  return v;
}

function num(o: Obj, key: string, where: string, optional = false): number | undefined {
  const v = o[key];
  if (v === undefined && optional) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(where, `${key} must be a finite number`);
  return v;
}

function bool(o: Obj, key: string, where: string, optional = false): boolean | undefined {
  const v = o[key];
  if (v === undefined && optional) return undefined;
  if (typeof v !== 'boolean') fail(where, `${key} must be a boolean`);
  return v;
}

function oneOf<T extends string>(o: Obj, key: string, allowed: readonly T[], where: string, optional = false): T | undefined {
  const v = o[key];
  if (v === undefined && optional) return undefined;
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v))
    fail(where, `${key} must be one of ${allowed.join(', ')} (got ${JSON.stringify(v)})`);
  return v as T;
}

function strList(o: Obj, key: string, where: string, optional = false): string[] | undefined {
  const v = o[key];
  if (v === undefined && optional) return undefined;
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string' || s === ''))
    fail(where, `${key} must be an array of non-empty strings`);
  return v as string[];
}

function series(v: unknown, where: string): Series {
  const o = obj(v, where);
  for (const [k, val] of Object.entries(o))
    if (!['string', 'number', 'boolean'].includes(typeof val) || (typeof val === 'number' && !Number.isFinite(val)))
      fail(where, `key ${k} must be a string, a finite number or a boolean`);
  return o as Series;
}

function operand(v: unknown, where: string): void {
  const o = obj(v, where);
  series(o['series'], `${where}.series`);
  if (o['minus'] !== undefined) series(o['minus'], `${where}.minus`);
  str(o, 'metric', where, true);
  str(o, 'minusMetric', where, true);
  str(o, 'atMax', where, true);
  const m = num(o, 'multiplyBy', where, true);
  if (m !== undefined && m <= 0) fail(where, 'multiplyBy must be > 0');
}

function positive(o: Obj, key: string, where: string, optional = false): void {
  const v = num(o, key, where, optional);
  if (v !== undefined && v <= 0) fail(where, `${key} must be > 0`);
}

function expectation(c: Obj, where: string): void {
  const e = oneOf(c, 'expect', ['approx', 'at-least', 'at-most', 'between'] as const, where);
  if (e === 'approx') {
    num(c, 'published', where);
    const t = obj(c['tolerance'], `${where}.tolerance`);
    const f = num(t, 'factor', `${where}.tolerance`);
    if (f === undefined || f <= 1) fail(`${where}.tolerance`, 'factor must be > 1');
  } else if (e === 'between') {
    num(c, 'published', where, true);
    const lo = num(c, 'min', where);
    const hi = num(c, 'max', where);
    if (lo === undefined || hi === undefined || lo >= hi) fail(where, 'min must be < max');
  } else {
    num(c, 'published', where, true);
    num(c, 'limit', where);
  }
}

function check(v: unknown, where: string): void {
  const c = obj(v, where);
  const type = oneOf(c, 'type', CHECK_TYPES, where) as CheckType;
  str(c, 'basis', where, true);
  oneOf(c, 'statistic', CHECK_STATISTICS, where, true);
  switch (type) {
    case 'flat': {
      series(c['series'], `${where}.series`);
      str(c, 'over', where);
      str(c, 'metric', where, true);
      strList(c, 'eachOf', where, true);
      positive(c, 'maxRelativeChange', where);
      if (c['maxSlopeFraction'] !== undefined) {
        const m = obj(c['maxSlopeFraction'], `${where}.maxSlopeFraction`);
        series(m['of'], `${where}.maxSlopeFraction.of`);
        positive(m, 'fraction', `${where}.maxSlopeFraction`);
      }
      break;
    }
    case 'grows-linearly': {
      series(c['series'], `${where}.series`);
      if (c['minus'] !== undefined) series(c['minus'], `${where}.minus`);
      str(c, 'over', where);
      str(c, 'metric', where, true);
      strList(c, 'eachOf', where, true);
      const r2 = num(c, 'minR2', where);
      if (r2 === undefined || r2 <= 0 || r2 > 1) fail(where, 'minR2 must be in (0, 1]');
      positive(c, 'minGrowthFactor', where, true);
      break;
    }
    case 'slope-ratio':
      str(c, 'over', where);
      series(c['numerator'], `${where}.numerator`);
      series(c['denominator'], `${where}.denominator`);
      expectation(c, where);
      break;
    case 'per-entry':
      series(c['series'], `${where}.series`);
      oneOf(c, 'over', ['rssMb'] as const, where);
      positive(c, 'entriesPerMb', where);
      oneOf(c, 'unit', ['ns/entry'] as const, where);
      expectation(c, where);
      break;
    case 'ratio':
      operand(c['numerator'], `${where}.numerator`);
      operand(c['denominator'], `${where}.denominator`);
      expectation(c, where);
      break;
    case 'greater':
      operand(c['greater'], `${where}.greater`);
      operand(c['lesser'], `${where}.lesser`);
      strList(c, 'pairBy', where, true);
      positive(c, 'minFactor', where, true);
      {
        const s = num(c, 'slack', where, true);
        if (s !== undefined && (s < 0 || s >= 1)) fail(where, 'slack must be in [0, 1)');
      }
      break;
    case 'approx-equal': {
      const ops = c['operands'];
      if (!Array.isArray(ops) || ops.length < 2) fail(where, 'operands must be an array of at least 2 operands');
      ops.forEach((o, i) => operand(o, `${where}.operands[${i}]`));
      const f = num(c, 'maxFactor', where);
      if (f === undefined || f < 1) fail(where, 'maxFactor must be ≥ 1');
      break;
    }
    case 'value':
      operand(c['operand'], `${where}.operand`);
      oneOf(c, 'unit', UNITS, where);
      expectation(c, where);
      break;
    case 'count-per':
      series(c['series'], `${where}.series`);
      str(c, 'field', where);
      oneOf(c, 'per', ['page'] as const, where);
      num(c, 'expected', where);
      positive(c, 'maxAbsDeviation', where);
      break;
    case 'spread':
      series(c['series'], `${where}.series`);
      oneOf(c, 'across', ['repeat'] as const, where);
      strList(c, 'eachOf', where, true);
      positive(c, 'maxRelativeSpread', where);
      num(c, 'published', where, true);
      break;
    case 'boolean':
      str(c, 'field', where);
      str(c, 'variant', where);
      bool(c, 'expected', where);
      break;
  }
}

function label(o: unknown, kind: string, i: number): string {
  const id = isObj(o) && typeof o['id'] === 'string' ? ` "${o['id']}"` : '';
  return `${kind}[${i}]${id}`;
}

/** Validates the parsed JSON; throws an Error naming the first bad entry. */
export function validatePublished(raw: unknown): Published {
  const root = obj(raw, 'root');
  if (root['schemaVersion'] !== 1) fail('root', `schemaVersion must be 1 (got ${JSON.stringify(root['schemaVersion'])})`);
  for (const k of ['articles', 'figures', 'claims'])
    if (!Array.isArray(root[k])) fail('root', `${k} must be an array`);

  const articles = root['articles'] as unknown[];
  const experimentsOf = new Map<string, ExperimentName[]>();
  articles.forEach((a, i) => {
    const where = label(a, 'articles', i);
    const o = obj(a, where);
    const id = str(o, 'id', where)!;
    if (!/^\d{3}$/.test(id)) fail(where, 'id must be three digits');
    if (experimentsOf.has(id)) fail(where, `duplicate article id ${id}`);
    const file = str(o, 'file', where)!;
    if (!file.startsWith(`${id}_`)) fail(where, `file must start with "${id}_"`);
    for (const k of ['title', 'titleEn', 'environment']) str(o, k, where);
    for (const k of ['protocol', 'series', 'author', 'published']) str(o, k, where, true);
    oneOf(o, 'titleSource', ['title', 'first-heading'] as const, where);
    oneOf(o, 'language', LANGUAGES, where);
    const e = o['experiment'];
    const list = Array.isArray(e) ? e : [e];
    if (list.length === 0 || list.some((x) => typeof x !== 'string' || !(EXPERIMENTS as readonly string[]).includes(x)))
      fail(where, `experiment must be one of ${EXPERIMENTS.join(', ')} or a non-empty array of them`);
    experimentsOf.set(id, list as ExperimentName[]);
  });

  const knownArticle = (o: Obj, where: string): string => {
    const a = str(o, 'article', where)!;
    if (!experimentsOf.has(a)) fail(where, `article ${a} is not in articles`);
    return a;
  };

  const figureIds = new Set<string>();
  (root['figures'] as unknown[]).forEach((f, i) => {
    const where = label(f, 'figures', i);
    const o = obj(f, where);
    const id = str(o, 'id', where)!;
    if (figureIds.has(id)) fail(where, 'duplicate figure id');
    figureIds.add(id);
    const a = knownArticle(o, where);
    if (!id.startsWith(`${a}.`)) fail(where, `id must start with "${a}."`);
    str(o, 'table', where);
    oneOf(o, 'experiment', EXPERIMENTS, where);
    series(o['series'], `${where}.series`);
    if (o['equivalentSeries'] !== undefined) series(o['equivalentSeries'], `${where}.equivalentSeries`);
    if (o['minus'] !== undefined) series(o['minus'], `${where}.minus`);
    str(o, 'over', where, true);
    str(o, 'metric', where, true);
    oneOf(o, 'statistic', STATISTICS, where);
    num(o, 'value', where);
    oneOf(o, 'unit', UNITS, where);
    str(o, 'quote', where);
    str(o, 'note', where, true);
    bool(o, 'cited', where, true);
    bool(o, 'phaseInferred', where, true);
    bool(o, 'headline', where, true);
  });

  const claimIds = new Set<string>();
  (root['claims'] as unknown[]).forEach((c, i) => {
    const where = label(c, 'claims', i);
    const o = obj(c, where);
    const id = str(o, 'id', where)!;
    if (claimIds.has(id)) fail(where, 'duplicate claim id');
    claimIds.add(id);
    const a = knownArticle(o, where);
    if (!id.startsWith(`${a}.`)) fail(where, `id must start with "${a}."`);
    const e = oneOf(o, 'experiment', EXPERIMENTS, where)!;
    if (!experimentsOf.get(a)!.includes(e)) fail(where, `experiment ${e} is not an experiment of article ${a}`);
    oneOf(o, 'kind', ['shape', 'magnitude'] as const, where);
    str(o, 'statement', where);
    str(o, 'statementSource', where);
    for (const fid of strList(o, 'figureIds', where)!)
      if (!figureIds.has(fid)) fail(where, `figureIds names unknown figure ${fid}`);
    check(o['check'], `${where}.check`);
  });

  return raw as Published;
}

// ---------------------------------------------------------------- loading and look-ups

let cached: Published | undefined;

/** Reads and validates data/published.json (cached after the first call for the default location). */
export function loadPublished(url: URL | string = PUBLISHED_URL): Published {
  const isDefault = String(url) === String(PUBLISHED_URL);
  if (isDefault && cached) return cached;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(url, 'utf8'));
  } catch (e) {
    throw new Error(`cannot read published figures from ${String(url)}: ${(e as Error).message}`);
  }
  const p = validatePublished(raw);
  if (isDefault) cached = p;
  return p;
}

export function articleExperiments(article: Article): ExperimentName[] {
  return Array.isArray(article.experiment) ? article.experiment : [article.experiment];
}

export function getArticle(id: string, p: Published = loadPublished()): Article | undefined {
  return p.articles.find((a) => a.id === id);
}

/** Every figure the given article publishes, in file order. */
export function figuresFor(article: string, p: Published = loadPublished()): PublishedFigure[] {
  return p.figures.filter((f) => f.article === article);
}

/** Every claim checked on the given experiment's data. */
export function claimsFor(experiment: ExperimentName, p: Published = loadPublished()): Claim[] {
  return p.claims.filter((c) => c.experiment === experiment);
}

export function getFigure(id: string, p: Published = loadPublished()): PublishedFigure | undefined {
  return p.figures.find((f) => f.id === id);
}

export function getClaim(id: string, p: Published = loadPublished()): Claim | undefined {
  return p.claims.find((c) => c.id === id);
}

/** Whether a measured value meets an expectation (the shared rule for approx / at-least / at-most / between). */
export function meetsExpectation(measured: number, e: Expectation): boolean {
  if (!Number.isFinite(measured)) return false;
  switch (e.expect) {
    case 'approx':
      return measured >= e.published / e.tolerance.factor && measured <= e.published * e.tolerance.factor;
    case 'at-least':
      return measured >= e.limit;
    case 'at-most':
      return measured <= e.limit;
    case 'between':
      return measured >= e.min && measured <= e.max;
  }
}
