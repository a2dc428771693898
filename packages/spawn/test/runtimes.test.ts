// The package's behaviour tests on every Node release line it supports (20, 22, 24, 26): this Node runs them
// directly; each other line is looked for in $FORKLAB_TEST_RUNTIMES (node-<version>/bin/node, as
// .ci/fetch-runtimes.sh lays them out) and runs the same files there, with the same addon binary (N-API), two
// lines at a time. A line that is not there is a skipped test that says so. Under these runs the 10,000-spawn
// test does 2,000 (FORKLAB_SPAWN_SEQUENTIAL), to keep the suite's time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { addonPath, pkgDir } from './helpers/addon.js';
import { makeInstalled } from './helpers/installed.js';

const BEHAVIOUR_FILES = [
  'api',
  'aside',
  'async',
  'behaviour',
  'functions',
  'hooks',
  'introspection',
  'machine',
  'nofile',
  'owners',
  'path',
  'permission',
  'reaping',
  'security',
  'signals',
  'sync',
  'workers',
];
const LINES = [20, 22, 24, 26];
const root = process.env.FORKLAB_TEST_RUNTIMES;
const here = Number(process.versions.node.split('.')[0]);

function find(major: number): string | null {
  if (!root || !existsSync(root)) return null;
  const dirs = readdirSync(root)
    .filter((d) => d.startsWith(`node-${major}.`) && existsSync(join(root, d, 'bin', 'node')))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const last = dirs.at(-1);
  return last ? join(root, last, 'bin', 'node') : null;
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function runOn(node: string): Promise<Run> {
  const files = BEHAVIOUR_FILES.map((f) => join(pkgDir, 'test', `${f}.test.ts`));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    FORKLAB_SPAWN_ADDON: addonPath,
    FORKLAB_SPAWN_SEQUENTIAL: '2000',
    FORKLAB_TEST_INSTALLED: makeInstalled().project,
    NODE_OPTIONS: '',
  };
  delete env.NODE_TEST_CONTEXT; // its own run, reporting in TAP here, not to this test runner
  return new Promise((resolve) => {
    const c = spawn(node, ['--import', 'tsx', '--test', '--test-reporter=tap', '--test-concurrency=1', ...files], { cwd: join(pkgDir, '..', '..'), env });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d) => (stdout += d));
    c.stderr.on('data', (d) => (stderr += d));
    const limit = setTimeout(() => c.kill('SIGKILL'), 900_000);
    c.on('close', (status) => {
      clearTimeout(limit);
      resolve({ status, stdout, stderr });
    });
  });
}

const others = LINES.filter((m) => m !== here).map((m) => [m, find(m)] as const);
const found = others.filter(([, node]) => node !== null) as [number, string][];
// two lines at a time: most of these tests wait on children, not on the CPU
const runs = new Map<number, Promise<Run>>();
const slots = [Promise.resolve(), Promise.resolve()];
found.forEach(([major, node], i) => {
  const slot = i % slots.length;
  const p = (slots[slot] as Promise<unknown>).then(() => runOn(node));
  slots[slot] = p.then(() => undefined);
  runs.set(major, p);
});

for (const [major, node] of others) {
  if (!node) {
    const why = root ? `no node-${major}.* under ${root}` : 'FORKLAB_TEST_RUNTIMES is not set (.ci/fetch-runtimes.sh fetches the release lines)';
    test(`the package's behaviour tests on Node ${major}`, { skip: why }, () => {});
    continue;
  }
  test(`the package's behaviour tests on Node ${major} (${node})`, async () => {
    const r = await (runs.get(major) as Promise<Run>);
    const failed = r.stdout.split('\n').filter((l) => /^\s*not ok/.test(l) && !/# SKIP/.test(l));
    assert.equal(r.status, 0, `Node ${major}: ${failed.join('; ')}\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-2000)}`);
    assert.match(r.stdout, /^# pass [1-9]/m);
    assert.match(r.stdout, /^# fail 0$/m);
  });
}
