// Every child_process function through forklab, side by side with child_process: the same results, events,
// errors; forklab served each (counted); the child is a ChildProcess (instanceof, Symbol.dispose).
import { sideBySide } from './helpers/reference.js';
import assert from 'node:assert/strict';
import * as childProcess from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import './helpers/addon.js';
import * as forklab from '../src/index.js';

const test = sideBySide(import.meta.url);

const LIMIT = { timeout: 30_000, killSignal: 'SIGKILL' } as const;
const echoChild = new URL('./fixtures/echo-child.cjs', import.meta.url).pathname;
const impls = [
  ['child_process', childProcess],
  ['forklab', forklab],
] as const;

function servedBy(fn: forklab.FunctionName): number {
  return forklab.registerStats().byFunction[fn]?.served ?? 0;
}

test('exec and execFile: stdout, stderr, error code and signal, as child_process', async () => {
  const results: unknown[] = [];
  for (const [, m] of impls) {
    const exec = promisify(m.exec);
    const execFile = promisify(m.execFile);
    const ok = await exec('echo out; echo err >&2', LIMIT);
    const failed = await exec('echo partial; exit 7', LIMIT).catch((e: Record<string, unknown>) => [e.code, e.signal, e.stdout, e.killed, e.cmd]);
    const file = await execFile('sh', ['-c', 'printf "%s" "$0"', 'x'], LIMIT);
    const missing = await execFile('forklab-no-such-program', [], LIMIT).catch((e: Record<string, unknown>) => [e.code, e.errno, e.syscall, e.path, e.message]);
    const killed = await execFile('sleep', ['5'], { timeout: 50 }).catch((e: Record<string, unknown>) => [e.killed, e.signal, e.code]);
    results.push([ok, failed, file, missing, killed]);
  }
  assert.deepEqual(results[1], results[0]);
  assert.ok(servedBy('exec') >= 2 && servedBy('execFile') >= 3);
});

test('the callback forms, with maxBuffer and encoding', async () => {
  const results: unknown[] = [];
  for (const [, m] of impls) {
    results.push(
      await new Promise((resolve) => {
        m.execFile('sh', ['-c', 'head -c 5000 /dev/zero'], { ...LIMIT, maxBuffer: 1000, encoding: 'buffer' }, (err, stdout) => {
          resolve([(err as Error & { code?: string })?.code, (stdout as unknown as Buffer).length]);
        });
      }),
    );
  }
  assert.deepEqual(results[1], results[0]);
});

test('fork: IPC both ways (json and advanced), a handle sent, disconnect, exit', async () => {
  const before = servedBy('fork');
  for (const serialization of ['json', 'advanced'] as const) {
    const seen: unknown[] = [];
    for (const [, m] of impls) {
      const child = m.fork(echoChild, [], { serialization, ...LIMIT });
      const got: unknown[] = [];
      const server = createServer();
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const code = await new Promise((resolve) => {
        child.on('message', (msg: unknown) => {
          got.push(msg);
          if (msg === 'hello') child.send(serialization === 'advanced' ? { n: 10n, m: new Map([[1, 2]]) } : { n: 1 });
          else if ((msg as { echo?: unknown }).echo) child.send('server', server);
          else child.disconnect();
        });
        child.on('exit', resolve);
      });
      server.close();
      seen.push([got, code, child.connected]);
    }
    assert.deepEqual(seen[1], seen[0], serialization);
  }
  assert.equal(servedBy('fork'), before + 2);
});

test('the child is a ChildProcess: instanceof, Symbol.dispose kills it, the same own keys', async () => {
  const a = childProcess.spawn('sleep', ['30']);
  const b = forklab.spawn('sleep', ['30']);
  assert.ok(b instanceof childProcess.ChildProcess);
  assert.ok(b instanceof forklab.ChildProcess);
  assert.deepEqual(Object.keys(b).sort(), Object.keys(a).sort());
  const dispose = (Symbol as { dispose?: symbol }).dispose;
  for (const c of [a, b]) {
    const exited = new Promise((r) => c.on('exit', (_code, sig) => r(sig)));
    const d = dispose && (c as unknown as Record<symbol, (() => void) | undefined>)[dispose];
    if (d) d.call(c);
    else c.kill();
    assert.equal(await exited, 'SIGTERM');
  }
});

test('a stdout paused by the user: data and close still arrive once it is resumed after exit', async () => {
  const seen: unknown[] = [];
  for (const [, m] of impls) {
    const c = m.spawn('sh', ['-c', 'echo paused-data'], LIMIT);
    c.stdout.pause();
    const chunks: Buffer[] = [];
    c.stdout.on('data', (d: Buffer) => chunks.push(d));
    c.on('exit', () => setTimeout(() => c.stdout.resume(), 50));
    const code = await new Promise((r) => c.on('close', r));
    seen.push([code, Buffer.concat(chunks).toString()]);
  }
  assert.deepEqual(seen[1], seen[0]);
  assert.deepEqual(seen[1], [0, 'paused-data\n']);
});

test('events in the same order: spawn, exit, close; error then close for a missing program', async () => {
  const orders: string[][] = [];
  for (const cmd of ['true', 'forklab-no-such-program']) {
    for (const [, m] of impls) {
      const c = m.spawn(cmd, [], LIMIT);
      const order: string[] = [];
      for (const e of ['spawn', 'exit', 'close', 'error']) c.on(e, () => order.push(e));
      await new Promise((r) => c.on('close', r));
      orders.push(order);
    }
  }
  assert.deepEqual(orders[1], orders[0]);
  assert.deepEqual(orders[3], orders[2]);
});

test('kill with a signal name and a number, unref/ref, and an exec timeout of Infinity', async () => {
  const seen: unknown[] = [];
  for (const [, m] of impls) {
    const c = m.spawn('sleep', ['30']);
    c.unref();
    c.ref();
    const sig = new Promise((r) => c.on('exit', (_code, s) => r(s)));
    assert.equal(c.kill(9), true);
    const after = await sig;
    seen.push([after, c.kill('SIGTERM'), c.killed, c.signalCode]);
    // child_process refuses it (an unsigned integer is required); forklab says the same, it never kills early
    const inf = await new Promise((r) => {
      try {
        m.execFile('sh', ['-c', 'sleep 0.2; echo done'], { timeout: Infinity }, (e, out) => r([e?.message ?? null, out]));
      } catch (e) {
        r((e as Error & { code?: string }).code);
      }
    });
    seen.push(inf);
  }
  assert.deepEqual(seen.slice(2), seen.slice(0, 2));
});

test("a finished child is garbage-collected, as child_process's is: Node's unused Process handle is closed", async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const collected: Record<string, boolean> = {};
  for (const [name, m] of impls) {
    const refs: WeakRef<object>[] = [];
    for (const stdio of ['ignore', 'pipe'] as const) {
      await new Promise<void>((resolve, reject) => {
        const c = m.spawn('true', [], { stdio, ...LIMIT });
        refs.push(new WeakRef(c));
        c.on('error', reject);
        c.on('close', () => resolve());
      });
    }
    // (handles close on later turns of the loop: give them time; a child kept alive stays alive however long)
    for (let i = 0; i < 50 && refs.some((r) => r.deref()); i++) {
      await new Promise((r) => setTimeout(r, 10));
      gc();
    }
    collected[name] = refs.every((r) => r.deref() === undefined);
  }
  // Node frees a Process handle only once it is closed; the ChildProcess constructor's one, left unspawned,
  // would keep the child and everything it holds (about 2 KB a call) for the life of the process.
  assert.deepEqual(collected, { child_process: true, forklab: true });
});

test("outside forklab's calls (no register) node:child_process serves its own calls, async and sync", async () => {
  await new Promise((resolve) => forklab.spawn('true', [], LIMIT).on('close', resolve));
  forklab.spawnSync('true', [], LIMIT);
  const before = JSON.stringify(forklab.registerStats().byFunction);
  const child = childProcess.spawn('true', [], LIMIT);
  // Node's own process handle, not forklab's
  assert.equal((child as unknown as { _handle: object })._handle.constructor.name, 'Process');
  await new Promise((resolve) => child.on('close', resolve));
  assert.equal(childProcess.spawnSync('sh', ['-c', 'exit 4'], LIMIT).status, 4);
  assert.equal(JSON.stringify(forklab.registerStats().byFunction), before, 'nothing counted as served by forklab');
});
