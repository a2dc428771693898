// The sources beyond the five articles (data/published.json `sources`): their entries, and their claims judged on
// the experiments' fixture runs (test/claims-fixtures/*.json) as `forklab reproduce` and `forklab judge` judge them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeDocuments } from '../src/claims/judge.js';
import { SOURCE_KINDS, validatePublished } from '../src/reference/published.js';
import { FIXTURES, claim, docs, edit, jitterAt, p, setUs, verdictOf, type Cfg } from './helpers/claims-data.js';

describe('sources: the entries', () => {
  test('every source has an id, a title, an address (or why not), a year, a kind and claims', () => {
    assert.ok(p.sources.length >= 9);
    for (const s of p.sources) {
      assert.match(s.id, /^[a-z][a-z0-9-]*$/, s.id);
      assert.ok(s.title.length > 10, s.id);
      if (s.address === null) assert.ok((s.addressNote ?? '').startsWith('not confirmed'), `${s.id}: an unconfirmed address says so`);
      else assert.match(s.address, /^https?:\/\/\S+$/, s.id);
      assert.ok(Number.isInteger(s.year) && s.year >= 2000 && s.year <= 2026, `${s.id}: year ${s.year}`);
      assert.ok(SOURCE_KINDS.includes(s.kind), s.id);
      assert.ok(
        p.claims.some((c) => c.source === s.id),
        `${s.id} has claims`,
      );
      for (const f of s.figures) assert.match(f.statedAs, /^paraphrased: /, `${s.id}: a figure's words are marked as a paraphrase`);
    }
  });

  test('every claim names an existing article or source, never both', () => {
    const articles = new Set(p.articles.map((a) => a.id));
    const sources = new Set(p.sources.map((s) => s.id));
    for (const c of p.claims) {
      assert.ok((c.article === undefined) !== (c.source === undefined), c.id);
      assert.ok(c.article !== undefined ? articles.has(c.article) : sources.has(c.source!), c.id);
      if (c.source !== undefined) {
        assert.match(c.statedAs, /^paraphrased: /, `${c.id}: statedAs is marked as a paraphrase`);
        assert.ok((c.check.basis ?? '').length > 20, `${c.id}: says why it is a ${c.kind} and where its band comes from`);
      }
    }
  });

  const bad = (mutate: (raw: { sources: Cfg[]; claims: Cfg[] }) => void): (() => unknown) => {
    const raw = structuredClone(p) as unknown as { sources: Cfg[]; claims: Cfg[] };
    mutate(raw);
    return () => validatePublished(raw);
  };
  const sourceClaim = (raw: { claims: Cfg[] }) => raw.claims.find((c) => c['id'] === 'bun-25839.close-range-flat')!;

  test('the validator refuses a claim naming an unknown source, or both an article and a source', () => {
    assert.throws(
      bad((r) => void (sourceClaim(r)['source'] = 'nobody')),
      /source nobody is not in sources/,
    );
    assert.throws(
      bad((r) => void (sourceClaim(r)['article'] = '000')),
      /either an article or a source/,
    );
    assert.throws(
      bad((r) => void (sourceClaim(r)['experiment'] = 'spawn')),
      /not an experiment of source bun-25839/,
    );
    assert.throws(
      bad((r) => void delete (sourceClaim(r)['check'] as Cfg)['basis']),
      /check\.basis/,
    );
  });

  test('a cost per entry over a count of the entries (VMAs, descriptors) has their unit and no entries per MB; one per page-table entry needs them', () => {
    const perEntry = p.claims.filter((c) => c.check.type === 'per-entry');
    for (const c of perEntry) {
      const check = c.check as unknown as Cfg;
      if (check['over'] === 'rssMb') assert.equal(check['unit'], 'ns/entry', c.id);
      else assert.equal(check['entriesPerMb'], undefined, `${c.id}: the slope over ${String(check['over'])} is the cost itself`);
    }
    const fcntl = (r: { claims: Cfg[] }) => r.claims.find((c) => c['id'] === 'bun-25839.fcntl-cost-per-limit')!['check'] as Cfg;
    assert.throws(
      bad((r) => void (fcntl(r)['entriesPerMb'] = 1)),
      /entriesPerMb is for ns\/entry/,
    );
    assert.throws(
      bad((r) => void (fcntl(r)['unit'] = 'ns/entry')),
      /entriesPerMb must be/,
    );
  });

  test('the validator refuses a source without an address and without saying why, or without a year', () => {
    const zuv = (r: { sources: Cfg[] }) => r.sources.find((s) => s['id'] === 'zuvloop-41')!;
    assert.throws(
      bad((r) => void (zuv(r)['address'] = null)),
      /addressNote/,
    );
    assert.throws(
      bad((r) => void (zuv(r)['address'] = 'github.com/x')),
      /http/,
    );
    assert.throws(
      bad((r) => void delete zuv(r)['year']),
      /year/,
    );
    assert.throws(
      bad((r) => void ((zuv(r)['figures'] as Cfg[])[0]!['quote'] = 'words')),
      /no quote/,
    );
  });
});

describe('sources: their claims judged on fixture runs', () => {
  test('judgeDocuments judges the sources its runs cover, every verdict naming its source', () => {
    const j = judgeDocuments(docs(), { seed: 1 });
    assert.deepEqual(
      j.sources,
      p.sources.map((s) => s.id),
    );
    const fromSources = j.verdicts.filter((v) => v.source !== undefined);
    assert.equal(fromSources.length, p.claims.filter((c) => c.source !== undefined).length);
    for (const v of fromSources) {
      assert.equal(v.article, undefined, v.claimId);
      assert.ok(v.claimId.startsWith(`${v.source}.`), v.claimId);
    }
    // Asked for articles only (reproduce --only 000): no source is judged.
    const only = judgeDocuments(docs(), { seed: 1, articles: ['000'], sources: [] });
    assert.equal(only.sources, undefined);
    assert.ok(only.verdicts.every((v) => v.article === '000'));
  });

  test('a magnitude of a source: fork+exec many times posix_spawn from a large parent holds, and differs when it is not', () => {
    assert.equal(verdictOf('zuvloop-41.fork-many-times-posix-spawn', docs()).verdict, 'holds');
    const close = edit('spawn', { method: 'posix-spawn', rssMb: 1024, thp: 'off' }, setUs(1500));
    assert.equal(verdictOf('zuvloop-41.fork-many-times-posix-spawn', docs(close)).verdict, 'differs');
  });

  test("Node's spawn grows with its heap (forklab judge on a runtimes run): holds on the fixture, differs when the heap costs nothing", () => {
    assert.equal(verdictOf('node-48523.spawn-grows-with-heap', docs()).verdict, 'holds');
    const flat = edit('runtimes', { variant: 'node/spawn' }, setUs(900));
    assert.equal(verdictOf('node-48523.spawn-grows-with-heap', docs(flat)).verdict, 'differs');
  });

  test("Bun's descriptor claims: a loop that grows with the limit and close_range flat hold on data shaped so, and differ on the opposite", () => {
    const shaped = structuredClone(FIXTURES['fds']!);
    for (const c of shaped.configurations as Cfg[]) {
      const n = c['nofile'] as number;
      const us = c['way'] === 'fork-fcntl-loop' ? 300 + 0.2 * n : 300;
      c['samplesNs'] = (c['samplesNs'] as number[]).map((_, i) => us * 1000 * jitterAt(c, i));
    }
    const ds = docs({ fds: shaped });
    assert.equal(verdictOf('bun-25839.fcntl-loop-grows-with-limit', ds).verdict, 'holds');
    assert.equal(verdictOf('bun-25839.close-range-flat', ds).verdict, 'holds');
    assert.equal(verdictOf('bun-25839.fcntl-cost-per-limit', ds).verdict, 'holds');
    const flat = structuredClone(shaped);
    for (const c of flat.configurations as Cfg[]) c['samplesNs'] = (c['samplesNs'] as number[]).map((_, i) => 300_000 * jitterAt(c, i));
    assert.equal(verdictOf('bun-25839.fcntl-loop-grows-with-limit', docs({ fds: flat })).verdict, 'differs');
  });

  test('a cost per VMA or per descriptor is said in its unit, never as entries per MB', () => {
    const units: Record<string, string> = {
      'bun-25839.fcntl-cost-per-limit': 'ns/descriptor',
      'maple-mt-dup.patch-speeds-fork': 'ns/VMA',
      'per-vma-lock-fork.lock-costs-5-percent': 'ns/VMA',
    };
    for (const [id, unit] of Object.entries(units)) {
      const v = verdictOf(id, docs());
      assert.equal(typeof v.measured, 'number', id);
      assert.ok(v.plain?.includes(` ${unit}`), `${id}: ${v.plain}`);
      assert.doesNotMatch(`${v.detail} ${v.plain}`, /entries per MB|ns\/entry/, id);
    }
    assert.match(verdictOf('000.pte-cost-14ns', docs()).detail, /÷ 256 entries per MB = .* ns\/entry/, 'per page-table entry: as before');
  });

  test("Bun's cgroup claim: a cgroup.procs write at least ten times clone3's after the pause", () => {
    const sel = { threads: 0, gapMs: 50 };
    const slow = edit('cgroup', { ...sel, method: 'parent-write' }, setUs(100_000));
    const d = structuredClone(slow['cgroup']!);
    for (const c of d.configurations as Cfg[])
      if (c['method'] === 'clone3-into' && c['threads'] === 0 && c['gapMs'] === 50) c['samplesNs'] = (c['samplesNs'] as number[]).map((_, i) => 1_000_000 * jitterAt(c, i));
    assert.equal(verdictOf('bun-37466.procs-write-vs-clone3', docs({ cgroup: d })).verdict, 'holds');
    for (const c of d.configurations as Cfg[])
      if (c['method'] === 'parent-write' && c['threads'] === 0 && c['gapMs'] === 50) c['samplesNs'] = (c['samplesNs'] as number[]).map((_, i) => 2_000_000 * jitterAt(c, i));
    assert.equal(verdictOf('bun-37466.procs-write-vs-clone3', docs({ cgroup: d })).verdict, 'differs');
  });

  test("the per-VMA lock commit's claim: a sibling thread stalls during fork+exec at least twice its baseline, judged at the largest parent", () => {
    const shaped = structuredClone(FIXTURES['contend']!);
    const top = Math.max(...(shaped.configurations as Cfg[]).filter((c) => c['series'] === 'stall').map((c) => c['rssMb'] as number));
    const stallUs = (c: Cfg) => (c['series'] === 'stall' && c['method'] === 'fork-exec' && c['rssMb'] === top ? 3000 : 40);
    const shape = (us: (c: Cfg) => number) => {
      const d = structuredClone(shaped);
      for (const c of d.configurations as Cfg[])
        if (c['series'] === 'stall' || c['series'] === 'baseline') c['samplesNs'] = Array.from({ length: 10 }, (_, i) => us(c) * 1000 * jitterAt(c, i));
      return docs({ contend: d });
    };
    const verdict = (us: (c: Cfg) => number) => verdictOf('per-vma-lock-fork.siblings-stall-during-fork', shape(us)).verdict;
    assert.equal(verdict(stallUs), 'holds');
    // No stall beyond what scheduling leaves: the stall no longer than its baseline.
    assert.equal(
      verdict(() => 40),
      'differs',
    );
    // A stall only at a smaller parent is not what the claim is judged on (the fixture has two parent sizes).
    assert.ok((shaped.configurations as Cfg[]).some((c) => c['series'] === 'stall' && c['rssMb'] !== top));
    assert.equal(
      verdict((c) => (c['series'] === 'stall' && c['rssMb'] !== top ? 3000 : 40)),
      'differs',
    );
  });

  test('a claim comparing two kernels or builds is never a verdict: this machine’s figure beside it, saying why', () => {
    const two = p.claims.filter((c) => c.notJudgeable !== undefined);
    assert.deepEqual(two.map((c) => c.source).sort(), ['electron-53117', 'maple-mt-dup', 'node-48523', 'per-vma-lock-fork']);
    for (const c of two) {
      const v = verdictOf(c.id, docs());
      assert.equal(v.verdict, 'not-measurable', c.id);
      assert.ok(v.detail.startsWith(`not judgeable here: ${claim(c.id).notJudgeable}`), c.id);
      assert.equal(typeof v.measured, 'number', `${c.id}: this machine's figure is shown beside it`);
      assert.match(v.detail, /this machine's figure beside it: /);
    }
  });
});
