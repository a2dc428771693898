// Machines side by side, on real runs of this machine (spawn, vma, deadlock from `forklab fleet run` here) copied
// into four machines whose records were changed: gp-1 as measured, gp-2 the same samples on another node,
// ctr-1 with a seccomp filter in its record, mem-1 in another pool with another kernel, THP never, and — the one
// constructed difference — its fork-exec samples doubled, so that the comparison has something real to find.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { readFleet } from '../src/claims/documents.js';
import { buildFleet } from '../src/claims/fleet.js';
import { fleetHtml, fleetMarkdown } from '../src/report/fleet.js';
import { judgeDocuments } from '../src/claims/judge.js';
import { machineKey } from '../src/env/machine-key.js';
import type { RunDocument } from '../src/document/run.js';
import { runCli, sandbox } from './helpers/cli.js';
import { tempDir } from './helpers/tmp.js';

const FIX = join(import.meta.dirname, 'fixtures', 'fleet');
const real = ['spawn', 'vma', 'deadlock'].map((n) => JSON.parse(readFileSync(join(FIX, `${n}.json`), 'utf8')) as RunDocument);

interface Spec {
  node: string;
  pool: string;
  change: Record<string, unknown>;
  forkScale: number;
}
const SPECS: Spec[] = [
  { node: 'gp-1', pool: 'gp', change: {}, forkScale: 1 },
  { node: 'gp-2', pool: 'gp', change: {}, forkScale: 1 },
  { node: 'ctr-1', pool: 'gp', change: { seccompMode: 2, seccompFilters: 1 }, forkScale: 1 },
  { node: 'mem-1', pool: 'mem', change: { kernel: '6.8.0-1015-aws', thpEnabled: 'never' }, forkScale: 2 },
];

function machineDocs(s: Spec): RunDocument[] {
  return real.map((d) => {
    const doc = structuredClone(d);
    Object.assign(doc.machine, s.change);
    doc.machine.placement = {
      engine: 'kubernetes',
      node: s.node,
      pool: s.pool,
      labels: { 'node.kubernetes.io/instance-type': s.pool === 'gp' ? 'm7i.large' : 'r7i.large' },
      source: `pod/forklab-${s.node}`,
    };
    doc.runId = randomUUID();
    if (s.forkScale !== 1) for (const c of doc.configurations) if (c.series === 'fork-exec') c.samplesNs = (c.samplesNs as number[]).map((x) => x * s.forkScale);
    return doc;
  });
}

const byMachine = SPECS.map(machineDocs);
const all = byMachine.flat();
const fleet = buildFleet(all, { seed: 1, forklabVersion: 'test', now: new Date('2026-12-01T00:00:00Z') });
const idx = (node: string) => fleet.members.findIndex((m) => m.node === node);

test('fleet document: one member per machine key, columns by pool, the differing fields named', () => {
  assert.equal(fleet.schema, 'forklab.fleet');
  assert.deepEqual(
    fleet.members.map((m) => [m.node, m.pool, m.runs.length]),
    // pool, kernel, THP, seccomp (0 before 2), then node.
    [
      ['gp-1', 'gp', 3],
      ['gp-2', 'gp', 3],
      ['ctr-1', 'gp', 3],
      ['mem-1', 'mem', 3],
    ],
  );
  assert.equal(new Set(fleet.members.map((m) => m.machine)).size, 4);
  for (const m of fleet.members) assert.equal(m.machine, machineKey(all.find((d) => d.machine.placement?.node === m.node)!.machine));
  assert.deepEqual(fleet.differingFields.sort(), ['kernel', 'seccompFilters', 'seccompMode', 'thpEnabled']);
  assert.equal(fleet.members[idx('mem-1')]!.labels['node.kubernetes.io/instance-type'], 'r7i.large');
});

test('fleet document: each machine judged on its own runs, never pooled', () => {
  for (const [i, s] of SPECS.entries()) {
    const own = judgeDocuments(byMachine[i]!, { seed: 1 });
    assert.deepEqual(
      fleet.results[idx(s.node)]!.verdicts.map((v) => [v.claimId, v.verdict]),
      own.verdicts.map((v) => [v.claimId, v.verdict]),
    );
  }
  // The same samples on two nodes: the same verdicts.
  assert.deepEqual(fleet.results[idx('gp-1')]!.verdicts, fleet.results[idx('gp-2')]!.verdicts);
});

test('fleet document: headline figures with intervals, and each machine against the reference', () => {
  for (const r of fleet.results)
    for (const h of r.headline)
      if (h.measured !== null && h.low !== null && h.high !== null)
        assert.ok(h.low <= h.measured + 1e-9 && h.measured <= h.high + 1e-9, `${h.figureId}: ${h.low} ≤ ${h.measured} ≤ ${h.high}`);
  assert.ok(
    fleet.results.some((r) => r.headline.some((h) => h.low !== null)),
    'some headline figure has an interval',
  );
  const ref = fleet.members.findIndex((m) => m.machine === fleet.reference);
  assert.equal(fleet.results[ref]!.versusReference, null);
  // Identical samples: nothing differs. Doubled fork-exec: those configurations are slower, ×2, and only those.
  const same = fleet.results[idx('gp-2')]!.versusReference!;
  const refNode = fleet.members[ref]!.node;
  assert.equal(refNode, 'gp-1');
  {
    assert.ok(same.length > 0);
    assert.ok(same.every((f) => f.verdict === 'same'));
    const mem = fleet.results[idx('mem-1')]!.versusReference!;
    const slower = mem.filter((f) => f.verdict !== 'same');
    assert.ok(slower.length > 0);
    assert.ok(slower.every((f) => f.experiment === 'spawn' && f.label.startsWith('fork-exec') && f.verdict === 'slower'));
    for (const f of slower) assert.ok(Math.abs(f.ratio! - 2) < 1e-9 && f.ratioLow! > 1, `${f.label}: ×${f.ratio} [${f.ratioLow}–${f.ratioHigh}]`);
  }
});

test('fleet report: Markdown and HTML show the four parts', () => {
  const md = fleetMarkdown(fleet);
  assert.match(md, /^# forklab fleet: 4 machines$/m);
  assert.match(md, /\| kernel \*\*!\*\* \|/);
  assert.match(md, /\| cpuModel \|/);
  assert.match(md, /## Claims × machines/);
  assert.match(md, /mem-1 = mem · 6\.8\.0-1015-aws · THP never · seccomp 0/);
  assert.match(md, /### mem-1: [1-9]\d* of \d+ configurations differ/);
  assert.match(md, /### gp-2: 0 of \d+ configurations differ/);
  const html = fleetHtml(fleet);
  assert.match(html, /^<!doctype html>/);
  assert.match(html, /<th class="differs">kernel<\/th>/);
  assert.match(html, /<th colspan="3">gp<\/th><th colspan="1">mem<\/th>/);
  assert.match(html, /<svg viewBox/);
  assert.match(html, /<tr class="real">/);
  assert.doesNotMatch(html, /<script/);
});

test('fleet report: the command line reads a collect directory, and names a bad reference', () => {
  const box = sandbox();
  const dir = tempDir('forklab-fleet-');
  for (const d of all) {
    const sub = join(dir, d.machine.placement!.node!);
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `${d.experiment}-${d.runId!.slice(0, 8)}.json`), JSON.stringify(d));
  }
  writeFileSync(join(dir, 'notes.json'), '{"not":"a run"}');
  const j = runCli(box, ['fleet', 'report', dir, '--json', '-', '--reference', 'gp-1']);
  assert.equal(j.code, 0, j.stderr);
  assert.match(j.stderr, /skipped .*notes\.json: not a forklab run document/);
  const doc = readFleet(j.stdout, 'fleet report --json');
  assert.equal(doc.schema, 'forklab.fleet');
  assert.equal(doc.members.find((m) => m.machine === doc.reference)!.node, 'gp-1');
  // The reader names the file and the key of what is wrong.
  const broken = { ...doc, results: doc.results.map((r, i) => (i === 2 ? { ...r, verdicts: [{ claimId: 'x', verdict: 'maybe' }] } : r)) };
  assert.throws(() => readFleet(JSON.stringify(broken), 'f.json'), /f\.json: results\[2\]\.verdicts\[0\]\.verdict is not one of holds/);
  assert.throws(
    () => readFleet(JSON.stringify({ ...doc, schema: 'forklab.verdicts' }), 'f.json'),
    /f\.json: not a forklab fleet document: schema is "forklab\.verdicts", expected "forklab\.fleet"/,
  );
  const html = join(box.dir, 'fleet.html');
  const h = runCli(box, ['fleet', 'report', dir, '--html', html]);
  assert.equal(h.code, 0, h.stderr);
  assert.match(readFileSync(html, 'utf8'), /forklab fleet: 4 machines/);
  const bad = runCli(box, ['fleet', 'report', dir, '--reference', 'nope']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--reference: "nope" is no machine here; the machines: .*gp-1 \(m-[0-9a-f]{10}\)/);
  const empty = runCli(box, ['fleet', 'report', box.home]);
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /holds no run documents/);
});
