// `forklab judge`: the verdicts of stored runs and exported documents, without measuring, through the same
// path as `forklab reproduce` (judgeDocuments + renderSummary). No probe runs here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { judgeDocuments, VERDICTS_BY_MACHINE_SCHEMA, VERDICTS_SCHEMA } from '../src/claims/judge.js';
import { readVerdicts } from '../src/claims/documents.js';
import { DocumentError } from '../src/document/validate.js';
import type { RunDocument } from '../src/document/run.js';
import { fakeDocument } from './fixtures/store/fake.js';
import { runCli, sandbox } from './helpers/cli.js';

const box = sandbox();
const tmp = box.dir;
/** A claims fixture as a complete run document (a machine record, load samples), written to a file. */
const doc = (name: string): RunDocument => {
  const raw = JSON.parse(readFileSync(new URL(`./claims-fixtures/${name}.json`, import.meta.url), 'utf8')) as RunDocument;
  const full = fakeDocument([], { experiment: name, params: raw.params ?? {} });
  return { ...full, configurations: raw.configurations.map((c) => ({ ...c, stats: null })) };
};
const fixture = (name: string) => {
  const file = join(tmp, `${name}.json`);
  writeFileSync(file, JSON.stringify(doc(name)));
  return file;
};

const cli = (...args: string[]) => runCli(box, args);

test('judge FILE…: the articles the documents cover, the same verdicts as judgeDocuments', () => {
  const r = cli('judge', fixture('create'), fixture('exec'), '--json');
  assert.equal(r.code, 0, r.stderr);
  const out = readVerdicts(r.stdout, 'judge --json')[0]!;
  assert.equal(out.schema, VERDICTS_SCHEMA);
  assert.deepEqual(out.articles, ['002', '004']);
  assert.deepEqual(
    out.runs.map((x) => x.experiment),
    ['create', 'exec'],
  );
  const direct = judgeDocuments([doc('create'), doc('exec')], { seed: 1 });
  assert.deepEqual(JSON.parse(JSON.stringify(direct.verdicts)), out.verdicts);
  assert.ok(
    out.verdicts.every((v) => v.verdict === 'holds'),
    out.verdicts.map((v) => `${v.claimId} ${v.verdict}`).join(', '),
  );
  const text = cli('judge', fixture('create'));
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /Article 002 — /);
  assert.match(text.stdout, /Claims: 8 hold, 0 differ, 0 inconclusive, 0 not measurable/);
  assert.match(text.stdout, /judged from 1 run without measuring; seed 1/);
});

test('judge RUN: a stored run, by id, after import; a reproduce --json file with embedded runs', () => {
  const imp = cli('import', fixture('deadlock'));
  assert.equal(imp.code, 0, imp.stderr);
  const r = cli('judge', imp.stdout.trim(), '--json');
  assert.equal(r.code, 0, r.stderr);
  const out = readVerdicts(r.stdout, 'judge --json')[0]!;
  assert.deepEqual(out.articles, ['003']);
  const byId = Object.fromEntries(out.verdicts.map((v) => [v.claimId, v]));
  assert.equal(byId['003.deadlock-without-atfork']!.verdict, 'holds');
  assert.equal(byId['003.sparse-pagetables-large']!.verdict, 'not-measurable');
  assert.equal(byId['003.sparse-pagetables-large']!.detail, 'no run of pagetables was given');
  const rep = join(tmp, 'reproduce.json');
  writeFileSync(rep, JSON.stringify({ schema: 'forklab.reproduce', schemaVersion: 1, runs: [doc('create')] }));
  const fromRep = readVerdicts(cli('judge', rep, '--json').stdout, 'judge --json')[0]!;
  assert.deepEqual(fromRep.articles, ['002']);
});

test('judge: an unknown run or an unreadable file is a clear error, nothing judged', () => {
  const missing = cli('judge', join(tmp, 'nope.json'));
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /forklab judge: /);
  const bad = join(tmp, 'bad.json');
  writeFileSync(bad, '{"schema":"forklab.run"');
  const r = cli('judge', bad);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /bad\.json: /);
  assert.equal(r.stdout, '');
});

test('the verdicts reader: a document judge --json did not write, or one with a wrong key, is named with its file and key', () => {
  const good = readVerdicts(cli('judge', fixture('create'), '--json').stdout, 'v.json')[0]!;
  const text = (o: unknown) => JSON.stringify(o);
  const refused = (t: string, re: RegExp) =>
    assert.throws(
      () => readVerdicts(t, 'v.json'),
      (e: unknown) => e instanceof DocumentError && re.test(e.message),
    );
  refused('', /^v\.json: the file is empty/);
  refused('{"schema":', /^v\.json: not valid JSON/);
  refused(text({ schema: 'forklab.run', schemaVersion: 1 }), /^v\.json: not a forklab verdicts document: schema is "forklab\.run"/);
  refused(text({ ...good, schemaVersion: 9 }), /^v\.json: schemaVersion 9 is not read by this forklab \(it reads 2\)/);
  const wrong = { ...good, verdicts: good.verdicts.map((v, i) => (i === 1 ? { ...v, verdict: 'maybe' } : v)) };
  refused(text(wrong), /^v\.json: verdicts\[1\]\.verdict is not one of holds, differs, inconclusive, not-measurable \(got "maybe"\)/);
  const { runs: _runs, ...noRuns } = good;
  refused(text(noRuns), /^v\.json: runs is missing/);
  refused(text({ schema: VERDICTS_BY_MACHINE_SCHEMA, schemaVersion: 1, byMachine: [good, { ...good, seed: 'x' }] }), /^v\.json: byMachine\[1\]\.seed is not a finite number/);
});

test('judge prints each claim in plain words; --verbose adds its id, kind and formula', () => {
  const plain = cli('judge', fixture('create'), '--wide');
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /this machine: [\d.]+× \[95 % CI /, 'the measured figure in words');
  assert.match(plain.stdout, /the article: 1\.80×, agreeing from 1\.40× to 2\.60×/, "the article's figure and the range that agrees");
  assert.doesNotMatch(plain.stdout, /median\(method=|\[magnitude\]|\[shape\]|002\.[a-z]/, 'no formula, kind or claim id');
  const verbose = cli('judge', fixture('create'), '--verbose');
  assert.equal(verbose.code, 0, verbose.stderr);
  assert.match(verbose.stdout, /\[magnitude\] 002\.[a-z-]+/, 'kind and claim id');
  // (a long line wraps at 100 columns: joined again here; the plain run above prints them whole with --wide)
  assert.match(verbose.stdout.replace(/\n +/g, ' '), /median\(method=fork-waitpid\) ÷ median\(method=pthread-create-join\) = /, 'the formula');
});

test('every verdict the fixtures give has a plain line: the article-side words, no formula, no selector, no camelCase key', () => {
  const names = ['spawn', 'cow', 'create', 'deadlock', 'exec', 'pagetables', 'vma'];
  const { verdicts } = judgeDocuments(
    names.map((n) => doc(n)),
    { seed: 1 },
  );
  const judged = verdicts.filter((v) => v.verdict !== 'not-measurable');
  assert.ok(judged.length > 40, `${judged.length} verdicts judged`);
  for (const v of judged) {
    assert.ok(v.plain, `${v.claimId}: no plain line`);
    assert.match(v.plain, /^this machine: /, v.claimId);
    assert.doesNotMatch(v.plain, /\w=\w|median\(|mean\(|[a-z][A-Z][a-z]|✗/, `${v.claimId}: ${v.plain}`);
  }
});

test('what would settle an inconclusive verdict fits the run: --pin 0 only for runs that were not pinned', () => {
  // posix_spawn's second repeats 30 % dearer: its repeats disagree far beyond the other cells', so its own two speak
  // for it and the verdict is open within the run (the pooled scatter of the others would decide it)
  const base = doc('spawn');
  const unpinned = {
    ...base,
    configurations: base.configurations.map((c) => (c.series === 'posix-spawn' && c.repeat === 2 ? { ...c, samplesNs: c.samplesNs.map((x) => Math.round(x * 1.3)) } : c)),
  };
  const pinned = { ...unpinned, machine: { ...unpinned.machine, pinnedCpu: 0 } };
  const settle = (d: RunDocument) => judgeDocuments([d], { seed: 1 }).verdicts.find((v) => v.claimId === '000.posix-spawn-near-vfork')!;
  const a = settle({ ...unpinned, machine: { ...unpinned.machine, pinnedCpu: null } });
  const b = settle(pinned);
  assert.equal(a.verdict, 'inconclusive');
  assert.equal(b.verdict, 'inconclusive');
  assert.match(a.settle!, /--pin 0/);
  assert.doesNotMatch(b.settle!, /--pin/);
  assert.match(b.settle!, /more repeats/);
});

test('judge groups runs by machine: each machine judged on its own runs; --mix-machines pools them and every verdict says so', () => {
  const a = doc('create');
  const b = { ...doc('create'), machine: { ...a.machine, hostname: 'otherhost', loadAverage: [3, 2, 1] as [number, number, number] } };
  const fa = join(tmp, 'create-a.json');
  const fb = join(tmp, 'create-b.json');
  writeFileSync(fa, JSON.stringify(a));
  writeFileSync(fb, JSON.stringify(b));
  const text = cli('judge', fa, fb);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /The runs come from 2 machines \(node testhost vs otherhost\): each is judged on its own runs/);
  assert.match(text.stdout, /Machine 1 of 2: testhost .*\n[\s\S]*Machine 2 of 2: otherhost/);
  assert.equal((text.stdout.match(/Claims: 8 hold/g) ?? []).length, 2, 'each machine judged on its own run');
  const json = cli('judge', fa, fb, '--json').stdout;
  assert.equal(JSON.parse(json).schema, VERDICTS_BY_MACHINE_SCHEMA);
  assert.equal(readVerdicts(json, 'judge --json').length, 2);
  const mixedText = cli('judge', fa, fb, '--json', '--mix-machines').stdout;
  const mixed = readVerdicts(mixedText, 'judge --json')[0]!;
  assert.equal(JSON.parse(mixedText).mixedMachines, true);
  assert.ok(
    mixed.verdicts.every((v) => v.notes.some((n) => /pooled from 2 machines .*--mix-machines/.test(n))),
    'every pooled verdict says so',
  );
  // The same machine under another load is one machine.
  const c = { ...doc('create'), machine: { ...a.machine, loadAverage: [9, 9, 9] as [number, number, number], memAvailableKb: 1 } };
  const fc = join(tmp, 'create-c.json');
  writeFileSync(fc, JSON.stringify(c));
  assert.doesNotMatch(cli('judge', fa, fc).stdout, /machines/);
});
