// Two kinds of doctored data that once read as "holds": repeats copied from the first one (fresh probe processes
// never time alike to the nanosecond, so identical repeats are refused as evidence, and the verdict says why), and
// page-table readings moved so that the quantity lies exactly on an edge of its band (integer kB readings: a value
// on the edge cannot tell which side the truth is on, so it never holds). Judged within-run and as reproduce and
// judge do (widened by the drift prior). No probe runs here.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { band } from '../src/claims/bands.js';
import { judgeDocuments } from '../src/claims/judge.js';
import type { RunDocument } from '../src/document/run.js';
import type { Claim, Expectation } from '../src/reference/published.js';
import { FIXTURES, claim, docs, p, verdictOf, type Cfg } from './helpers/claims-data.js';

const readsTimings = (c: Claim) => !JSON.stringify(c.check).includes('"metric"') && c.check.type !== 'count-per' && c.check.type !== 'boolean';
/** ld.so's start-up is read in one probe per run (one repeat): there is nothing to copy. */
const ONE_REPEAT = new Set(['004.ld-debug-startup-28us']);

/** The experiment's fixture with every repeat's samples (and columns) replaced by repeat 1's, configuration by configuration. */
function copiedFirstRepeat(experiment: string): RunDocument {
  const d = structuredClone(FIXTURES[experiment]!);
  const identity = (c: Cfg) => JSON.stringify(Object.entries(c).filter(([k]) => !['repeat', 'samplesNs', 'columns', 'stats', 'info', 'state'].includes(k)));
  const first = new Map(d.configurations.filter((c) => c['repeat'] === 1).map((c) => [identity(c), c]));
  for (const c of d.configurations) {
    const f = first.get(identity(c));
    if (!f || f === c) continue;
    c['samplesNs'] = [...(f['samplesNs'] as number[])];
    if (f['columns']) c['columns'] = structuredClone(f['columns']);
  }
  return d;
}

describe('identical repeats: the first repeat copied into every other one is refused, saying why', () => {
  // The articles' claims (a source's are tested in test/claims-sources.test.ts).
  const timed = p.claims.filter((c) => c.source === undefined && readsTimings(c) && !ONE_REPEAT.has(c.id));
  test('the fixtures themselves have repeats of their own (the control)', () => {
    for (const c of timed) assert.notEqual(verdictOf(c.id, docs()).verdict, 'not-measurable', c.id);
  });
  for (const c of timed) {
    test(`${c.id}: not measurable, never holds`, () => {
      const copied = docs({ [c.experiment]: copiedFirstRepeat(c.experiment) });
      const v = verdictOf(c.id, copied);
      assert.equal(v.verdict, 'not-measurable', `${v.verdict}: ${v.detail}`);
      assert.match(v.detail, /identical repeats: repeat \d+'s \d+ samples are repeat 1's, sample for sample, which no real machine produces/);
      const widened = judgeDocuments(copied, { seed: 1 }).verdicts.find((x) => x.claimId === c.id)!;
      assert.equal(widened.verdict, 'not-measurable', widened.detail);
    });
  }
  test('a single copied configuration is enough to refuse the claims that read it', () => {
    const d = structuredClone(FIXTURES['create']!);
    const threads = d.configurations.filter((c) => c['method'] === 'pthread-create-join');
    threads[1]!['samplesNs'] = [...(threads[0]!['samplesNs'] as number[])];
    const v = verdictOf('002.thread-tens-of-us', docs({ create: d }));
    assert.equal(v.verdict, 'not-measurable', v.detail);
    assert.match(v.detail, /identical repeats/);
  });
});

/** The pagetables claims judged on a value or ratio of kB readings, with the edges a set of integer readings can hit exactly. */
const PAGETABLES = p.claims.filter((c) => c.experiment === 'pagetables' && (c.check.type === 'value' || c.check.type === 'ratio' || c.check.type === 'approx-equal'));

/**
 * Sets a pagetables reading of one layout and phase in every repeat: the base value in most repeats and 1 kB off it in
 * one (toward the band's inside, or both ways), so that the median is the base and the interval ends on it.
 */
function setReading(d: RunDocument, layout: string, phase: string, metric: string, base: number, spread: readonly number[]): void {
  for (const c of d.configurations) if (c['layout'] === layout && c['phase'] === phase) c[metric] = base + spread[((c['repeat'] as number) - 1) % spread.length]!;
}

/** Readings that put the claim's quantity exactly on `edge` (null where integer readings cannot). */
function onEdge(c: Claim, edge: number, spread: readonly number[] = [0, -1, 1]): RunDocument | null {
  const d = structuredClone(FIXTURES['pagetables']!);
  const before = 2000;
  const ch = c.check;
  if (ch.type === 'value') {
    if (!Number.isInteger(edge)) return null;
    const plus = ch.operand.series as { layout: string; phase: string };
    const minus = ch.operand.minus as { layout: string; phase: string };
    for (const cfg of d.configurations) if (cfg['layout'] === minus.layout && cfg['phase'] === minus.phase) cfg[ch.operand.metric!] = before;
    setReading(d, plus.layout, plus.phase, ch.operand.metric!, before + edge, spread);
    return d;
  }
  if (ch.type === 'ratio') {
    const den = 20_000;
    const num = edge * den;
    if (Math.abs(num - Math.round(num)) > 1e-9) return null;
    const n = ch.numerator.series as { layout: string; phase: string };
    const dn = ch.denominator.series as { layout: string; phase: string };
    const nm = ch.numerator.minus as { layout: string; phase: string };
    const dm = ch.denominator.minus as { layout: string; phase: string };
    const metric = ch.numerator.metric!;
    for (const cfg of d.configurations)
      if ((cfg['layout'] === nm.layout && cfg['phase'] === nm.phase) || (cfg['layout'] === dm.layout && cfg['phase'] === dm.phase)) cfg[metric] = before;
    // The denominator exact in every repeat, the numerator spread ±1 kB about the edge.
    for (const cfg of d.configurations) if (cfg['layout'] === dn.layout && cfg['phase'] === dn.phase) cfg[metric] = before + den;
    setReading(d, n.layout, n.phase, metric, before + Math.round(num), spread);
    return d;
  }
  return null;
}

describe('page-table readings moved onto a band edge never hold', () => {
  for (const c of PAGETABLES) {
    if (!('expect' in c.check)) continue;
    const [lo, hi] = band(c.check as Expectation);
    for (const edge of [lo, hi].filter((e) => Number.isFinite(e) && e > 0))
      for (const [how, spread] of [
        ['spread both ways', [0, -1, 1]],
        ['spread toward the inside', edge === hi ? [0, -1, 0] : [0, 1, 0]],
      ] as const) {
        const doctored = onEdge(c, edge, spread);
        if (!doctored) continue;
        test(`${c.id}: the quantity exactly at the band's edge ${edge} (${how}) is not "holds"`, () => {
          const ds = docs({ pagetables: doctored });
          const v = verdictOf(c.id, ds);
          assert.ok(v.measured !== null && Math.abs(v.measured - edge) < 1e-9 * Math.max(1, edge), `${c.id}: measured ${v.measured}, wanted the edge ${edge}`);
          assert.notEqual(v.verdict, 'holds', v.detail);
          const widened = judgeDocuments(ds, { seed: 1 }).verdicts.find((x) => x.claimId === c.id)!;
          assert.notEqual(widened.verdict, 'holds', widened.detail);
        });
      }
  }
  test('a value on the edge is said so, not "inside the band"', () => {
    const c = claim('003.sparse-pagetables-large');
    const [, hi] = band(c.check as Expectation);
    const d = onEdge(c, hi)!;
    for (const cfg of d.configurations) if (cfg['phase'] === 'after-build' && cfg['layout'] === 'sparse') cfg['parentVmPteKb'] = 2000 + hi;
    const v = verdictOf(c.id, docs({ pagetables: d }));
    assert.equal(v.verdict, 'inconclusive', v.detail);
    assert.match(v.detail, /on the band's edge/);
  });
});
