// The package's side-by-side tests under every Node in $FORKLAB_TEST_RUNTIMES (node-22.x, node-24.x,
// node-26.x: .ci/fetch-runtimes.sh; /tmp/rtcache locally), with the same addon binary (N-API): Node 22
// passes the handle an options object, 24 and 26 positional arguments. Skipped, saying why, when unset.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { addonPath, pkgDir } from './helpers/addon.js';

const root = process.env.FORKLAB_TEST_RUNTIMES;
const files = ['functions', 'security', 'sync', 'workers'].map((f) => join(pkgDir, 'test', `${f}.test.ts`));
const runtimes =
  root && existsSync(root)
    ? readdirSync(root)
        .filter((d) => /^node-\d+\./.test(d))
        .sort()
    : [];

if (runtimes.length === 0) {
  test('the package on Node 22, 24 and 26', { skip: root ? `no node-* runtime in ${root}` : 'FORKLAB_TEST_RUNTIMES is not set (see .ci/fetch-runtimes.sh)' }, () => {});
}
for (const dir of runtimes) {
  test(`the package's side-by-side tests on ${dir}`, () => {
    const node = join(root as string, dir, 'bin', 'node');
    const env: NodeJS.ProcessEnv = { ...process.env, FORKLAB_SPAWN_ADDON: addonPath, NODE_OPTIONS: '' };
    delete env.NODE_TEST_CONTEXT; // its own run, reporting in TAP here, not to this test runner
    const r = spawnSync(node, ['--import', 'tsx', '--test', '--test-reporter=tap', '--test-concurrency=1', ...files], {
      cwd: join(pkgDir, '..', '..'),
      encoding: 'utf8',
      timeout: 600_000,
      env,
    });
    const failed = r.stdout.split('\n').filter((l) => l.startsWith('not ok'));
    assert.equal(r.status, 0, `${dir}: ${failed.join('; ')}\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-2000)}`);
    assert.match(r.stdout, /^# pass [1-9]/m);
  });
}
