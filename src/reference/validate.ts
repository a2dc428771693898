// Validation of data/published.json: every entry is checked and a bad one is named in the error.
import { CHECK_STATISTICS, CHECK_TYPES, EXPERIMENTS, LANGUAGES, STATISTICS, UNITS, type CheckType, type ExperimentName, type Published, type Series } from './types.js';

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

