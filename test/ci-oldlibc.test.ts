// .ci/oldlibc.sh when its Debian 11 root filesystem cannot be had: one line saying why, and exit 0 (CI goes on);
// a bad argument: one line naming it, exit 2, before any work. Run with a PATH of real tools less debootstrap, a
// fake apt-get that fails, and an empty cache, so nothing is fetched or installed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './helpers/tmp.js';

const SCRIPT = fileURLToPath(new URL('../.ci/oldlibc.sh', import.meta.url));
const TOOLS = ['bash', 'env', 'dirname', 'basename', 'timeout', 'uname', 'sed', 'grep', 'head', 'tr', 'tail', 'curl', 'date', 'mktemp', 'rm', 'cat'];

function oldlibc(args: string[], opts: { debootstrap: boolean; mirror?: string }) {
  const dir = tempDir('forklab-ci-oldlibc-');
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const tool of TOOLS) {
    const real = spawnSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8', timeout: 10_000 }).stdout.trim();
    if (real) symlinkSync(real, join(bin, tool));
  }
  writeFileSync(join(bin, 'apt-get'), '#!/bin/sh\nexit 100\n');
  chmodSync(join(bin, 'apt-get'), 0o755);
  if (opts.debootstrap) {
    writeFileSync(join(bin, 'debootstrap'), `#!/bin/sh\necho called >> ${join(dir, 'debootstrap.log')}\nexit 1\n`);
    chmodSync(join(bin, 'debootstrap'), 0o755);
  }
  const env: NodeJS.ProcessEnv = { PATH: bin, HOME: dir, TMPDIR: dir, FORKLAB_OLDLIBC_CACHE: join(dir, 'cache') };
  if (opts.mirror) env.FORKLAB_OLDLIBC_MIRROR = opts.mirror;
  const r = spawnSync(join(bin, 'bash'), [SCRIPT, ...args], { encoding: 'utf8', timeout: 60_000, env });
  return { code: r.status, out: `${r.stdout}${r.stderr}`, dir };
}

const onX64 = process.arch === 'x64';

test('no debootstrap and apt cannot install it: skipped, saying so, exit 0', { skip: onX64 ? false : 'the root filesystem is made on x86-64 only' }, () => {
  const r = oldlibc(['--prepare'], { debootstrap: false });
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /^ci: oldlibc: installing debootstrap\nci: oldlibc: skipped: debootstrap cannot be installed \(apt-get install debootstrap failed\)\n$/);
});

test('a mirror that does not serve bullseye: skipped, naming it, exit 0, debootstrap never started', { skip: onX64 ? false : 'the root filesystem is made on x86-64 only' }, () => {
  const r = oldlibc(['--prepare'], { debootstrap: true, mirror: 'http://127.0.0.1:9/debian' });
  assert.equal(r.code, 0, r.out);
  assert.equal(r.out, 'ci: oldlibc: skipped: the mirror http://127.0.0.1:9/debian does not serve Debian bullseye (no dists/bullseye/Release)\n');
  assert.equal(existsSync(join(r.dir, 'debootstrap.log')), false);
});

test('bad arguments: one line naming them, exit 2, nothing done', () => {
  for (const [args, message] of [
    [['--bogus'], /^ci: oldlibc: unknown option --bogus \(usage: /],
    [['no/such.test.ts'], /^ci: oldlibc: no test file no\/such.test.ts\n$/],
    [['--node', '/no/such/node'], /^ci: oldlibc: --node \/no\/such\/node is not an executable\n$/],
  ] as const) {
    const r = oldlibc([...args], { debootstrap: true, mirror: 'http://127.0.0.1:9/debian' });
    assert.equal(r.code, 2, r.out);
    assert.match(r.out, message);
  }
});
