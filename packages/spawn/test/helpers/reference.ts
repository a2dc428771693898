// The side-by-side tests compare forklab with node:child_process in one process. Under register (the project's
// suite run through scripts/under-register.mjs, or any NODE_OPTIONS that imports @forklab/spawn/register),
// node:child_process is forklab too, so such a test would compare forklab with itself, and its counts would see
// every call twice. `sideBySide(import.meta.url)` gives a `test` that, in a registered process, runs the same test
// in a fresh Node process whose NODE_OPTIONS no longer load register, and passes or fails with it: the reference
// is child_process's own again. Outside register it is node:test's `test`, unchanged.
import { spawnSync } from 'node:child_process';
import { test as nodeTest, type TestContext } from 'node:test';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SharedState } from '../../src/state.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

/** Whether @forklab/spawn's register has been installed in this thread (by any copy of the package: the state they
 * share, src/state.ts). */
export function registerLoaded(): boolean {
  const state: Partial<SharedState> | undefined = Reflect.get(globalThis, Symbol.for('forklab.spawn'));
  return state?.patches?.registered === true;
}

/** An option of NODE_OPTIONS that loads a module (--import, --require, -r), with its value. */
const LOADER = /(?:^|\s)(?:--import|--require|-r)(?:=|\s+)("(?:[^"\\]|\\.)*"|\S+)/g;
/** What register is known as: the package's export, its built file, and scripts/under-register.mjs's collector. */
const REGISTER = /@forklab\/spawn\/register|forklab\/spawn\/register|packages\/spawn\/dist\/(?:cjs\/)?register\.c?js|forklab-under-register-[^/\s"]*\/collector\.mjs/;

/** NODE_OPTIONS without the options that load register (or what loads it); the others kept in their order. */
export function withoutRegister(nodeOptions: string | undefined): string {
  if (!nodeOptions) return '';
  return nodeOptions
    .replace(LOADER, (whole, spec: string) => (REGISTER.test(spec) ? '' : whole))
    .replace(/\s+/g, ' ')
    .trim();
}

/** The environment of a process that must not load register: the given one, its NODE_OPTIONS cleaned. */
export function unregisteredEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out = { ...env };
  const cleaned = withoutRegister(out.NODE_OPTIONS);
  if (cleaned) out.NODE_OPTIONS = cleaned;
  else delete out.NODE_OPTIONS;
  return out;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface Options {
  timeout?: number;
  skip?: boolean | string;
  todo?: boolean | string;
  concurrency?: number | boolean;
}
type Body = (t: TestContext) => void | Promise<void>;

/** Runs one named test of `file` in a Node process without register; throws with its output when it did not pass. */
function runUnregistered(file: string, name: string, timeoutMs: number): void {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', `--test-name-pattern=^${escapeRegExp(name)}$`, file], {
    cwd: repoRoot,
    // (NODE_TEST_CONTEXT would make that process a part of this test run, which runs no file of its own)
    env: { ...unregisteredEnv(), NODE_TEST_CONTEXT: undefined },
    encoding: 'utf8',
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 2 ** 20,
  });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  if (r.error || r.status !== 0) throw new Error(`without register, "${name}" did not pass (${r.error?.message ?? `exit ${r.signal ?? r.status}`}):\n${out.slice(-6000)}`);
  // The test must really have run there: one passing test, none skipped by the pattern alone.
  if (!/^# pass 1$/m.test(out)) throw new Error(`without register, "${name}" was not run (name pattern matched no test):\n${out.slice(-3000)}`);
}

/**
 * node:test's `test` for a side-by-side file (pass `import.meta.url`): in a process where register is loaded, each
 * test runs in a Node process without it instead.
 */
export function sideBySide(fileUrl: string) {
  const file = fileURLToPath(fileUrl);
  // node:test files a test under the file that called test(): here, this helper. Called from a function whose
  // source is named after the test file (its sourceURL), each test is counted under that file by every reporter
  // (Node 20 to 26; its location's line is then 1, the body's stack stays true).
  const declare = new Function('test', 'name', 'options', 'body', `return test(name, options, body);\n//# sourceURL=${file}`) as (
    t: typeof nodeTest,
    name: string,
    options: Options,
    body: Body,
  ) => void;
  function test(name: string, body: Body): void;
  function test(name: string, options: Options, body: Body): void;
  function test(name: string, a: Options | Body, b?: Body): void {
    const options: Options = typeof a === 'function' ? {} : a;
    const body = (typeof a === 'function' ? a : b) as Body;
    if (!registerLoaded()) {
      declare(nodeTest, name, options, body);
      return;
    }
    const limitMs = (options.timeout ?? 120_000) + 30_000;
    declare(nodeTest, `${name} (run without register: child_process is the reference)`, { ...options, timeout: limitMs + 5_000 }, () => runUnregistered(file, name, limitMs));
  }
  return test;
}
