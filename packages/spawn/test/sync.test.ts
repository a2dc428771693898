// spawnSync, execSync, execFileSync through forklab's sync spawner (posix_spawn + poll), side by side with
// child_process: the same result objects (status, signal, output, error code, message, syscall, path) and the
// same thrown errors; forklab served each call (counted).
import { sideBySide } from './helpers/reference.js';
import assert from 'node:assert/strict';
import childProcess from 'node:child_process';
import './helpers/addon.js';
import * as forklab from '../src/index.js';
import { execFileSync, execSync, spawnSync } from '../src/index.js';

const test = sideBySide(import.meta.url);

const ours = { spawnSync, execSync, execFileSync };

type SyncName = 'spawnSync' | 'execSync' | 'execFileSync';

function shape(fn: (...a: unknown[]) => unknown, args: unknown[]): string {
  try {
    const r = fn(...args) as (childProcess.SpawnSyncReturns<Buffer> & { error?: NodeJS.ErrnoException }) | Buffer | string;
    if (typeof r === 'string' || Buffer.isBuffer(r)) return JSON.stringify(['returned', r.toString()]);
    const e = r.error;
    return JSON.stringify({
      status: r.status,
      signal: r.signal,
      output: r.output?.map((x) => (x === null ? null : x.toString('latin1'))),
      pid: r.pid > 0,
      error: e && [e.code, e.message, e.syscall, e.path, (e as { spawnargs?: unknown }).spawnargs],
    });
  } catch (err) {
    const e = err as Error & Record<string, unknown>;
    return JSON.stringify(['threw', e.name, e.message, e.code, e.status, e.signal, String(e.stdout), String(e.stderr)]);
  }
}

function same(name: SyncName, ...args: unknown[]): void {
  const before = forklab.registerStats().byFunction[name]?.served ?? 0;
  const theirs = shape(childProcess[name] as (...a: unknown[]) => unknown, args);
  const mine = shape(ours[name] as (...a: unknown[]) => unknown, args);
  assert.equal(mine, theirs, `${name} ${JSON.stringify(args).slice(0, 120)}`);
  assert.equal(forklab.registerStats().byFunction[name]?.served, before + 1, 'forklab served it');
}

test('spawnSync: status, output of each pipe, input as string and as a large Buffer', () => {
  // (a child that does not read its input: EPIPE or not depends on who is first, in child_process too)
  same('spawnSync', 'sh', ['-c', 'cat; echo err >&2; exit 3'], { input: 'abc' });
  same('spawnSync', 'cat', [], { input: Buffer.alloc(300_000, 7), maxBuffer: 1e6 });
  same('spawnSync', 'sh', ['-c', 'echo to3 >&3'], { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
  same('spawnSync', 'sh', ['-c', 'echo $0'], { argv0: 'named', encoding: 'utf8' });
  same('spawnSync', 'sh', ['-c', 'echo "$X"'], { env: { X: 'from env' }, encoding: 'utf8' });
});

test('spawnSync: a grandchild holding stdout keeps the call waiting, as child_process', () => {
  same('spawnSync', 'sh', ['-c', '(sleep 0.2; echo late) & echo early'], { encoding: 'utf8' });
});

test('spawnSync: signal, timeout with killSignal, maxBuffer, a missing program or cwd', () => {
  same('spawnSync', 'sh', ['-c', 'kill -9 $$']);
  same('spawnSync', 'sleep', ['5'], { timeout: 100 });
  same('spawnSync', 'sleep', ['5'], { timeout: 100, killSignal: 'SIGKILL' });
  // (the child outlives the overflow, so both kill it: whether a child that already ended is reported as
  // exited or killed depends on timing, in child_process too)
  same('spawnSync', 'sh', ['-c', 'head -c 3000 /dev/zero; exec sleep 5'], { maxBuffer: 1000 });
  same('spawnSync', 'sh', ['-c', 'head -c 1000 /dev/zero'], { maxBuffer: 1000 });
  same('spawnSync', 'echo', ['a maxBuffer of 0 is no limit'], { maxBuffer: 0 });
  same('execFileSync', 'echo', ['hi'], { maxBuffer: 0, encoding: 'utf8' });
  same('spawnSync', 'forklab-no-such-program');
  same('spawnSync', 'true', [], { cwd: '/nonexistent' });
  same('spawnSync', 'true', [], { cwd: '' });
});

test('spawnSync: the timeout holds while the child keeps both pipes full (maxBuffer Infinity or 1 GiB), as child_process', () => {
  // three writers on each pipe seldom leave both empty: the deadline was looked at only when poll() found
  // nothing to read, so the call went on reading until the child ended by itself (status 0, after 4 s) or both
  // pipes happened to be empty at once; child_process kills at the deadline. (The writers end when the pipes
  // close, or after 4 s at the latest.)
  const script = 'for i in 1 2 3; do timeout 4 yes out & timeout 4 yes err >&2 & done; exec sleep 4';
  for (const maxBuffer of [Number.POSITIVE_INFINITY, 2 ** 30]) {
    const seen = ([childProcess.spawnSync, spawnSync] as const).map((fn) => {
      const r = fn('sh', ['-c', script], { timeout: 500, maxBuffer });
      const e = r.error as NodeJS.ErrnoException | undefined;
      // (a pattern, not a character array: tens of MB were read, and spreading them took seconds of CPU a call)
      const only = (b: Buffer | null, other: RegExp) => Buffer.isBuffer(b) && !other.test(b.toString('latin1'));
      return {
        status: r.status,
        signal: r.signal,
        error: e && [e.code, e.message, e.syscall, e.path, (e as { spawnargs?: unknown }).spawnargs],
        stdin: r.output?.[0],
        // what was read before the deadline: a part of what the writers wrote, nothing else
        stdout: only(r.stdout, /[^out\n]/),
        stderr: only(r.stderr, /[^er\n]/),
      };
    });
    assert.deepEqual(seen[1], seen[0], `maxBuffer ${maxBuffer}`);
    assert.deepEqual(seen[1], {
      status: null,
      signal: 'SIGTERM',
      error: ['ETIMEDOUT', 'spawnSync sh ETIMEDOUT', 'spawnSync sh', 'sh', ['-c', script]],
      stdin: null,
      stdout: true,
      stderr: true,
    });
  }
});

test('spawnSync: the child may write to its stdin, shut down for writing but not closed, as child_process', () => {
  // libuv's stdio pipes are socketpairs: what the child writes on fd 0 goes to the parent's end, unread and
  // dropped at the end (no SIGPIPE, no EPIPE); more than the socket holds blocks the child, here until the timeout
  same('spawnSync', 'sh', ['-c', 'echo to-fd0 >&0; echo "wrote $?"'], { encoding: 'utf8' });
  same('spawnSync', 'sh', ['-c', 'cat; echo to-fd0 >&0; echo "wrote $?"'], { input: 'read to EOF, then' });
  same('spawnSync', 'sh', ['-c', 'head -c 100000 /dev/zero >&0; echo "wrote $?"']);
  same('spawnSync', 'sh', ['-c', 'head -c 2000000 /dev/zero >&0; echo "wrote $?"'], { timeout: 300 });
  same('execSync', 'echo to-fd0 >&0; echo "wrote $?"', { encoding: 'utf8' });
  same('execFileSync', 'sh', ['-c', 'cat; echo to-fd0 >&0; echo "wrote $?"'], { input: 'x', encoding: 'utf8' });
});

test('arguments that are not strings are converted, as child_process converts them', () => {
  same('spawnSync', 'sh', ['-c', 'echo "$@"', 'sh', 42, true, { toString: () => 'obj' }] as unknown[], { encoding: 'utf8' });
  same('execFileSync', 'sh', ['-c', 'echo "$1"', 'sh', 7] as unknown[], { encoding: 'utf8' });
  same('spawnSync', 'sh', ['-c', 'true', Symbol('s')] as unknown[]);
});

test('execSync and execFileSync: returned output, thrown errors with status and output', () => {
  same('execSync', 'echo hi');
  same('execSync', 'echo partial; echo why >&2; exit 2', { stdio: 'pipe' });
  same('execFileSync', 'sh', ['-c', 'cat'], { input: 'xyz', encoding: 'utf8' });
  same('execFileSync', 'forklab-no-such-program');
  same('execFileSync', 'sleep', ['5'], { timeout: 100 });
});

test("bad options are refused in child_process's words", () => {
  for (const options of [{ timeout: -1 }, { maxBuffer: 'x' }, { killSignal: 'SIGNOPE' }, { input: 5 }, { stdio: ['ipc'] }, { argv0: 'a\u0000' }]) {
    const theirs = shape(childProcess.spawnSync as (...a: unknown[]) => unknown, ['true', [], options]);
    assert.match(theirs, /threw/, JSON.stringify(options));
    assert.equal(shape(forklab.spawnSync as (...a: unknown[]) => unknown, ['true', [], options]), theirs, JSON.stringify(options));
  }
});
