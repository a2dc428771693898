// Hostile inputs, side by side: the same call through node:child_process and through forklab must end the
// same way (thrown error, or the child's output), and forklab must have served it (counted), so that what is
// compared is forklab's process handle under child_process's own validation.
import { after } from 'node:test';
import { sideBySide } from './helpers/reference.js';
import assert from 'node:assert/strict';
import * as childProcess from 'node:child_process';
import './helpers/addon.js';
import * as forklab from '../src/index.js';

const test = sideBySide(import.meta.url);

type Spawner = typeof childProcess.spawn;
const LIMIT_MS = 30_000;
const proto = Object.prototype as Record<string, unknown>;
after(() => {
  delete proto.shell;
  delete proto.env;
});

/** What a call ends in: the thrown error, or the child's stdout, exit code and signal. */
async function outcome(spawn: Spawner, command: string, args: string[], options?: object): Promise<string> {
  let child: childProcess.ChildProcess;
  try {
    child = options === undefined ? spawn(command, args) : spawn(command, args, options);
  } catch (e) {
    const x = e as Error & { code?: string };
    return `threw ${x.name} ${x.code} ${x.message}`;
  }
  const out: Buffer[] = [];
  child.stdout?.on('data', (d: Buffer) => out.push(d));
  const limit = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
  const [code, sig, err] = await new Promise<[unknown, unknown, unknown]>((resolve) => {
    child.on('error', (e: Error & { code?: string }) => resolve([null, null, e.code]));
    child.on('close', (c, s) => resolve([c, s, null]));
  });
  clearTimeout(limit);
  return JSON.stringify({ stdout: Buffer.concat(out).toString(), code, sig, err });
}

function served(): number {
  return forklab.registerStats().byFunction.spawn?.served ?? 0;
}

async function same(command: string, args: string[], options?: object, expectServed = true): Promise<string> {
  const theirs = await outcome(childProcess.spawn, command, args, options);
  const before = served();
  const ours = await outcome(forklab.spawn, command, args, options);
  assert.equal(ours, theirs, `${command} ${JSON.stringify(args)} ${JSON.stringify(options)}`);
  if (expectServed) assert.equal(served(), before + 1, 'forklab served the call');
  return ours;
}

test('a polluted Object.prototype.shell does not turn arguments into a shell command', async () => {
  proto.shell = true;
  try {
    for (const options of [undefined, {}, { stdio: 'pipe' }]) {
      const r = await same('echo', ['x; echo INJECTED'], options);
      assert.doesNotMatch(JSON.parse(r).stdout, /^INJECTED$/m);
    }
  } finally {
    delete proto.shell;
  }
});

test('a polluted Object.prototype.env is treated as child_process treats it', async () => {
  proto.env = { PATH: '/nonexistent', PLANTED: 'yes' };
  try {
    await same('sh', ['-c', '[ -n "$PLANTED" ] && echo "$PLANTED" || echo none'], {});
    await same('sh', ['-c', '[ -n "$PLANTED" ] && echo "$PLANTED" || echo none']);
  } finally {
    delete proto.env;
  }
});

test('process.env reassigned without a secret: the child does not see it', async () => {
  const saved = process.env;
  process.env.FORKLAB_SECRET = 'leaked';
  const { FORKLAB_SECRET: _s, ...rest } = process.env;
  process.env = rest;
  try {
    const r = await same('sh', ['-c', '[ -n "$FORKLAB_SECRET" ] && echo "$FORKLAB_SECRET" || echo absent']);
    // Node 20 to 24 build the child's environment from the reassigned object; Node 26's child_process passes
    // the removed key on (forklab does what child_process does, compared above)
    if (Number(process.versions.node.split('.')[0]) < 26) assert.equal(JSON.parse(r).stdout, 'absent\n');
  } finally {
    process.env = saved;
    delete process.env.FORKLAB_SECRET;
  }
});

test('a PATH set by the program wins over a duplicate PATH its parent passed', () => {
  // a parent that passes PATH twice, the first one planted: Node reads the environment once at start
  const probe = `const f = await import(${JSON.stringify(new URL('../src/index.ts', import.meta.url).href)});
process.env.PATH = '/usr/bin:/bin';
const r = (m) => m.execFileSync('sh', ['-c', 'command -v ls'], { encoding: 'utf8' }).trim();
console.log(JSON.stringify([r(await import('node:child_process')), r(f)]));`;
  const child = new childProcess.ChildProcess() as childProcess.ChildProcess & { spawn(o: object): void };
  const out: Buffer[] = [];
  const done = new Promise<number>((resolve) => child.on('close', resolve));
  child.spawn({
    file: process.execPath,
    args: [process.execPath, '--import', 'tsx', '--input-type=module', '-e', probe],
    envPairs: ['PATH=/planted', ...Object.entries(process.env).map(([k, v]) => `${k}=${v}`)],
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout?.on('data', (d: Buffer) => out.push(d));
  const limit = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
  return done.then((code) => {
    clearTimeout(limit);
    assert.equal(code, 0);
    const [theirs, ours] = JSON.parse(Buffer.concat(out).toString()) as string[];
    assert.equal(ours, theirs);
    assert.match(ours as string, /^\/(usr\/)?bin\/ls$/);
  });
});

test("NUL bytes and wrong option types are refused in child_process's words, before anything starts", async () => {
  const cases: [string[], object][] = [
    [['a\u0000b'], {}],
    [[], { argv0: 'a\u0000b' }],
    [[], { shell: 'sh\u0000x' }],
    [[], { cwd: '/tmp\u0000x' }],
    [[], { env: { A: 'b\u0000c' } }],
    [[], { shell: 1 }],
    [[], { detached: 'yes' }],
    [[], { stdio: 'everything' }],
    [[], { uid: 'root' }],
    [[], { timeout: Infinity }],
    [[], { timeout: -1 }],
    [[], { killSignal: 'SIGNOPE' }],
  ];
  for (const [args, options] of cases) {
    const theirs = await outcome(childProcess.spawn, 'true', args, options);
    assert.match(theirs, /^threw /, JSON.stringify(options));
    assert.equal(await outcome(forklab.spawn, 'true', args, options), theirs, JSON.stringify(options));
  }
});
