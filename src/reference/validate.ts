// Validation of data/published.json: every entry is checked and a bad one is named in the error.
import {
  CHECK_STATISTICS,
  CHECK_TYPES,
  LANGUAGES,
  PER_ENTRY_UNITS,
  SOURCE_KINDS,
  STATISTICS,
  UNITS,
  type CheckType,
  type ExperimentName,
  type Published,
  type Series,
} from './types.js';

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

/** An experiment's name; whether it is registered is the registry's to say (test/experiment-registry.test.ts). */
const EXPERIMENT_NAME = /^[a-z][a-z0-9-]*$/;

function experimentName(o: Obj, where: string): string {
  const v = o['experiment'];
  if (typeof v !== 'string' || !EXPERIMENT_NAME.test(v)) fail(where, `experiment must be an experiment name (got ${JSON.stringify(v)})`);
  return v;
}

function oneOf<T extends string>(o: Obj, key: string, allowed: readonly T[], where: string, optional = false): T | undefined {
  const v = o[key];
  if (v === undefined && optional) return undefined;
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) fail(where, `${key} must be one of ${allowed.join(', ')} (got ${JSON.stringify(v)})`);
  return v as T;
}

function strList(o: Obj, key: string, where: string, optional = false): string[] | undefined {
  const v = o[key];
  if (v === undefined && optional) return undefined;
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string' || s === '')) fail(where, `${key} must be an array of non-empty strings`);
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
    const p = num(c, 'published', where)!;
    const t = obj(c['tolerance'], `${where}.tolerance`);
    const f = num(t, 'factor', `${where}.tolerance`);
    if (f === undefined || f <= 1) fail(`${where}.tolerance`, 'factor must be > 1');
    const of = oneOf(t, 'of', ['value', 'excess'] as const, `${where}.tolerance`, true);
    if (of === 'excess' && !(p > 1)) fail(`${where}.tolerance`, 'of "excess" (a tolerance on the ratio minus one) needs published > 1');
    // A claim that one thing costs N > 1 times another must not hold when it costs less: its band stays above 1.
    if ((c['type'] === 'ratio' || c['type'] === 'slope-ratio') && p > 1 && of !== 'excess' && p / f <= 1)
      fail(
        `${where}.tolerance`,
        `the band ${p} ÷ ${f} reaches down to ${+(p / f).toFixed(3)} ≤ 1, so the claim would hold in the opposite direction; use "of": "excess" or a smaller factor`,
      );
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

function line(c: Obj, where: string): void {
  series(c['series'], `${where}.series`);
  str(c, 'over', where);
  str(c, 'metric', where, true);
  strList(c, 'eachOf', where, true);
}

/** One validator per check type (the fields docs/published-figures.md describes for it). */
const CHECKS: Record<CheckType, (c: Obj, where: string) => void> = {
  flat(c, where) {
    line(c, where);
    positive(c, 'maxRelativeChange', where);
    if (c['maxSlopeFraction'] === undefined) return;
    const m = obj(c['maxSlopeFraction'], `${where}.maxSlopeFraction`);
    series(m['of'], `${where}.maxSlopeFraction.of`);
    positive(m, 'fraction', `${where}.maxSlopeFraction`);
  },
  'grows-linearly'(c, where) {
    line(c, where);
    if (c['minus'] !== undefined) series(c['minus'], `${where}.minus`);
    const bow = num(c, 'maxBow', where);
    if (bow === undefined || bow <= 0 || bow >= 0.25) fail(where, 'maxBow must be in (0, 0.25): a pure x² bows by 0.25 of its rise');
    positive(c, 'minGrowthFactor', where, true);
  },
  'slope-ratio'(c, where) {
    str(c, 'over', where);
    series(c['numerator'], `${where}.numerator`);
    series(c['denominator'], `${where}.denominator`);
    expectation(c, where);
  },
  'per-entry'(c, where) {
    series(c['series'], `${where}.series`);
    str(c, 'over', where);
    // per page-table entry: from a slope per MB, with the entries per MB; per VMA or descriptor: the slope itself
    const unit = oneOf(c, 'unit', PER_ENTRY_UNITS, where);
    if (unit === 'ns/entry') positive(c, 'entriesPerMb', where);
    else if (c['entriesPerMb'] !== undefined)
      fail(where, `entriesPerMb is for ns/entry (page-table entries per MB); a cost in ${unit} is the slope over ${String(c['over'])} itself`);
    expectation(c, where);
  },
  ratio(c, where) {
    operand(c['numerator'], `${where}.numerator`);
    operand(c['denominator'], `${where}.denominator`);
    expectation(c, where);
  },
  greater(c, where) {
    operand(c['greater'], `${where}.greater`);
    operand(c['lesser'], `${where}.lesser`);
    strList(c, 'pairBy', where, true);
    positive(c, 'minFactor', where, true);
    const s = num(c, 'slack', where, true);
    if (s !== undefined && (s < 0 || s >= 1)) fail(where, 'slack must be in [0, 1)');
  },
  'approx-equal'(c, where) {
    const ops = c['operands'];
    if (!Array.isArray(ops) || ops.length < 2) fail(where, 'operands must be an array of at least 2 operands');
    for (const [i, o] of ops.entries()) operand(o, `${where}.operands[${i}]`);
    const f = num(c, 'maxFactor', where);
    if (f === undefined || f < 1) fail(where, 'maxFactor must be ≥ 1');
  },
  value(c, where) {
    operand(c['operand'], `${where}.operand`);
    oneOf(c, 'unit', UNITS, where);
    expectation(c, where);
  },
  'count-per'(c, where) {
    series(c['series'], `${where}.series`);
    str(c, 'field', where);
    oneOf(c, 'per', ['page'] as const, where);
    num(c, 'expected', where);
    positive(c, 'maxAbsDeviation', where);
  },
  spread(c, where) {
    series(c['series'], `${where}.series`);
    oneOf(c, 'across', ['repeat'] as const, where);
    strList(c, 'eachOf', where, true);
    positive(c, 'maxRelativeSpread', where);
    num(c, 'published', where, true);
  },
  boolean(c, where) {
    str(c, 'field', where);
    const variant = str(c, 'variant', where, true);
    if (c['series'] !== undefined) series(c['series'], `${where}.series`);
    if ((variant === undefined) === (c['series'] === undefined)) fail(where, 'give either variant or series');
    bool(c, 'expected', where);
  },
};

function check(v: unknown, where: string): void {
  const c = obj(v, where);
  const type = oneOf(c, 'type', CHECK_TYPES, where) as CheckType;
  str(c, 'basis', where, true);
  str(c, 'statisticNote', where, true);
  oneOf(c, 'statistic', CHECK_STATISTICS, where, true);
  CHECKS[type](c, where);
}

function label(o: unknown, kind: string, i: number): string {
  const id = isObj(o) && typeof o['id'] === 'string' ? ` "${o['id']}"` : '';
  return `${kind}[${i}]${id}`;
}

/** A string, or null for "the article does not say". */
function nullableStr(o: Obj, key: string, where: string): void {
  if (o[key] !== null) str(o, key, where);
}

function articleSeries(v: unknown, where: string): void {
  if (v === null) return;
  const s = obj(v, where);
  for (const k of ['name', 'nameEn']) nullableStr(s, k, where);
  for (const k of ['part', 'of']) {
    const n = s[k];
    if (n !== null && !(typeof n === 'number' && Number.isInteger(n) && n > 0)) fail(where, `${k} must be a positive integer or null`);
  }
  if (typeof s['part'] === 'number' && typeof s['of'] === 'number' && s['part'] > s['of']) fail(where, `part ${s['part']} is beyond of ${s['of']}`);
  str(s, 'stated', where);
  str(s, 'statedEn', where);
}

/** Validates the articles; returns each article's experiments by id. */
function validateArticles(articles: unknown[]): Map<string, ExperimentName[]> {
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
    for (const k of ['protocol', 'author', 'published']) str(o, k, where, true);
    articleSeries(o['series'], `${where}.series`);
    const m = obj(o['measuredWith'], `${where}.measuredWith`);
    for (const k of ['container', 'compiler', 'cpu', 'kernel']) nullableStr(m, k, `${where}.measuredWith`);
    oneOf(o, 'titleSource', ['title', 'first-heading'] as const, where);
    oneOf(o, 'language', LANGUAGES, where);
    const e = o['experiment'];
    const list = Array.isArray(e) ? e : [e];
    if (list.length === 0 || list.some((x) => typeof x !== 'string' || !EXPERIMENT_NAME.test(x)))
      fail(where, 'experiment must be an experiment name (lower case) or a non-empty array of them');
    experimentsOf.set(id, list as ExperimentName[]);
  });
  return experimentsOf;
}

function knownArticle(o: Obj, where: string, experimentsOf: Map<string, ExperimentName[]>): string {
  const a = str(o, 'article', where)!;
  if (!experimentsOf.has(a)) fail(where, `article ${a} is not in articles`);
  const id = o['id'] as string;
  if (!id.startsWith(`${a}.`)) fail(where, `id must start with "${a}."`);
  return a;
}

/** Validates the figures; returns their ids. */
function validateFigures(figures: unknown[], experimentsOf: Map<string, ExperimentName[]>): Set<string> {
  const figureIds = new Set<string>();
  figures.forEach((f, i) => {
    const where = label(f, 'figures', i);
    const o = obj(f, where);
    const id = str(o, 'id', where)!;
    if (figureIds.has(id)) fail(where, 'duplicate figure id');
    figureIds.add(id);
    knownArticle(o, where, experimentsOf);
    str(o, 'table', where);
    experimentName(o, where);
    series(o['series'], `${where}.series`);
    for (const k of ['equivalentSeries', 'minus']) if (o[k] !== undefined) series(o[k], `${where}.${k}`);
    for (const k of ['over', 'metric', 'note']) str(o, k, where, true);
    oneOf(o, 'statistic', STATISTICS, where);
    num(o, 'value', where);
    oneOf(o, 'unit', UNITS, where);
    str(o, 'quote', where);
    str(o, 'label', where);
    for (const k of ['cited', 'phaseInferred', 'headline']) bool(o, k, where, true);
  });
  return figureIds;
}

/** Validates the sources (published figures beyond the articles); returns each source's experiments by id. */
function validateSources(sources: unknown[], articleIds: ReadonlySet<string>): Map<string, ExperimentName[]> {
  const experimentsOf = new Map<string, ExperimentName[]>();
  sources.forEach((x, i) => {
    const where = label(x, 'sources', i);
    const o = obj(x, where);
    const id = str(o, 'id', where)!;
    if (!/^[a-z][a-z0-9-]*$/.test(id)) fail(where, 'id must be lower-case letters, digits and dashes, starting with a letter');
    if (experimentsOf.has(id) || articleIds.has(id)) fail(where, `duplicate source id ${id}`);
    str(o, 'title', where);
    str(o, 'measuredOn', where);
    if (o['address'] === null) {
      if (str(o, 'addressNote', where, true) === undefined) fail(where, 'an address left null needs an addressNote saying why');
    } else {
      const a = str(o, 'address', where)!;
      if (!/^https?:\/\/\S+$/.test(a)) fail(where, `address must be an http(s) address or null (got ${JSON.stringify(a)})`);
      str(o, 'addressNote', where, true);
    }
    const year = num(o, 'year', where)!;
    if (!Number.isInteger(year) || year < 1970 || year > 2100) fail(where, `year must be a year (got ${year})`);
    oneOf(o, 'kind', SOURCE_KINDS, where);
    const list = o['experiment'];
    if (!Array.isArray(list) || list.length === 0 || list.some((e) => typeof e !== 'string' || !EXPERIMENT_NAME.test(e)))
      fail(where, 'experiment must be a non-empty array of experiment names');
    if (!Array.isArray(o['figures'])) fail(where, 'figures must be an array');
    (o['figures'] as unknown[]).forEach((f, j) => {
      const fw = `${where}.figures[${j}]`;
      const fo = obj(f, fw);
      for (const k of ['label', 'unit', 'statedAs']) str(fo, k, fw);
      num(fo, 'value', fw);
      if (fo['quote'] !== undefined) fail(fw, 'a source figure has no quote: its words are not shipped to check one against; give statedAs, a paraphrase');
    });
    experimentsOf.set(id, list as ExperimentName[]);
  });
  return experimentsOf;
}

function validateClaims(claims: unknown[], experimentsOf: Map<string, ExperimentName[]>, figureIds: Set<string>, sourceExperiments: Map<string, ExperimentName[]>): void {
  const claimIds = new Set<string>();
  claims.forEach((c, i) => {
    const where = label(c, 'claims', i);
    const o = obj(c, where);
    const id = str(o, 'id', where)!;
    if (claimIds.has(id)) fail(where, 'duplicate claim id');
    claimIds.add(id);
    if ((o['article'] === undefined) === (o['source'] === undefined)) fail(where, 'a claim names either an article or a source');
    const e = experimentName(o, where);
    if (o['article'] !== undefined) {
      const a = knownArticle(o, where, experimentsOf);
      if (!experimentsOf.get(a)!.includes(e)) fail(where, `experiment ${e} is not an experiment of article ${a}`);
      str(o, 'statementSource', where);
    } else {
      const s = str(o, 'source', where)!;
      if (!sourceExperiments.has(s)) fail(where, `source ${s} is not in sources`);
      if (!id.startsWith(`${s}.`)) fail(where, `id must start with "${s}."`);
      if (!sourceExperiments.get(s)!.includes(e)) fail(where, `experiment ${e} is not an experiment of source ${s}`);
      str(o, 'statedAs', where);
      if (o['statementSource'] !== undefined) fail(where, 'a source claim gives statedAs (a paraphrase), not statementSource');
      const basis = isObj(o['check']) ? o['check']['basis'] : undefined;
      if (typeof basis !== 'string' || basis.trim() === '')
        fail(where, "a source's claim says in check.basis why it is a shape or a magnitude and how its band follows from the source's figures");
    }
    oneOf(o, 'kind', ['shape', 'magnitude'] as const, where);
    str(o, 'statement', where);
    str(o, 'note', where, true);
    str(o, 'notJudgeable', where, true);
    for (const fid of strList(o, 'figureIds', where)!) if (!figureIds.has(fid)) fail(where, `figureIds names unknown figure ${fid}`);
    check(o['check'], `${where}.check`);
  });
}

/** Validates the parsed JSON; throws an Error naming the first bad entry. */
export function validatePublished(raw: unknown): Published {
  const root = obj(raw, 'root');
  if (root['schemaVersion'] !== 1) fail('root', `schemaVersion must be 1 (got ${JSON.stringify(root['schemaVersion'])})`);
  for (const k of ['articles', 'sources', 'figures', 'claims']) if (!Array.isArray(root[k])) fail('root', `${k} must be an array`);
  const experimentsOf = validateArticles(root['articles'] as unknown[]);
  const sourceExperiments = validateSources(root['sources'] as unknown[], new Set(experimentsOf.keys()));
  const figureIds = validateFigures(root['figures'] as unknown[], experimentsOf);
  validateClaims(root['claims'] as unknown[], experimentsOf, figureIds, sourceExperiments);
  return raw as Published;
}
