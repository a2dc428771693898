// Every place where forklab reaches into Node, and nowhere else in the package (request.ts reads the values these
// hand over; handle.ts forwards to the Process handle it is given):
// - the ChildProcess constructor makes `this._handle = new Process()` and sets its onexit (read from its source);
// - ChildProcess.prototype.spawn is wrapped once, over whatever is there then (an APM agent's or a spy's wrapper,
//   installed before or after, keeps working; one that puts Node's method back is noticed at the call that
//   bypassed forklab, through Node's 'child_process' diagnostics channel under register, and wrapped again), so
//   that for a call forklab serves `this._handle` is forklab's before child_process's own
//   method runs; the Process handle's symbols (owner_symbol) are copied to it;
// - a pipe's parent end is opened on Node's Pipe handle with open(fd) (by the addon; here for an older addon);
// - Node's own Process handle, left unused, is freed (releaseReal) and closed through the addon, which makes
//   closing it safe on libuv >= 1.52;
// - process.binding('spawn_sync').spawn, which spawnSync, execSync and execFileSync look up at call time, is
//   wrapped the same way; it is not even looked up under the permission model (process.binding throws there)
//   or when process.binding is not Node's own function (--pending-deprecation wraps it to warn, DEP0111);
// - process.getActiveResourcesInfo() and process._getActiveHandles() are wrapped to list forklab's running
//   children (a handle's ChildProcess found through Node's owner_symbol);
// - under register, the child_process function a call came through is read from the stack (calledFunction), for
//   the counts; node:child_process's exports are never replaced.
// Any of these that does not look as expected means "node:child_process serves the call", never an exception.
// What was patched is per thread, shared by every copy of the package loaded in it (state.ts).
import childProcess from 'node:child_process';
import { subscribe } from 'node:diagnostics_channel';
import { closeSync } from 'node:fs';
import { count } from './counts.js';
import { native, unavailableReason } from './native.js';
import { childrenAllowed, permissionModel, REFUSED } from './permission.js';
import type { HandleShape, SpawnRequest } from './request.js';
import { type FunctionName, type Method, type PatchState, type ProcessHandle, shared } from './state.js';

export type { ProcessHandle } from './state.js';

type ChildInternals = { _handle: ProcessHandle | null };
export type HandleFactory = (real: ProcessHandle, fn: FunctionName, command: unknown) => ProcessHandle;
/** forklab's sync spawner: `below` is what binding.spawn was before forklab's wrapper */
export type SyncImpl = (below: Method, self: unknown, options: unknown, fn: FunctionName, armed: boolean) => unknown;

// Members of Node's objects that its types do not declare: read as unknown, checked before use
const protoObject: object = childProcess.ChildProcess.prototype;
const proto: { spawn?: unknown } = protoObject;
const processObject: object = process;
const undeclared: { binding?: unknown; _getActiveHandles?: unknown } = processObject;

/** ChildProcess.prototype.spawn as it is now (Node's own method, or whatever wraps it) */
const spawnMethod = (): Method => proto.spawn as Method;

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

/** Opens each pipe's parent end on child_process's Pipe handle (closed when that fails). */
export function openPipeEnds(r: SpawnRequest, fds: number[]): void {
  r.stdio.forEach((s, i) => {
    const fd = fds[i] ?? -1;
    if (fd >= 0 && (s.handle?.open?.(fd) ?? -1) !== 0) closeSync(fd);
  });
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
/** The forklab handle (handle.ts); set once. */
export function setHandleFactory(f: HandleFactory): void {
  factory ??= f;
}

// forklab's running children (shared.children.live, kept by handle.ts) listed by process.getActiveResourcesInfo() as
// 'ProcessWrap' and by process._getActiveHandles() as their ChildProcess while referenced, as Node lists its own: both
// functions are wrapped once, at forklab's first use.
function patchResources(): void {
  if (children.resourcesPatched) return;
  children.resourcesPatched = true;
  const below = process.getActiveResourcesInfo as ((...a: unknown[]) => unknown) | undefined;
  if (typeof below !== 'function') return;
  process.getActiveResourcesInfo = function getActiveResourcesInfo(this: unknown, ...a: unknown[]): string[] {
    const list = Reflect.apply(below, this, a) as string[];
    let n = 0;
    for (const h of children.live) if (h.hasRef()) n++;
    if (n === 0 || !Array.isArray(list)) return list;
    // Node's order: requests, handles, then timers and immediates
    let at = list.length;
    while (at > 0 && (list[at - 1] === 'Timeout' || list[at - 1] === 'Immediate')) at--;
    list.splice(at, 0, ...Array<string>(n).fill('ProcessWrap'));
    return list;
  };
  // process._getActiveHandles() lists a running child's ChildProcess (its handle's owner), as Node lists its own
  const handles = undeclared._getActiveHandles;
  if (typeof handles !== 'function') return;
  undeclared._getActiveHandles = function _getActiveHandles(this: unknown, ...a: unknown[]): unknown {
    const list = Reflect.apply(handles, this, a);
    if (!Array.isArray(list)) return list;
    for (const h of children.live) {
      if (!h.hasRef()) continue;
      const owner = ownerOf(h);
      if (owner !== undefined && !list.includes(owner)) list.push(owner);
    }
    return list;
  };
}

/** The ChildProcess a handle belongs to (Node's owner_symbol, copied from its own Process handle). */
function ownerOf(h: ProcessHandle): unknown {
  for (const sym of Object.getOwnPropertySymbols(h)) if (sym.description === 'owner_symbol') return h[sym];
  return undefined;
}

function swapHandle(child: ChildInternals, options: unknown, fn: FunctionName): void {
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
  const h = factory(real, fn, command);
  h.onexit = real.onexit;
  for (const s of Object.getOwnPropertySymbols(real)) h[s] = real[s];
  children.handles.add(h);
  child._handle = h;
}

const ASYNC: readonly FunctionName[] = ['spawn', 'exec', 'execFile', 'fork'];
const SYNC: readonly FunctionName[] = ['spawnSync', 'execSync', 'execFileSync'];

/**
 * Under register, the child_process function a call came through, for the counts: the outermost of
 * node:child_process's own functions among `names` on the stack above `from` (exec → execFile → spawn is 'exec';
 * cluster's workers are 'fork'). `otherwise` where none is (`new ChildProcess().spawn()`) or the stack cannot be
 * read (a frozen Error). About 6–10 µs a call, beside a spawn's milliseconds.
 */
function calledFunction(from: Method, names: readonly FunctionName[], otherwise: FunctionName): FunctionName {
  const E = Error;
  const prepare = E.prepareStackTrace;
  const limit = E.stackTraceLimit;
  let found = otherwise;
  try {
    E.prepareStackTrace = (_error, sites) => sites;
    E.stackTraceLimit = 12;
    const holder: { stack?: unknown } = {};
    E.captureStackTrace(holder, from);
    const sites = holder.stack;
    if (Array.isArray(sites)) {
      for (const site of sites as NodeJS.CallSite[]) {
        const name = site.getFunctionName();
        if (site.getFileName() === 'node:child_process' && names.includes(name as FunctionName)) found = name as FunctionName;
      }
    }
  } catch {
    // not readable here: `otherwise`
  } finally {
    try {
      E.prepareStackTrace = prepare;
      E.stackTraceLimit = limit;
    } catch {
      // (as it was: it could not be set either)
    }
  }
  return found;
}

function wrapOver(below: Method): void {
  const wrapper = function spawn(this: unknown, ...a: unknown[]): unknown {
    state.seen++;
    if (state.armed > 0 || state.registered) {
      state.passed.add(this as object);
      const fn = state.armed > 0 ? state.current : calledFunction(wrapper, ASYNC, 'ChildProcess');
      try {
        swapHandle(this as ChildInternals, a[0], fn);
      } catch (err) {
        count(fn, false, `node internals: ${(err as Error)?.message ?? err}`, (a[0] as { file?: unknown } | null)?.file);
      }
    }
    return Reflect.apply(below, this, a);
  };
  state.wrapper = wrapper;
  proto.spawn = wrapper;
}

function install(): void {
  if (!state.wrapper) wrapOver(spawnMethod());
  patchResources();
}

const BYPASSED = 'node internals: ChildProcess.prototype.spawn was replaced without forklab’s wrapper; wrapped again';

/**
 * Under register, a call that did not pass through forklab's wrapper (someone put Node's own
 * ChildProcess.prototype.spawn back): Node publishes every ChildProcess it makes on its 'child_process' channel;
 * one spawned by the time the call's synchronous code is over, without passing the wrapper, is counted as
 * child_process's and the method is wrapped again. Only looked at while the method is not forklab's wrapper.
 */
function watchBypasses(): void {
  if (state.watching) return;
  state.watching = true;
  subscribe('child_process', function made(message) {
    if (!state.registered || state.armed > 0 || spawnMethod() === state.wrapper) return;
    const child = (message as { process?: unknown } | null)?.process;
    if (!(child instanceof childProcess.ChildProcess)) return;
    const fn = calledFunction(made, ASYNC, 'ChildProcess');
    queueMicrotask(() => {
      if (child.spawnfile == null || state.passed.has(child)) return;
      count(fn, false, BYPASSED, child.spawnfile);
      wrapOver(spawnMethod());
    });
  });
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
    if (state.seen === seen && r instanceof childProcess.ChildProcess && r.spawnfile != null) {
      count(fn, false, BYPASSED, command);
      wrapOver(spawnMethod());
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
  watchBypasses();
}

function lookUpSync(): NonNullable<PatchState['sync']> {
  if (state.sync) return state.sync;
  let binding: { spawn: Method } | null = null;
  let why: string | null = null;
  const bind = undeclared.binding;
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
    const armed = state.armedSync > 0 || state.registered;
    const fn = state.armedSync > 0 ? state.current : armed ? calledFunction(wrapper, SYNC, 'spawnSync') : 'spawnSync';
    return impl(below, this, options, fn, armed);
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
