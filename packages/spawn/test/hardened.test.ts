// Hardened and limited processes, side by side with child_process: a process whose RLIMIT_NPROC is reached
// (fork, clone and posix_spawn fail with EAGAIN), one with no_new_privs set (prctl PR_SET_NO_NEW_PRIVS, as
// systemd's NoNewPrivileges= and container runtimes set it) and a non-dumpable one (prctl PR_SET_DUMPABLE 0, as
// services that hold secrets set it: its /proc/PID is root's, its own uid cannot ptrace it; a posix_spawn child
// shares its memory, and so its dumpable flag, until the exec, which resets it). Each case is a fresh Node (as
// uid 65534 when the tests run as root, whom RLIMIT_NPROC does not bind), which makes the same calls through
// child_process and through forklab and prints what each gave; forklab must have served its calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tempDir } from '../../../test/helpers/tmp.js';
import { addonPath, pkgDir } from './helpers/addon.js';
import { cfixture, cfixtureWhyNot } from './helpers/cfixture.js';

const tmp = tempDir('forklab-spawn-hardened-');
chmodSync(tmp, 0o755);
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`], { timeout: 10_000 }).status === 0;
const root = process.getuid?.() === 0;

// MODE nproc: lowers its own RLIMIT_NPROC to 1 (prlimit on its own pid: lowering needs no privilege), so that
// every new process or thread of its uid fails. MODE nnp: as it was started (under setpriv --no-new-privs).
// MODE nondumpable: the addon at argv[3] clears its dumpable flag; the child says who owns its /proc/PID/fd and
// its parent's, and whether it can list its own descriptors and its parent's.
const CHILD = `import * as cp from 'node:child_process';
import { createRequire } from 'node:module';
const forklab = await import(${JSON.stringify(pathToFileURL(join(pkgDir, 'dist', 'index.js')).href)});
const [mode, dumpableAddon] = process.argv.slice(2);
if (forklab.unavailableReason()) throw new Error(forklab.unavailableReason());
forklab.spawnSync('/bin/true'); // the addon loaded, its probes made
if (mode === 'nproc') {
  const lim = cp.spawnSync('prlimit', ['--pid', String(process.pid), '--nproc=1'], { encoding: 'utf8', timeout: 10000 });
  if (lim.status !== 0) throw new Error('prlimit: ' + lim.stderr);
}
if (mode === 'nondumpable') {
  const now = createRequire(import.meta.url)(dumpableAddon).setDumpable(0);
  if (now !== 0) throw new Error('PR_SET_DUMPABLE 0 did not hold: ' + now);
}
const proc = 'stat -c "self-fd=%u" /proc/self/fd; stat -c "parent-fd=%u" /proc/$PPID/fd; ls /proc/self/fd >/dev/null 2>&1 && echo own-fds=listed || echo own-fds=refused; ls /proc/$PPID/fd >/dev/null 2>&1 && echo parent-fds=listed || echo parent-fds=refused';
const args = ['-c', 'grep -E "^(NoNewPrivs|Seccomp):" /proc/self/status; echo uid=$(id -u)' + (mode === 'nondumpable' ? '; ' + proc : '')];
const opts = { encoding: 'utf8', timeout: 20000, killSignal: 'SIGKILL' };
const describe = (e) => [e.code, e.syscall, e.message, e.path, e.spawnargs].join(' | ');
async function calls(m) {
  const out = {};
  const r = m.spawnSync('/bin/sh', args, opts);
  out.spawnSync = r.error ? 'error ' + describe(r.error) : ['status', r.status, r.stdout].join(' ');
  try { out.execFileSync = m.execFileSync('/bin/sh', args, opts); } catch (e) { out.execFileSync = 'threw ' + describe(e); }
  let c;
  try { c = m.spawn('/bin/sh', args, opts); } catch (e) { out.spawn = 'threw ' + describe(e); }
  if (c) {
    let text = '';
    c.stdout.on('data', (d) => (text += d));
    out.spawn = await new Promise((res) => {
      c.on('error', (e) => res('error ' + describe(e) + ' pid ' + typeof c.pid));
      c.on('close', (code) => res(['close', code, text].join(' ')));
    });
  }
  out.exec = await new Promise((res) => m.exec('/bin/sh -c "id -u"', opts, (err, stdout) => res(err ? 'error ' + describe(err) : 'ok ' + stdout)));
  return out;
}
const before = forklab.registerStats().served;
const theirs = await calls(cp);
const ours = await calls(forklab);
console.log(JSON.stringify({ theirs, ours, served: forklab.registerStats().served - before }));
`;
const script = join(tmp, 'hardened-child.mjs');
writeFileSync(script, CHILD);
chmodSync(script, 0o644);

interface Out {
  theirs: Record<string, string>;
  ours: Record<string, string>;
  served: number;
}

function run(wrap: string[], mode: string, extra: string[] = []): Out {
  const asNobody = root ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
  const [file, ...rest] = [...asNobody, ...wrap, process.execPath, script, mode, ...extra];
  const r = spawnSync(file as string, rest, {
    cwd: tmp,
    encoding: 'utf8',
    timeout: 60_000,
    killSignal: 'SIGKILL',
    env: { PATH: process.env.PATH, FORKLAB_SPAWN_ADDON: addonPath },
  });
  assert.equal(r.status, 0, `${r.stderr}${r.stdout}`);
  return JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as Out;
}

const skipNproc = !has('prlimit') ? 'no prlimit (util-linux)' : root && !has('setpriv') ? 'running as root without setpriv (util-linux)' : false;
test('RLIMIT_NPROC reached: EAGAIN from spawn, spawnSync, execFileSync and exec, in child_process’s words', { skip: skipNproc }, () => {
  const out = run([], 'nproc');
  assert.match(out.theirs.spawn ?? '', /^error EAGAIN \| spawn /, 'child_process itself failed with EAGAIN: the limit was reached');
  assert.match(out.theirs.spawnSync ?? '', /^error EAGAIN/);
  assert.deepEqual(out.ours, out.theirs);
  assert.equal(out.served, 4, 'forklab served every call');
});

test('no_new_privs set: children start as with child_process and inherit it', { skip: has('setpriv') ? false : 'no setpriv (util-linux)' }, () => {
  const out = run(['setpriv', '--no-new-privs'], 'nnp');
  assert.match(out.theirs.spawn ?? '', /NoNewPrivs:\s+1/, 'the flag was set');
  assert.deepEqual(out.ours, out.theirs);
  assert.equal(out.served, 4, 'forklab served every call');
});

const dumpable = cfixture('dumpable', 'addon');
test('a non-dumpable parent (PR_SET_DUMPABLE 0): children start as with child_process, dumpable again after their exec', {
  skip: dumpable ? (root && !has('setpriv') ? 'running as root without setpriv (util-linux)' : false) : cfixtureWhyNot,
}, () => {
  // a copy where uid 65534 can load it
  const addon = join(tmp, 'dumpable.node');
  copyFileSync(dumpable as string, addon);
  chmodSync(addon, 0o755);
  const out = run([], 'nondumpable', [addon]);
  const uid = root ? 65534 : process.getuid?.();
  // the parent's /proc/PID/fd is root's and closed to its own uid (it is not dumpable); the child's is its own
  // (the exec made it dumpable again)
  assert.match(
    out.theirs.spawn ?? '',
    new RegExp(`self-fd=${uid}\\nparent-fd=0\\nown-fds=listed\\nparent-fds=refused\\n`),
    'child_process: the flag was cleared, and the child is dumpable',
  );
  assert.deepEqual(out.ours, out.theirs);
  assert.equal(out.served, 4, 'forklab served every call');
});
