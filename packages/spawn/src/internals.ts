// Every place where forklab touches Node's internals, and nowhere else in the package:
// - the ChildProcess constructor makes `this._handle = new Process()` and sets its onexit (read from its source);
// - ChildProcess.prototype.spawn is wrapped once, over whatever is there then (an APM agent's or a spy's wrapper,
//   installed before or after, keeps working; one that puts Node's method back is wrapped again at the next
//   forklab call), so that for a call forklab serves `this._handle` is forklab's before child_process's own
//   method runs; the Process handle's symbols (owner_symbol) are copied to it;
// - the Process handle's spawn(...) arguments: one options object (Node 20, 22) or positional (24, 26), read
//   call by call, their stdio entries ({type: 'pipe' | 'ignore' | 'fd' | 'inherit' | 'wrap', ...}, a pipe's end
//   opened on Node's Pipe handle with open(fd), which the addon calls) and the sync binding's options; anything
//   else goes to Node;
// - Node's own Process handle, left unused, is freed (releaseReal) and closed through the addon, which makes
//   closing it safe on libuv >= 1.52;
// - process.binding('spawn_sync').spawn, which spawnSync, execSync and execFileSync look up at call time, is
//   wrapped the same way; it is not even looked up under the permission model (process.binding throws there)
//   or when process.binding is not Node's own function (--pending-deprecation wraps it to warn, DEP0111);
// Any of these that does not look as expected means "node:child_process serves the call", never an exception.
// What was patched is per thread, shared by every copy of the package loaded in it (state.ts).
import childProcess from 'node:child_process';
import { closeSync } from 'node:fs';
import { count, type FunctionName } from './counts.js';
import { native, type NativeSyncRequest, STDIO_IGNORE, STDIO_PIPE, unavailableReason } from './native.js';
import { childrenAllowed, permissionModel, REFUSED } from './permission.js';
import { type Method, type PatchState, shared } from './state.js';

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

interface StdioSpec {
  type: string;
  fd?: number;
  handle?: { open?(fd: number): number; fd?: number };
}

/** A call decoded from the handle's spawn(...) arguments, in the addon's terms. */
export interface SpawnRequest {
  shape: HandleShape;
  file: string;
  /** converted as Node's handle converts them (handleStrings) */
  args: string[];
  cwd: string | null;
  /** null: the child inherits the parent's environ (Node's handle without envPairs) */
  envPairs: string[] | null;
  /** per stdio entry: STDIO_PIPE, STDIO_IGNORE or a descriptor */
  kinds: number[];
  stdio: StdioSpec[];
  detached: boolean;
  uid: number | undefined;
  gid: number | undefined;
  /** why Node's handle must serve it as far as its arguments tell (an unknown stdio entry), or null */
  why: string | null;
}

type ChildInternals = { _handle: (ProcessHandle & Record<symbol, unknown>) | null; spawnfile?: unknown };
export type HandleFactory = (real: ProcessHandle, fn: FunctionName, command: unknown) => ProcessHandle;
/** forklab's sync spawner: `below` is what binding.spawn was before forklab's wrapper */
export type SyncImpl = (below: Method, self: unknown, options: unknown, fn: FunctionName, armed: boolean) => unknown;

const DETACHED_FLAG = 1; // processConstants.kProcessFlagDetached on Node 24 and 26
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

/** what forklab patched and the call in progress, shared by every copy of the package in this thread */
export const state = shared.patches;
const children = shared.children;
if (state.internalsWhy === undefined) state.internalsWhy = constructorWhy();

function stdioWhy(s: StdioSpec): string | null {
  if (s.type === 'pipe' || s.type === 'overlapped') return typeof s.handle?.open === 'function' ? null : 'stdio pipe without a Pipe handle';
  if (s.type === 'wrap') return Number.isInteger(s.handle?.fd) && (s.handle?.fd as number) >= 0 ? null : 'stdio stream without a descriptor';
  if (s.type === 'fd' || s.type === 'inherit') return Number.isInteger(s.fd) ? null : `stdio ${s.type} without a descriptor`;
  return s.type === 'ignore' ? null : `stdio type ${s.type}`;
}

const kindOf = (s: StdioSpec): number =>
  s.type === 'pipe' || s.type === 'overlapped' ? STDIO_PIPE : s.type === 'ignore' ? STDIO_IGNORE : s.type === 'wrap' ? (s.handle?.fd as number) : (s.fd as number);

/** The call in either shape, or null when it is not one forklab knows. Converting its arguments throws what
 * Node's handle would throw (handleStrings). */
export function readRequest(a: unknown[]): SpawnRequest | null {
  let v: unknown[];
  let detached: boolean;
  let shape: HandleShape;
  if (a.length === 1 && typeof a[0] === 'object' && a[0] !== null) {
    const o = a[0] as Record<string, unknown>;
    shape = 'options';
    v = [o.file, o.args, o.cwd, o.envPairs, o.stdio, undefined, o.uid, o.gid];
    detached = Boolean(o.detached);
  } else if (a.length >= 6 && typeof a[5] === 'number') {
    // (windowsHide and windowsVerbatimArguments, flags 2 and 4, mean nothing on Linux: libuv ignores them)
    shape = 'positional';
    v = a;
    detached = ((a[5] as number) & DETACHED_FLAG) !== 0;
  } else return null;
  const [file, args, cwd, envPairs, stdio, , uid, gid] = v;
  if (typeof file !== 'string' || !Array.isArray(stdio)) return null;
  if ((args !== undefined && !Array.isArray(args)) || (envPairs != null && !Array.isArray(envPairs))) return null;
  const specs = stdio as StdioSpec[];
  return {
    shape,
    file,
    args: handleStrings((args as unknown[] | undefined) ?? []),
    cwd: typeof cwd === 'string' && cwd !== '' ? cwd : null, // as Node's handle: an empty cwd means none
    envPairs: envPairs == null ? null : handleStrings(envPairs as unknown[]),
    kinds: specs.map(kindOf),
    stdio: specs,
    detached,
    uid: uid == null ? undefined : (uid as number),
    gid: gid == null ? undefined : (gid as number),
    why: specs.map(stdioWhy).find((w) => w !== null) ?? null,
  };
}

/** Per stdio entry, the Pipe handle that takes a pipe's parent end (the addon calls its open(fd)), else null. */
export function pipeHandles(r: SpawnRequest): (object | null)[] {
  return r.stdio.map((s, i) => (r.kinds[i] === STDIO_PIPE && s.handle ? s.handle : null));
}

/** Opens each pipe's parent end on child_process's Pipe handle (closed when that fails). */
export function openPipeEnds(r: SpawnRequest, fds: number[]): void {
  r.stdio.forEach((s, i) => {
    const fd = fds[i] ?? -1;
    if (fd >= 0 && (s.handle?.open?.(fd) ?? -1) !== 0) closeSync(fd);
  });
}

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/**
 * The arguments (or envPairs entries) as Node's Process handle converts them: String(x) for what converts (42 is
 * "42"); for what does not (a Symbol, an object whose toString throws) Node 22 and later pass an empty string
 * (their handle's conversion fails silently), and Node 20 converts them all and then throws the last failure's
 * error, as checked side by side.
 */
export function handleStrings(list: readonly unknown[]): string[] {
  let i = 0; // the usual case, every entry a string (envPairs has a hundred or more): the list itself, no copy
  while (i < list.length && typeof list[i] === 'string') i++;
  if (i === list.length) return list as string[];
  let failure: { error: unknown } | null = null;
  const out = list.map((x) => {
    try {
      return `${x}`;
    } catch (error) {
      failure = { error };
      return '';
    }
  });
  if (failure && NODE_MAJOR < 22) throw (failure as { error: unknown }).error;
  return out;
}

/**
 * Frees Node's own Process handle, which the ChildProcess constructor made and forklab does not use. Node frees
 * a Process handle only once it is closed, and closes one only after a spawn (a handle never spawned is kept for
 * the life of the process: about 300 bytes of heap and 800 of RSS a call, and through its onexit the whole
 * child). A spawn that libuv refuses before it forks (an inherited descriptor of -1: EINVAL) initialises it; the
 * addon then closes it, and puts it back in the loop's handle queue first where libuv >= 1.52 took it out
 * (native/addon.c, close_process). Every object handed to Node here has no prototype, as child_process's own,
 * so that a polluted Object.prototype (uid, gid) is never read. Node's handle checks the permission model first:
 * its ERR_ACCESS_DENIED is thrown from here, before forklab starts anything.
 */
export function releaseReal(real: ProcessHandle, shape: HandleShape): void {
  const stdio = [{ __proto__: null, type: 'fd', fd: -1 }];
  try {
    if (shape === 'options') real.spawn({ __proto__: null, file: '/', args: ['/'], envPairs: [], stdio });
    else real.spawn('/', ['/'], undefined, [], stdio, 0, undefined, undefined);
  } catch (err) {
    // Node's own refusal (its handle checks the permission model before anything else) is a refusal: thrown as
    // child_process throws it, and nothing is started
    if ((err as { code?: unknown } | null)?.code === 'ERR_ACCESS_DENIED') throw err;
    state.released[0]++; // not initialised: left as it is (kept, never closed)
    return;
  }
  real.onexit = undefined;
  real.unref(); // until its close callback it would count as a running child in getActiveResourcesInfo()
  const outcome = native().closeProcessHandle(real);
  state.released[1 + outcome]!++;
}

/** Node's Process handle's close(), made safe after a spawn that failed before it forked (Node's own calls). */
export function closeReal(real: ProcessHandle, callback?: () => void): void {
  if (callback) native().closeProcessHandle(real, callback);
  else native().closeProcessHandle(real);
}

let factory: HandleFactory | undefined;
let onInstall: (() => void) | undefined;
/** The forklab handle (handle.ts), and what it needs done when forklab is first used; set once. */
export function setHandleFactory(f: HandleFactory, installed: () => void): void {
  factory ??= f;
  onInstall ??= installed;
}

function swapHandle(child: ChildInternals, options: unknown): void {
  const fn = state.current;
  const command = (options as { file?: unknown } | null)?.file;
  const real = child._handle;
  if (!real || children.handles.has(real) || !factory) return;
  if (state.internalsWhy) {
    count(fn, false, state.internalsWhy, command);
    return;
  }
  if (!childrenAllowed()) {
    count(fn, false, REFUSED, command); // Node's handle refuses it (the addon is not even loaded)
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
  children.handles.add(h);
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

function install(): void {
  if (!state.wrapper) wrapOver(proto.spawn);
  onInstall?.();
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

interface SyncStdio {
  type: string;
  fd?: number;
  writable?: boolean;
  input?: ArrayBufferView;
}

export interface SyncRead {
  uid: unknown;
  gid: unknown;
  cwd: string | null;
  detached: boolean;
  /** the request in the addon's terms; converting the arguments throws what Node's binding throws */
  build(): NativeSyncRequest;
}

/** The sync binding's options (what spawnSync builds) in the addon's terms, or why Node's binding must serve them. */
export function readSyncOptions(options: unknown): SyncRead | { why: string } {
  const o = options as Record<string, unknown> | null;
  if (!o || typeof o.file !== 'string' || !Array.isArray(o.stdio)) return { why: 'unrecognised spawn_sync options' };
  const stdio = o.stdio as SyncStdio[];
  for (const s of stdio) {
    if (s.type !== 'pipe' && s.type !== 'ignore' && !((s.type === 'inherit' || s.type === 'fd') && Number.isInteger(s.fd))) return { why: `stdio type ${s.type}` };
  }
  const cwd = (o.cwd as string | undefined) ?? null;
  const build = (): NativeSyncRequest => ({
    file: o.file as string,
    // as Node's sync spawner: entries that are not strings are converted (42 is "42"); without envPairs, environ
    args: ((o.args as unknown[] | undefined) ?? []).map((x) => `${x}`),
    envPairs: o.envPairs == null ? null : (o.envPairs as unknown[]).map((x) => `${x}`),
    cwd, // (an empty one fails with ENOENT, as Node's sync spawner: chdir(""))
    stdio: stdio.map((s) => (s.type === 'pipe' ? STDIO_PIPE : s.type === 'ignore' ? STDIO_IGNORE : (s.fd as number))),
    input: stdio.map((s) => (s.type === 'pipe' && s.input ? new Uint8Array(s.input.buffer, s.input.byteOffset, s.input.byteLength) : null)),
    readable: stdio.map((s) => s.type === 'pipe' && Boolean(s.writable)),
    detached: Boolean(o.detached),
    timeoutMs: (o.timeout as number | undefined) ?? 0,
    // as Node's sync spawner: a maxBuffer of 0 is no limit
    maxBuffer: typeof o.maxBuffer === 'number' && o.maxBuffer > 0 ? o.maxBuffer : Number.POSITIVE_INFINITY,
    killSignal: (o.killSignal as number | undefined) ?? 15,
  });
  return { uid: o.uid, gid: o.gid, cwd, detached: Boolean(o.detached), build };
}

function lookUpSync(): NonNullable<PatchState['sync']> {
  if (state.sync) return state.sync;
  let binding: { spawn: Method } | null = null;
  let why: string | null = null;
  const bind = (process as unknown as { binding?: (name: string) => unknown }).binding;
  if (permissionModel()) why = 'node internals: process.binding is refused under Node’s permission model';
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

function wrapSyncOver(st: NonNullable<PatchState['sync']>, impl: SyncImpl): void {
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
  const st = state.sync as NonNullable<PatchState['sync']>;
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
