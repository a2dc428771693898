// .ci/run off the network: with a fake apt-get and npm on PATH (nothing is installed, no test is run), it stops
// before the tests when apt cannot reach its mirror, and names a package it could not install but goes on
// (FORKLAB_CI_ONLY_TESTS=1: the packaging checks after the tests need real tools; .ci/tarball-install.sh and
// .ci/arm64.sh are tried for real instead).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './helpers/tmp.js';

const SCRIPT = fileURLToPath(new URL('../.ci/run', import.meta.url));

/** A PATH with the real tools .ci/run needs, no strace (so it must install something), and fakes for apt-get and npm. */
function fakePath(apt: { update: number; install: number }): { bin: string; npmLog: string; home: string } {
  const dir = tempDir('forklab-ci-');
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const tool of ['bash', 'env', 'dirname', 'timeout', 'gcc', 'make', 'python3', 'cat']) {
    const real = spawnSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8', timeout: 10_000 }).stdout.trim();
    if (real) symlinkSync(real, join(bin, tool));
  }
  const npmLog = join(dir, 'npm.log');
  writeFileSync(join(bin, 'apt-get'), `#!/bin/sh\ncase "$1" in update) exit ${apt.update};; install) exit ${apt.install};; esac\nexit 0\n`);
  writeFileSync(join(bin, 'npm'), `#!/bin/sh\necho "npm $*" >> ${npmLog}\nexit 0\n`);
  chmodSync(join(bin, 'apt-get'), 0o755);
  chmodSync(join(bin, 'npm'), 0o755);
  return { bin, npmLog, home: dir };
}

function ci(apt: { update: number; install: number }) {
  const f = fakePath(apt);
  const r = spawnSync(join(f.bin, 'bash'), [SCRIPT], { encoding: 'utf8', timeout: 60_000, env: { PATH: f.bin, HOME: f.home, FORKLAB_CI_ONLY_TESTS: '1' } });
  return { code: r.status, stderr: r.stderr, stdout: r.stdout, npm: existsSync(f.npmLog) ? readFileSync(f.npmLog, 'utf8') : '' };
}

test('apt cannot reach its mirror: stop before any test, saying so', () => {
  const r = ci({ update: 100, install: 0 });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /apt cannot reach its mirror .*strace.* cannot be installed; stopping before the tests/);
  assert.equal(r.npm, '', 'no npm ci, no npm test');
});

test('a package that cannot be installed: named, and the tests still run', () => {
  const r = ci({ update: 0, install: 100 });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /could not install: .*strace.*apt-get install -y/);
  // The README's test command is what runs last (runtime fetches through `npm pack` may come before it).
  const commands = r.npm.split('\n').filter((line) => line !== '' && !line.startsWith('npm pack '));
  assert.deepEqual(commands.slice(0, 2), ['npm ci', 'npm test']);
});
