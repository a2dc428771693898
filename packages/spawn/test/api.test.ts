// run(): buffering, maxBuffer, encoding, input, failures; options forklab refuses; ref/unref; an exception
// thrown in an 'exit' listener reaches uncaughtException.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import './helpers/addon.js';
import { run, spawn, unavailableReason, unsupportedReason, UnsupportedOptionError } from '../src/index.js';

const index = new URL('../src/index.ts', import.meta.url).href;
/** Every child these tests start gets a time limit (killed with SIGKILL past it). */
const LIMIT = { timeout: 30_000, killSignal: 'SIGKILL' } as const;

function nodeScript(code: string) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

test('the addon loads on this machine (Linux with pidfd)', () => {
  assert.equal(unavailableReason(), null);
});

test('run(): stdout, stderr, exit code, signal, encoding, input', async () => {
  assert.deepEqual(await run('sh', ['-c', 'echo out; echo err >&2; exit 3'], LIMIT), { stdout: 'out\n', stderr: 'err\n', exitCode: 3, signal: null });
  assert.deepEqual(await run('sh', ['-c', 'kill -KILL $$'], LIMIT), { stdout: '', stderr: '', exitCode: null, signal: 'SIGKILL' });
  const bin = await run('sh', ['-c', 'printf "\\377\\000"'], { ...LIMIT, encoding: 'buffer' });
  assert.deepEqual(bin.stdout, Buffer.from([0xff, 0]));
  assert.equal((await run('tr', ['a-z', 'A-Z'], { ...LIMIT, input: 'hello' })).stdout, 'HELLO');
  assert.equal((await run('cat', [], LIMIT)).stdout, '', 'stdin is closed when there is no input');
  assert.equal((await run('sh', ['-c', 'echo $0'], { ...LIMIT, argv0: 'named' })).stdout, 'named\n');
});

test('run(): maxBuffer kills the child and rejects with what was read', async () => {
  await assert.rejects(run('sh', ['-c', 'yes | head -c 100000; sleep 30'], { ...LIMIT, maxBuffer: 1000 }), (e: Error & Record<string, unknown>) => {
    assert.equal(e.code, 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER');
    assert.equal((e.stdout as Buffer).length, 1000);
    return true;
  });
  const ok = await run('sh', ['-c', 'yes | head -c 1000'], { ...LIMIT, maxBuffer: 1000 });
  assert.equal(ok.stdout.length, 1000);
});

test('run(): a child that cannot start, and an abort, reject', async () => {
  await assert.rejects(run('forklab-no-such-program', [], LIMIT), { code: 'ENOENT', syscall: 'spawn forklab-no-such-program' });
  const ac = new AbortController();
  const p = run('sleep', ['30'], { ...LIMIT, signal: ac.signal });
  setTimeout(() => ac.abort(), 50);
  await assert.rejects(p, { name: 'AbortError' });
});

test('options that need code between fork and exec throw, naming node:child_process', () => {
  const cases: [object, string][] = [
    [{ uid: 0 }, 'uid'],
    [{ gid: 0 }, 'gid'],
    [{ serialization: 'json' }, 'serialization'],
    [{ stdio: ['pipe', 'pipe', 'pipe', 'ipc'] }, 'stdio ipc'],
  ];
  for (const [options, reason] of cases) {
    assert.equal(unsupportedReason(options), reason);
    assert.throws(
      () => spawn('true', [], options),
      (e: Error) => e instanceof UnsupportedOptionError && /node:child_process/.test(e.message),
    );
  }
  assert.equal(unsupportedReason({ cwd: '/', env: {}, detached: true, stdio: ['ignore', 1, process.stderr] }), null);
});

test('bad values are refused before anything starts', () => {
  assert.throws(() => spawn('true', [], { stdio: ['pipe', -1] } as never), { code: 'ERR_INVALID_ARG_VALUE' });
  assert.throws(() => spawn('true', [], { killSignal: 'SIGNOPE' } as never), { code: 'ERR_UNKNOWN_SIGNAL' });
  assert.throws(() => spawn('true', [], { timeout: -1 }), { code: 'ERR_OUT_OF_RANGE' });
  assert.throws(() => spawn('true', ['a\u0000b']), { code: 'ERR_INVALID_ARG_VALUE' });
});

test('unref(): a running child does not keep the process alive; ref() does', () => {
  const unref = nodeScript(`const { spawn } = await import(${JSON.stringify(index)});
const c = spawn('sleep', ['30'], { stdio: 'ignore', detached: true }); c.unref(); console.log(c.pid);`);
  assert.equal(unref.code, 0, unref.stderr);
  const pid = Number(unref.stdout.trim());
  assert.ok(pid > 0);
  process.kill(pid, 'SIGKILL'); // it outlived its parent, as an unref'd detached child does
  const kept = nodeScript(`const { spawn } = await import(${JSON.stringify(index)});
const c = spawn('sh', ['-c', 'sleep 0.2; exit 4'], { stdio: 'ignore' }); c.unref(); c.ref(); c.on('exit', (code) => console.log(code));`);
  assert.equal(kept.stdout.trim(), '4');
});

test('an exception thrown in an exit listener is an uncaught exception, as with child_process', () => {
  const r = nodeScript(`const { spawn } = await import(${JSON.stringify(index)});
process.on('uncaughtException', (e) => { console.log('caught', e.message); process.exit(0); });
spawn('true', []).on('exit', () => { throw new Error('from listener'); });`);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'caught from listener\n');
});
