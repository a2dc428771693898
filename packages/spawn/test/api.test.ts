// run(): buffering, maxBuffer, encoding, input, failures; uid/gid through Node's handle; ref/unref; an exception
// thrown in an 'exit' listener reaches uncaughtException.
import { sideBySide } from './helpers/reference.js';
import assert from 'node:assert/strict';
import * as childProcess from 'node:child_process';
import { spawnSync } from 'node:child_process';
import './helpers/addon.js';
import { registerStats, run, spawn, unavailableReason } from '../src/index.js';

const test = sideBySide(import.meta.url);

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
  await assert.rejects(run('sh', ['-c', 'yes | head -c 100000; exec sleep 30'], { ...LIMIT, maxBuffer: 1000 }), (e: Error & Record<string, unknown>) => {
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

test('uid and gid: the real handle serves that call, counted with its reason', async () => {
  const before = registerStats().byFunction.spawn?.byReason.uid ?? 0;
  const c = spawn('id', ['-u'], { uid: process.getuid?.() ?? 0, ...LIMIT });
  const out: Buffer[] = [];
  c.stdout.on('data', (d: Buffer) => out.push(d));
  const code = await new Promise((r) => c.on('close', r));
  assert.equal(code, 0);
  assert.equal(Buffer.concat(out).toString().trim(), String(process.getuid?.()));
  assert.equal(registerStats().byFunction.spawn?.byReason.uid, before + 1);
});

test("bad values are refused before anything starts, in child_process's words", () => {
  const cases: [string, unknown[], object][] = [
    ['true', [], { killSignal: 'SIGNOPE' }],
    ['true', [], { timeout: -1 }],
    ['true', ['a\u0000b'], {}],
    ['true', [], { shell: 1 }],
    ['true', [], { detached: 'yes' }],
    ['true', [], { cwd: 42 }],
    ['true', [], { argv0: 'a\u0000b' }],
    ['true', [], { shell: 'sh\u0000x' }],
  ];
  for (const [cmd, args, options] of cases) {
    const outcome = (f: typeof spawn) => {
      try {
        const c = f(cmd, args as string[], options as never);
        c.on('error', () => {});
        c.kill('SIGKILL');
        return 'started';
      } catch (e) {
        const x = e as Error & { code?: string };
        return `${x.name} ${x.code} ${x.message}`;
      }
    };
    const theirs = outcome(childProcess.spawn);
    assert.notEqual(theirs, 'started', JSON.stringify(options));
    assert.equal(outcome(spawn), theirs, JSON.stringify(options));
  }
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

test("the addon's own errors keep N-API's message (not a generic 'N-API call failed')", async () => {
  const { native } = await import('../src/native.js');
  assert.throws(
    () => native().spawn('/bin/true', [42 as unknown as string], [], null, [-1, -1, -1], false, () => {}),
    (e: Error) => /^forklab-spawn: A string was expected/.test(e.message),
  );
});

test('FORKLAB_SPAWN=off: register changes nothing, and every forklab function is child_process with the reason counted', () => {
  const code = `import * as cp from 'node:child_process';
await import(${JSON.stringify(new URL('../src/register.ts', import.meta.url).href)});
const f = await import(${JSON.stringify(index)});
const plain = cp.spawn('true', [], { timeout: 30000 });
const own = f.spawn('true', [], { timeout: 30000 });
await Promise.all([plain, own].map((c) => new Promise((r) => c.on('close', r))));
const sync = f.spawnSync('sh', ['-c', 'exit 3'], { timeout: 30000 });
console.log(JSON.stringify({ status: sync.status, stats: f.registerStats() }));`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, FORKLAB_SPAWN: 'off' },
  });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as {
    status: number;
    stats: { served: number; byFunction: Record<string, { served: number; fallbacks: number; byReason: Record<string, number> }> };
  };
  assert.equal(out.status, 3);
  assert.equal(out.stats.served, 0);
  assert.deepEqual(out.stats.byFunction.spawn?.byReason, { 'disabled: FORKLAB_SPAWN=off': 1 });
  assert.deepEqual(out.stats.byFunction.spawnSync?.byReason, { 'disabled: FORKLAB_SPAWN=off': 1 });
  assert.equal(out.stats.byFunction.ChildProcess, undefined, 'the plain child_process call is not even seen: register did nothing');
});
