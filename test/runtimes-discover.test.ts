// Runtime discovery and the options of `forklab runtimes`: absent runtimes are listed with the command that
// adds them (never an error), --runtime adds or replaces one, bad input names its flag before any work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareVersions, discoverRuntimes } from '../src/experiments/runtimes/discover.js';
import { familyOfName } from '../src/experiments/runtimes/registry.js';
import { parseRuntimes } from '../src/experiments/runtimes/params.js';
import { UsageError } from '../src/experiments/types.js';

function emptyDirs() {
  const dir = mkdtempSync(join(tmpdir(), 'forklab-rt-'));
  return { dir, env: { PATH: join(dir, 'bin'), HOME: join(dir, 'home') }, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

test('with nothing on PATH, only this Node is found; every other runtime is absent with its install command', { timeout: 60_000 }, async () => {
  const d = emptyDirs();
  try {
    const entries = await discoverRuntimes({ env: d.env, jvmDir: join(d.dir, 'jvm') });
    const node = entries.find((e) => e.family === 'node');
    assert.equal(node?.state, 'found');
    if (node?.state === 'found') {
      assert.equal(node.version, process.versions.node);
      assert.equal(node.selected, true);
    }
    for (const family of ['python', 'java', 'perl', 'go', 'ruby', 'bun', 'deno'] as const) {
      const e = entries.find((x) => x.family === family);
      assert.equal(e?.state, 'absent', family);
      if (e?.state === 'absent') assert.match(e.install, /install/);
    }
  } finally {
    d.cleanup();
  }
});

test('--runtime NAME=PATH adds a runtime; one that does not run is listed as broken, not thrown', { timeout: 60_000 }, async () => {
  const d = emptyDirs();
  try {
    const fake = join(d.dir, 'python-fake');
    writeFileSync(fake, '#!/bin/sh\nexit 1\n');
    chmodSync(fake, 0o755);
    const entries = await discoverRuntimes({
      env: d.env,
      jvmDir: join(d.dir, 'jvm'),
      extra: [
        { name: 'node-again', family: 'node', path: process.execPath },
        { name: 'python-broken', family: 'python', path: fake },
      ],
    });
    const again = entries.find((e) => e.state === 'found' && e.name === 'node-again');
    assert.equal(again?.state === 'found' && again.origin, 'flag');
    const broken = entries.find((e) => e.state === 'broken');
    assert.equal(broken?.state === 'broken' && broken.name, 'python-broken');
  } finally {
    d.cleanup();
  }
});

test('bad input names the flag', () => {
  const cases: [Record<string, string>, string][] = [
    [{ heapMb: '0,lots' }, '--heap-mb'],
    [{ heapMb: '-1' }, '--heap-mb'],
    [{ runtime: 'python3.9' }, '--runtime'],
    [{ runtime: 'ruby3=/bin/sh' }, '--runtime'],
    [{ runtime: 'python3.9=/nonexistent/python' }, '--runtime'],
    [{ runtime: `node=${process.execPath},node=${process.execPath}` }, '--runtime'],
    [{ variants: 'node/fork' }, '--variants'],
    [{ heapKinds: 'tuples' }, '--heap-kinds'],
    [{ repeats: '0' }, '--repeats'],
    [{ ciTarget: '200' }, '--ci-target'],
  ];
  for (const [raw, flag] of cases)
    assert.throws(
      () => parseRuntimes(raw),
      (e: unknown) => e instanceof UsageError && e.flag === flag,
      JSON.stringify(raw),
    );
});

test('defaults and --quick', () => {
  const d = parseRuntimes({});
  assert.deepEqual(d.heapMb, [0, 256, 1024]);
  assert.equal(d.strace, true);
  const q = parseRuntimes({ quick: true });
  assert.ok(Math.max(...q.heapMb) < 1024 && q.repeats === 1);
  assert.deepEqual(parseRuntimes({ quick: true, heapMb: '0,64' }).heapMb, [0, 64], 'an explicit flag wins over --quick');
  assert.equal(parseRuntimes({ strace: false }).strace, false);
});

test('names tell the family; versions compare numerically', () => {
  assert.equal(familyOfName('python3.12'), 'python');
  assert.equal(familyOfName('java21'), 'java');
  assert.equal(familyOfName('temurin25'), 'java');
  assert.equal(familyOfName('node22'), 'node');
  assert.equal(familyOfName('perl'), 'perl');
  assert.equal(familyOfName('ruby'), null);
  assert.ok(compareVersions('3.9.18', '3.13.0') < 0);
  assert.ok(compareVersions('25.0.3', '17.0.15') > 0);
  assert.equal(compareVersions('5.36.0', '5.36'), 0);
});
