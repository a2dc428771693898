// A PATH search right after a call that failed and left errno set, side by side with child_process: spawn('true')
// and spawnSync('true') after tty.isatty(1) on a pipe (errno ENOTTY) or a read from an empty non-blocking FIFO
// (EAGAIN), with PATH entries before /usr/bin that lack the command (a directory without it, one that does not
// exist). Both must start `true` and see it exit 0, and forklab must have served each call. An addon carrying a
// stat() of its own (Zig 0.11's, for glibc 2.17) binds it where glibc has no `stat` (glibc < 2.33): its failing
// stat() leaves glibc's errno as it was, and the search stopped at the first entry with that stale error (spawn
// ENOTTY). Only an old userland shows it: .ci/oldlibc.sh runs this file in Debian 11 (glibc 2.31) with the
// prebuild; here it must pass too. Each run is a fresh Node whose stdout is a pipe, with the addon loaded first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tempDir } from '../../../test/helpers/tmp.js';
import { pkgDir } from './helpers/addon.js';

const tmp = realpathSync(tempDir('forklab-spawn-errno-'));
const empty = join(tmp, 'empty');
mkdirSync(empty);
const fifo = join(tmp, 'fifo');
execFileSync('mkfifo', [fifo], { timeout: 10_000 });
const PATH = `${empty}:${join(tmp, 'absent')}:/usr/bin:/bin`;

// The child: loads forklab (and its addon: loading sets errno too), then per case leaves errno set by a failing
// call and, in the same synchronous run, starts `true` through child_process or forklab; prints one JSON line.
const CHILD = `import * as cp from 'node:child_process';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import tty from 'node:tty';
const forklab = await import(${JSON.stringify(pathToFileURL(join(pkgDir, 'src', 'index.ts')).href)});
const [setter, fifo, PATH] = process.argv.slice(2);
if (forklab.unavailableReason()) throw new Error(forklab.unavailableReason());
forklab.spawnSync('/bin/true');
const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
function leaveErrno() {
  if (setter === 'enotty') {
    if (tty.isatty(1)) throw new Error('stdout is a terminal: isatty sets no error');
  } else {
    try { readSync(fd, Buffer.alloc(1)); throw new Error('the FIFO had data'); } catch (e) { if (e.code !== 'EAGAIN') throw e; }
  }
}
const opts = { env: { PATH }, timeout: 30000, killSignal: 'SIGKILL' };
async function spawnOnce(impl) {
  const events = [];
  leaveErrno();
  let c;
  try { c = impl.spawn('true', [], opts); } catch (e) { return ['threw ' + e.code]; }
  c.on('error', (e) => events.push('error ' + e.code + ' ' + e.syscall));
  await new Promise((r) => c.on('close', (code, sig) => r(events.push('close ' + code + ' ' + sig))));
  return events;
}
function syncOnce(impl) {
  leaveErrno();
  const r = impl.spawnSync('true', [], opts);
  return [r.error ? 'error ' + r.error.code + ' ' + r.error.syscall : 'status ' + r.status + ' ' + r.signal];
}
const before = forklab.registerStats().served;
const out = {
  spawn: { child_process: await spawnOnce(cp), forklab: await spawnOnce(forklab) },
  spawnSync: { child_process: syncOnce(cp), forklab: syncOnce(forklab) },
  served: forklab.registerStats().served - before,
};
closeSync(fd);
console.log(JSON.stringify(out));
`;
const script = join(tmp, 'errno-child.mjs');
writeFileSync(script, CHILD);

for (const [setter, what] of [
  ['enotty', 'tty.isatty(1) on a pipe (ENOTTY)'],
  ['eagain', 'a read from an empty non-blocking FIFO (EAGAIN)'],
] as const) {
  test(`after ${what}, spawn('true') and spawnSync('true') search PATH past entries without it, as child_process`, () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', script, setter, fifo, PATH], {
      cwd: pkgDir,
      encoding: 'utf8',
      timeout: 90_000,
      killSignal: 'SIGKILL',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    assert.equal(r.status, 0, `${r.stderr}${r.stdout}`);
    const out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '');
    assert.deepEqual(out.spawn.child_process, ['close 0 null']);
    assert.deepEqual(out.spawnSync.child_process, ['status 0 null']);
    assert.deepEqual(out.spawn.forklab, out.spawn.child_process, 'spawn');
    assert.deepEqual(out.spawnSync.forklab, out.spawnSync.child_process, 'spawnSync');
    assert.equal(out.served, 2, 'forklab served both calls (else child_process answered for it)');
  });
}
