// forklab/spawn against node:child_process on the same cases, side by side: exit codes, signals, bytes,
// cwd, env, argv0, failures to start, detached groups, kill, AbortSignal, timeout.
import { after } from 'node:test';
import { sideBySide } from './helpers/reference.js';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync, openSync, closeSync, readFileSync, realpathSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { both, errorShape, impls, observe, sha256, type Observed } from './helpers/observe.js';

const test = sideBySide(import.meta.url);

const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'forklab-spawn-')));
after(() => rmSync(tmp, { recursive: true, force: true }));

function same(a: Observed, b: Observed, what: string): void {
  assert.equal(a.timedOut || b.timedOut, false, `${what}: a child hit the time limit`);
  assert.deepEqual(b.events, a.events, `${what}: events`);
  assert.equal(b.exitCode, a.exitCode, `${what}: exitCode`);
  assert.equal(b.signalCode, a.signalCode, `${what}: signalCode`);
  assert.deepEqual(b.stdout, a.stdout, `${what}: stdout`);
  assert.deepEqual(b.stderr, a.stderr, `${what}: stderr`);
}

test('exit codes and their events', async () => {
  for (const code of [0, 1, 7, 255]) {
    const [a, b] = await both('sh', ['-c', `exit ${code}`]);
    same(a, b, `exit ${code}`);
    assert.deepEqual(b.events, [['spawn'], ['exit', code, null], ['close', code, null]]);
  }
});

test('death by a signal: exitCode null, signalCode named', async () => {
  for (const sig of ['TERM', 'KILL', 'SEGV']) {
    const [a, b] = await both('sh', ['-c', `kill -${sig} $$`]);
    same(a, b, sig);
    assert.equal(b.signalCode, `SIG${sig}`);
  }
});

test('stdout and stderr bytes, binary included', async () => {
  const [a, b] = await both('sh', ['-c', 'printf "a\\000b\\377"; printf "to err" >&2; exit 3']);
  same(a, b, 'bytes');
  assert.deepEqual(b.stdout, Buffer.from([0x61, 0, 0x62, 0xff]));
});

test('50 MB on stdout and 50 MB on stderr at once, no deadlock', async () => {
  const script = 'yes 0123456789abcdef | head -c 52428800 & yes fedcba | head -c 52428800 >&2; wait';
  const [a, b] = await both('sh', ['-c', script]);
  assert.equal(a.timedOut || b.timedOut, false);
  for (const o of [a, b]) {
    assert.equal(o.stdout.length, 52428800);
    assert.equal(o.stderr.length, 52428800);
  }
  assert.equal(sha256(b.stdout), sha256(a.stdout));
  assert.equal(sha256(b.stderr), sha256(a.stderr));
  assert.deepEqual(b.events, a.events);
});

test('a child that reads stdin to its end; 50 MB through cat both ways', async () => {
  const input = Buffer.alloc(50 * 1024 * 1024, 'forklab ');
  const [a, b] = await both('wc', ['-c'], {}, { input });
  same(a, b, 'wc -c');
  assert.equal(b.stdout.toString().trim(), String(input.length));
  const [c, d] = await both('cat', [], {}, { input });
  assert.equal(c.timedOut || d.timedOut, false);
  assert.equal(d.stdout.length, input.length);
  assert.equal(sha256(d.stdout), sha256(input));
  assert.deepEqual(d.events, c.events);
});

test("cwd, env, argv0 and PATH looked up in the child's environment", async () => {
  let [a, b] = await both('pwd', [], { cwd: tmp });
  same(a, b, 'cwd');
  assert.equal(b.stdout.toString(), `${tmp}\n`);
  [a, b] = await both('sh', ['-c', 'echo "$FOO|$HOME"'], { env: { FOO: 'bar baz', PATH: process.env.PATH } });
  same(a, b, 'env');
  assert.equal(b.stdout.toString(), 'bar baz|\n');
  [a, b] = await both('sh', ['-c', 'echo "$0"'], { argv0: 'custom-name' });
  same(a, b, 'argv0');
  assert.equal(b.stdout.toString(), 'custom-name\n');
  const bin = join(tmp, 'bin');
  writeFileSync(join(tmp, 'only-here'), '');
  await both('mkdir', ['-p', bin]);
  writeFileSync(join(bin, 'only-here'), '#!/bin/sh\necho found "$@"\n');
  chmodSync(join(bin, 'only-here'), 0o755);
  [a, b] = await both('only-here', ['x'], { env: { PATH: `/nonexistent:${bin}:/usr/bin:/bin` } });
  same(a, b, 'child PATH');
  assert.equal(b.stdout.toString(), 'found x\n');
  [a, b] = await both('sh', ['-c', 'echo $0 "$1"', 'ignored'], { shell: true });
  same(a, b, 'shell');
});

test('without options.env the child sees process.env as it is now (also set and deleted keys)', async () => {
  process.env.FORKLAB_SPAWN_SET = 'set now';
  process.env.FORKLAB_SPAWN_GONE = 'x';
  delete process.env.FORKLAB_SPAWN_GONE;
  try {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's parameter expansion, not a template
    const [a, b] = await both('sh', ['-c', 'echo "$FORKLAB_SPAWN_SET|${FORKLAB_SPAWN_GONE-unset}"']);
    same(a, b, 'process.env');
    assert.equal(b.stdout.toString(), 'set now|unset\n');
  } finally {
    delete process.env.FORKLAB_SPAWN_SET;
  }
});

test('a script without #! runs through /bin/sh, as with execvp', async () => {
  const script = join(tmp, 'no-shebang');
  writeFileSync(script, 'echo plain script\n');
  chmodSync(script, 0o755);
  const [a, b] = await both(script, []);
  same(a, b, 'ENOEXEC');
  assert.equal(b.stdout.toString(), 'plain script\n');
});

test('an empty cwd means none, and arguments that are not strings are converted, as child_process', async () => {
  let [a, b] = await both('pwd', [], { cwd: '' });
  same(a, b, "cwd ''");
  assert.equal(b.exitCode, 0);
  [a, b] = await both('sh', ['-c', 'echo "$@"', 'sh', 42, true, { toString: () => 'obj' }] as unknown as string[]);
  same(a, b, 'non-string args');
  assert.equal(b.stdout.toString(), '42 true obj\n');
  // what cannot be converted (a Symbol, a throwing toString): Node 20 throws, 22 and later pass '' (as Node does)
  const weird = [
    Symbol('s'),
    {
      toString: () => {
        throw new Error('boom');
      },
    },
  ];
  const outcomes = [];
  for (const [, m] of impls) {
    try {
      outcomes.push((await observe(m, 'sh', ['-c', 'printf "[%s]" "$@"', 'sh', 'a', ...weird, 'b'] as unknown as string[])).stdout.toString());
    } catch (e) {
      outcomes.push(`${(e as Error).name}: ${(e as Error).message}`);
    }
  }
  assert.equal(outcomes[1], outcomes[0]);
});

test('failures to start: missing program, a directory, a non-executable file, a missing cwd', async () => {
  const plain = join(tmp, 'not-executable');
  writeFileSync(plain, '#!/bin/sh\n');
  chmodSync(plain, 0o644);
  const cases: [string, string[], object, string][] = [
    ['forklab-no-such-program', ['a', 'b'], {}, 'ENOENT'],
    [join(tmp, 'missing'), [], {}, 'ENOENT'],
    [tmp, [], {}, 'EACCES'],
    [plain, [], {}, 'EACCES'],
    ['/bin/true', [], { cwd: join(tmp, 'no-such-dir') }, 'ENOENT'],
    ['true', [], { cwd: join(tmp, 'no-such-dir') }, 'ENOENT'],
  ];
  for (const [file, args, options, code] of cases) {
    const [a, b] = await both(file, args, options);
    same(a, b, `${file} ${JSON.stringify(options)}`);
    assert.equal((b.events[0]![1] as { code: string }).code, code);
    assert.equal(b.pid, undefined);
  }
});

test('errors thrown at the call: a path through a file (ENOTDIR), bad arguments', () => {
  for (const [file, args] of [
    ['/etc/passwd/x', []],
    ['', []],
    ['sh', 'not-an-array'],
  ] as [string, unknown][]) {
    const shapes = impls.map(([, fn]) => {
      try {
        fn(file, args as string[]);
        return null;
      } catch (e) {
        return { code: errorShape(e).code, errno: errorShape(e).errno, syscall: errorShape(e).syscall };
      }
    });
    assert.notEqual(shapes[0], null, `${file}: child_process throws`);
    assert.deepEqual(shapes[1], shapes[0], file);
  }
});

test("detached: a new session and process group; otherwise the parent's group", async () => {
  const script = 'cut -d" " -f5,6 /proc/$$/stat';
  for (const detached of [true, false]) {
    for (const [name, fn] of impls) {
      const o = await observe(fn, 'sh', ['-c', script], { detached });
      const [pgid, sid] = o.stdout.toString().trim().split(' ').map(Number);
      if (detached) assert.deepEqual([pgid, sid], [o.pid, o.pid], name);
      else assert.equal(pgid, readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ').map(Number)[2], name);
    }
  }
});

test('a clean signal state in the child: nothing blocked, nothing ignored (Node ignores SIGPIPE)', async () => {
  const [a, b] = await both('sh', ['-c', 'exec grep -E "^Sig(Blk|Ign)" /proc/self/status']);
  same(a, b, 'signal state');
  assert.match(b.stdout.toString(), /SigBlk:\s+0+\nSigIgn:\s+0+\n/);
});

test('descriptors: close-on-exec decides, as with libuv: the same ones reach the child as through child_process', async () => {
  const fd = openSync(join(tmp, 'jobserver'), 'w'); // Node opens files with O_CLOEXEC
  const [a, b] = await both('sh', ['-c', 'ls /proc/$$/fd']);
  assert.equal(b.stdout.toString(), a.stdout.toString(), 'the same descriptors reach the child');
  assert.doesNotMatch(b.stdout.toString(), new RegExp(`^${fd}$`, 'm'), 'a descriptor Node opened (O_CLOEXEC) stays out');
  closeSync(fd);
});

test('stdio: ignore, inherit, a descriptor, extra pipes', async () => {
  const file = join(tmp, 'out.txt');
  const fd = openSync(file, 'w');
  const [a, b] = await both('sh', ['-c', 'echo to-file; echo gone >&2'], { stdio: ['ignore', fd, 'ignore'] });
  closeSync(fd);
  same(a, b, 'fd');
  assert.equal(readFileSync(file, 'utf8'), 'to-file\nto-file\n');
  const [c, d] = await both('sh', ['-c', 'echo three >&3'], { stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
  same(c, d, 'fd 3');
});

test("stdio entries that name each other's targets (stdio: [ignore, 2, 1]) are not overwritten", () => {
  const index = new URL('../src/index.ts', import.meta.url).href;
  const code = `const { spawn } = await import(${JSON.stringify(index)});
spawn('sh', ['-c', 'echo to-1; echo to-2 >&2'], { stdio: ['ignore', 2, 1] }).on('close', (c) => process.exit(c));`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'to-2\n');
  assert.equal(r.stderr, 'to-1\n');
});

test('kill() before exit, and after it', async () => {
  for (const [name, fn] of impls) {
    let sent: boolean | undefined;
    const o = await observe(fn, 'sleep', ['30'], {}, { during: (c) => c.once('spawn', () => (sent = c.kill())) });
    assert.equal(sent, true, name);
    assert.equal(o.signalCode, 'SIGTERM', name);
    const early = await observe(fn, 'sleep', ['30'], {}, { during: (c) => assert.equal(c.kill('SIGKILL'), true) });
    assert.equal(early.signalCode, 'SIGKILL', `${name}: killed before the spawn event`);
    assert.deepEqual(early.events, [['spawn'], ['exit', null, 'SIGKILL'], ['close', null, 'SIGKILL']], name);
    const child = fn('true', []);
    await new Promise((r) => child.on('close', r));
    assert.equal(child.kill(), false, `${name}: after exit`);
    assert.equal(child.killed, false, `${name}: killed stays false`);
    assert.throws(() => child.kill('SIGNOPE' as NodeJS.Signals), { code: 'ERR_UNKNOWN_SIGNAL' });
  }
});

test('AbortSignal: abort while running, and already aborted', async () => {
  const runs: Observed[][] = [[], []];
  for (const pre of [false, true]) {
    for (const [i, [, fn]] of impls.entries()) {
      const ac = new AbortController();
      if (pre) ac.abort();
      const o = await observe(fn, 'sleep', ['30'], { signal: ac.signal }, { during: (c) => c.once('spawn', () => ac.abort()) });
      runs[i]!.push(o);
    }
  }
  for (let k = 0; k < 2; k++) {
    const [a, b] = [runs[0]![k]!, runs[1]![k]!];
    same(a, b, `abort ${k}`);
    assert.equal((b.events.find((e) => e[0] === 'error')![1] as { name: string }).name, 'AbortError');
  }
});

test('timeout with killSignal', async () => {
  for (const killSignal of ['SIGTERM', 'SIGKILL']) {
    const [a, b] = await both('sleep', ['30'], { timeout: 100, killSignal });
    same(a, b, killSignal);
    assert.equal(b.signalCode, killSignal);
  }
});
