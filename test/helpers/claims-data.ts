// The article-shaped datasets the claims tests judge (test/claims-fixtures/*.json) and the edits that change them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { getClaim, loadPublished, type Claim } from '../../src/reference/published.js';
import type { RunDocument } from '../../src/document/run.js';
import { evaluateClaim, type Verdict } from '../../src/claims/evaluate.js';
import { EXPERIMENTS as REGISTERED } from '../../src/experiments/index.js';

export const p = loadPublished();
export type Cfg = Record<string, unknown>;
/** Every experiment the claims name has a fixture run in claims-fixtures/NAME.json (in the registry's order). */
export const NAMES = REGISTERED.map((e) => e.name).filter((n) => p.claims.some((c) => c.experiment === n));
export type Name = string;
export type Edit = Partial<Record<Name, RunDocument>>;

const fixture = (name: Name): RunDocument => JSON.parse(readFileSync(new URL(`../claims-fixtures/${name}.json`, import.meta.url), 'utf8')) as RunDocument;
export const FIXTURES = Object.fromEntries(NAMES.map((n) => [n, fixture(n)])) as Record<Name, RunDocument>;
export const docs = (replace: Edit = {}): RunDocument[] => NAMES.map((n) => replace[n] ?? FIXTURES[n]!);

export const JITTER = [0.98, 0.99, 1, 1.01, 1.02, 0.995, 1.005, 1, 0.985, 1.015];
/** Jitter of sample i of a repeat: each repeat the same values in its own order, as fresh probes never time alike (identical repeats are refused). */
export const jitterAt = (c: Cfg, i: number): number => JITTER[(i + 3 * ((c['repeat'] as number | undefined) ?? 0)) % JITTER.length]!;
/** While set, edit() touches only the configurations of this repeat (an inconclusive case: one repeat of three disagrees). */
let onlyRepeat: number | null = null;
/** A copy of an experiment's fixture with fn applied to the configurations that match every key of sel. */
export function edit(name: Name, sel: Cfg, fn: (c: Cfg) => void): Edit {
  const d = structuredClone(FIXTURES[name]!);
  const where = onlyRepeat === null ? sel : { ...sel, repeat: onlyRepeat };
  const hits = d.configurations.filter((c) => Object.entries(where).every(([k, v]) => c[k] === v));
  assert.ok(hits.length > 0, `edit ${name} ${JSON.stringify(where)} matches something`);
  hits.forEach(fn);
  return { [name]: d };
}
export function inOneRepeat(e: () => Edit, repeat = 2): Edit {
  onlyRepeat = repeat;
  try {
    return e();
  } finally {
    onlyRepeat = null;
  }
}
export const setNs = (ns: number | ((c: Cfg) => number)) => (c: Cfg) => {
  const v = typeof ns === 'number' ? ns : ns(c);
  c['samplesNs'] = (c['samplesNs'] as number[]).map((_, i) => v * jitterAt(c, i));
};
export const setUs = (us: number | ((c: Cfg) => number)) => setNs((c) => (typeof us === 'number' ? us : us(c)) * 1000);
export const scale = (f: number | ((c: Cfg) => number)) => (c: Cfg) => {
  const k = typeof f === 'number' ? f : f(c);
  c['samplesNs'] = (c['samplesNs'] as number[]).map((x) => x * k);
};
export const set = (key: string, value: unknown) => (c: Cfg) => void (c[key] = value);
export const rss = (c: Cfg) => c['rssMb'] as number;
export const vmas = (c: Cfg) => c['vmas'] as number;
export const acquired = (yes: boolean) => (c: Cfg) => void Object.assign(c, { childAcquired: yes, childReported: true, childKilled: false, childResult: yes ? null : 'ETIMEDOUT' });

export function claim(id: string): Claim {
  const c = getClaim(id, p);
  assert.ok(c, `claim ${id} exists`);
  return c;
}
export const verdictOf = (id: string, ds: RunDocument[]): Verdict => evaluateClaim(ds, claim(id));
