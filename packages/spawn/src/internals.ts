// Every place where forklab touches Node's internals, and nowhere else in the package:
// - the ChildProcess constructor makes `this._handle = new Process()` and sets its onexit (read from its source);
// - ChildProcess.prototype.spawn is wrapped once, over whatever is there then (an APM agent's or a spy's wrapper,
//   installed before or after, keeps working; one that puts Node's method back is wrapped again at the next
//   forklab call), so that for a call forklab serves `this._handle` is forklab's before child_process's own
//   method runs; the Process handle's symbols (owner_symbol) are copied to it;
// - the Process handle's spawn(...) arguments: one options object (Node 20, 22) or positional (24, 26), read
//   call by call; anything else goes to Node's handle;
// - Node's own Process handle, left unused, is freed (releaseReal) and closed through the addon, which makes
//   closing it safe on libuv >= 1.52;
// - process.binding('spawn_sync').spawn, which spawnSync, execSync and execFileSync look up at call time, is
//   wrapped the same way; it is not even looked up under the permission model (process.binding throws there)
//   or when process.binding is not Node's own function (--pending-deprecation wraps it to warn, DEP0111);
// - process.getActiveResourcesInfo() lists forklab's running children as 'ProcessWrap', as Node lists its own.
// Any of these that does not look as expected means "node:child_process serves the call", never an exception.
// State is per thread, shared by every copy of the package loaded in it (ES module and CommonJS builds).
import childProcess from 'node:child_process';
import { count, type FunctionName } from './counts.js';
import { native, unavailableReason } from './native.js';

export type HandleShape = 'options' | 'positional';

/** Node's Process handle, as far as child_process uses it. */
export interface ProcessHandle {
  pid?: number;
  onexit?: (exitCode: number, signalCode: string) => void;
  spawn(...args: unknown[]): number;
  kill(signal: number): number;
  close(callback?: () => void): void;
  ref(): void;
  unref(): void;
  hasRef(): boolean;
}

export interface StdioSpec {
  type: string;
  fd?: number;
  handle?: { open?(fd: number): number; fd?: number };
  ipc?: boolean;
}

export interface SpawnRequest {
  shape: HandleShape;
  file: string;
  args: string[] | undefined;
  cwd: string | undefined | null;
  /** undefined: the child inherits the parent's environ (Node's handle without envPairs) */
  envPairs: string[] | undefined;
  stdio: StdioSpec[];
  detached: boolean;
  uid: number | undefined;
  gid: number | undefined;
}

type Method = (this: unknown, ...a: unknown[]) => unknown;
type ChildInternals = { _handle: (ProcessHandle & Record<symbol, unknown>) | null; spawnfile?: unknown };
export type HandleFactory = (real: ProcessHandle, fn: FunctionName, command: unknown) => ProcessHandle;
/** forklab's sync spawner: `below` is what binding.spawn was before forklab's wrapper */
export type SyncImpl = (below: Method, self: unknown, options: unknown, fn: FunctionName, armed: boolean) => unknown;

interface State {
  /** FORKLAB_SPAWN=off when the package loaded: every call is child_process's own, nothing is patched. */
  disabled: string | null;
  /** why the ChildProcess constructor is not one forklab knows (null: it is) */
  internalsWhy: string | null;
  wrapper: Method | undefined;
  /** calls that went through the wrapper */
  seen: number;
  armed: number;
  armedSync: number;
  registered: boolean;
  current: FunctionName;
  /** children forklab is running (for getActiveResourcesInfo) */
  live: Set<ProcessHandle>;
  resourcesPatched: boolean;
  /** what releaseReal's close did: [threw, nothing closed, closed as it was, put back in the queue first] */
  released: [number, number, number, number];
  sync: { binding: { spawn: Method } | null; why: string | null; wrapper: Method | undefined; seen: number } | undefined;
}

const DETACHED_FLAG = 1; // processConstants.kProcessFlagDetached on Node 24 and 26
const BRAND = Symbol.for('forklab.spawn.handle');
const STATE = Symbol.for('forklab.spawn.state');
const proto = childProcess.ChildProcess.prototype as unknown as { spawn: Method };

function constructorWhy(): string | null {
  let ctor = '';
  try {
    ctor = Function.prototype.toString.call(childProcess.ChildProcess);
  } catch {
    // unreadable: not recognised
  }
  if (/this\._handle\s*=\s*new Process\(\)/.test(ctor) && /this\._handle\.onexit\s*=/.test(ctor)) return null;
  return `node internals: the ChildProcess constructor does not make a Process handle (Node ${process.version}); node:child_process serves every call`;
}

const g = globalThis as unknown as Record<symbol, State>;
g[STATE] ??= {
  disabled: process.env.FORKLAB_SPAWN === 'off' ? 'disabled: FORKLAB_SPAWN=off' : null,
  internalsWhy: constructorWhy(),
  wrapper: undefined,
  seen: 0,
  armed: 0,
  armedSync: 0,
  registered: false,
  current: 'ChildProcess',
  live: new Set(),
  resourcesPatched: false,
  released: [0, 0, 0, 0],
  sync: undefined,
};
export const state: State = g[STATE];

/** The request in either shape, or null when it is not one forklab knows. */
export function readRequest(a: unknown[]): SpawnRequest | null {
  let r: SpawnRequest;
  if (a.length === 1 && typeof a[0] === 'object' && a[0] !== null) {
    const o = a[0] as Record<string, unknown>;
    const uid = o.uid as number | undefined;
    const gid = o.gid as number | undefined;
    r = {
      shape: 'options',
      file: o.file as string,
      args: o.args as string[],
      cwd: o.cwd as string,
      envPairs: o.envPairs as string[],
      stdio: o.stdio as StdioSpec[],
      detached: Boolean(o.detached),
      uid,
      gid,
    };
  } else if (a.length >= 6 && typeof a[5] === 'number') {
    // (windowsHide and windowsVerbatimArguments, flags 2 and 4, mean nothing on Linux: libuv ignores them)
    const detached = ((a[5] as number) & DETACHED_FLAG) !== 0;
    r = {
      shape: 'positional',
      file: a[0] as string,
      args: a[1] as string[],
      cwd: a[2] as string,
      envPairs: a[3] as string[],
      stdio: a[4] as StdioSpec[],
      detached,
      uid: a[6] as number,
      gid: a[7] as number,
    };
  } else return null;
  if (r.uid === null) r.uid = undefined;
  if (r.gid === null) r.gid = undefined;
  if (typeof r.file !== 'string' || !Array.isArray(r.stdio)) return null;
  if (r.args !== undefined && !Array.isArray(r.args)) return null;
  if (r.envPairs !== undefined && r.envPairs !== null && !Array.isArray(r.envPairs)) return null;
  if (r.envPairs === null) r.envPairs = undefined;
  return r;
}

/** Whether Node lets this process start children (its permission model: process.permission.has('child')). */
export function childrenAllowed(): boolean {
  const p = (process as { permission?: { has(scope: string): boolean } }).permission;
  return p === undefined || p.has('child') === true;
}

/**
 * Frees Node's own Process handle, which the ChildProcess constructor made and forklab does not use. Node frees
 * a Process handle only once it is closed, and closes one only after a spawn (a handle never spawned is kept for
 * the life of the process: about 300 bytes of heap and 800 of RSS a call, and through its onexit the whole
 * child). A spawn that libuv refuses before it forks (an inherited descriptor of -1: EINVAL) initialises it; the
 * addon then closes it, and puts it back in the loop's handle queue first where libuv >= 1.52 took it out
 * (native/addon.c, close_process). Every object handed to Node here has no prototype, as child_process's own,
 * so that a polluted Object.prototype (uid, gid) is never read.
 */
export function releaseReal(real: ProcessHandle, shape: HandleShape): void {
  const stdio = [{ __proto__: null, type: 'fd', fd: -1 }];
  try {
    if (shape === 'options') real.spawn({ __proto__: null, file: '/', args: ['/'], envPairs: [], stdio });
    else real.spawn('/', ['/'], undefined, [], stdio, 0, undefined, undefined);
  } catch {
    state.released[0]++; // not initialised: left as it is (kept, never closed)
    return;
  }
  real.onexit = undefined;
  const outcome = native().closeProcessHandle(real);
  state.released[1 + outcome]!++;
}

/** Node's Process handle's close(), made safe after a spawn that failed before it forked (Node's own calls). */
export function closeReal(real: ProcessHandle, callback?: () => void): void {
  if (callback) native().closeProcessHandle(real, callback);
  else native().closeProcessHandle(real);
}

let factory: HandleFactory | undefined;
/** The forklab handle (handle.ts); set once. */
export function setHandleFactory(f: HandleFactory): void {
  factory ??= f;
}

function swapHandle(child: ChildInternals, options: unknown): void {
  const fn = state.current;
  const command = (options as { file?: unknown } | null)?.file;
  const real = child._handle;
  if (!real || real[BRAND] || !factory) return;
  if (state.internalsWhy) {
    count(fn, false, state.internalsWhy, command);
    return;
  }
  const missing = unavailableReason();
  if (missing !== null) {
    count(fn, false, `unavailable: ${missing.split('\n')[0]}`, command);
    return;
  }
  const h = factory(real, fn, command) as ProcessHandle & Record<symbol, unknown>;
  h.onexit = real.onexit;
  for (const s of Object.getOwnPropertySymbols(real)) h[s] = real[s];
  h[BRAND] = true;
  child._handle = h;
}

function wrapOver(below: Method): void {
  const wrapper = function spawn(this: unknown, ...a: unknown[]): unknown {
    state.seen++;
    if (state.armed > 0 || state.registered) {
      try {
        swapHandle(this as ChildInternals, a[0]);
      } catch (err) {
        count(state.current, false, `node internals: ${(err as Error)?.message ?? err}`, (a[0] as { file?: unknown } | null)?.file);
      }
    }
    return Reflect.apply(below, this, a);
  };
  state.wrapper = wrapper;
  proto.spawn = wrapper;
}

function patchResources(): void {
  if (state.resourcesPatched) return;
  state.resourcesPatched = true;
  const below = process.getActiveResourcesInfo as unknown as Method | undefined;
  if (typeof below !== 'function') return;
  (process as unknown as { getActiveResourcesInfo: Method }).getActiveResourcesInfo = function getActiveResourcesInfo(this: unknown, ...a: unknown[]) {
    const list = Reflect.apply(below, this, a) as unknown;
    let n = 0;
    for (const h of state.live) if (h.hasRef()) n++;
    if (n === 0 || !Array.isArray(list)) return list;
    // Node's order: requests, handles, then timers and immediates
    let at = list.length;
    while (at > 0 && (list[at - 1] === 'Timeout' || list[at - 1] === 'Immediate')) at--;
    list.splice(at, 0, ...Array<string>(n).fill('ProcessWrap'));
    return list;
  };
}

function install(): void {
  if (!state.wrapper) wrapOver(proto.spawn);
  patchResources();
}

/** A child forklab runs, or no longer runs (listed by getActiveResourcesInfo while referenced). */
export function trackLive(h: ProcessHandle, running: boolean): void {
  if (running) state.live.add(h);
  else state.live.delete(h);
}

/** Runs call (a child_process function) with forklab serving the children it starts. */
export function armed<T>(fn: FunctionName, command: unknown, call: () => T): T {
  if (state.disabled) {
    count(fn, false, state.disabled, command);
    return call();
  }
  const prev = state.current;
  if (state.armed === 0) state.current = fn;
  state.armed++;
  install();
  const seen = state.seen;
  try {
    const r = call();
    // Node's spawn ran (spawnfile is set) without passing through forklab's wrapper: someone put a method back
    if (state.seen === seen && r instanceof childProcess.ChildProcess && (r as unknown as ChildInternals).spawnfile != null) {
      count(fn, false, 'node internals: ChildProcess.prototype.spawn was replaced without forklab’s wrapper; wrapped again', command);
      wrapOver(proto.spawn);
    }
    return r;
  } finally {
    state.armed--;
    state.current = prev;
  }
}

/** The whole thread from now on (register). */
export function registerHandle(): void {
  state.registered = true;
  install();
}

function lookUpSync(): NonNullable<State['sync']> {
  if (state.sync) return state.sync;
  let binding: { spawn: Method } | null = null;
  let why: string | null = null;
  const bind = (process as unknown as { binding?: (name: string) => unknown }).binding;
  if ((process as { permission?: unknown }).permission !== undefined) why = 'node internals: process.binding is refused under Node’s permission model';
  else if (typeof bind !== 'function' || bind.name !== 'binding') why = 'node internals: process.binding is not Node’s own (under --pending-deprecation calling it warns: DEP0111)';
  else {
    try {
      const b = bind.call(process, 'spawn_sync') as { spawn?: unknown } | null;
      if (b && typeof b.spawn === 'function') binding = b as { spawn: Method };
      else why = 'node internals: process.binding(’spawn_sync’) has no spawn';
    } catch (err) {
      why = `node internals: process.binding('spawn_sync'): ${(err as Error)?.message ?? err}`;
    }
  }
  state.sync = { binding, why, wrapper: undefined, seen: 0 };
  return state.sync;
}

function wrapSyncOver(st: NonNullable<State['sync']>, impl: SyncImpl): void {
  const binding = st.binding as { spawn: Method };
  const below = binding.spawn;
  const wrapper = function spawn(this: unknown, options: unknown): unknown {
    st.seen++;
    return impl(below, this, options, state.current, state.armedSync > 0 || state.registered);
  };
  st.wrapper = wrapper;
  binding.spawn = wrapper;
}

/** Installs forklab's sync spawner (once); the reason it cannot, or null. */
export function installSync(impl: SyncImpl): string | null {
  const st = lookUpSync();
  if (st.why !== null || !st.binding) return st.why;
  if (!st.wrapper) wrapSyncOver(st, impl);
  return null;
}

/** Runs call (spawnSync, execSync or execFileSync) with forklab's sync spawner in place. */
export function armedSync<T>(fn: FunctionName, command: unknown, impl: SyncImpl, call: () => T): T {
  if (state.disabled) {
    count(fn, false, state.disabled, command);
    return call();
  }
  const why = installSync(impl);
  if (why !== null) {
    count(fn, false, why, command);
    return call();
  }
  const st = state.sync as NonNullable<State['sync']>;
  const prev = state.current;
  if (state.armedSync === 0) state.current = fn;
  state.armedSync++;
  const seen = st.seen;
  try {
    const r = call();
    if (st.seen === seen && st.binding && st.binding.spawn !== st.wrapper) {
      count(fn, false, 'node internals: the spawn_sync binding’s spawn was replaced without forklab’s; wrapped again', command);
      wrapSyncOver(st, impl);
    }
    return r;
  } finally {
    state.armedSync--;
    state.current = prev;
  }
}
