// Where forklab meets node:child_process: ChildProcess.prototype.spawn is wrapped so that, for a call
// forklab serves, `this._handle` is a ForklabProcessHandle before child_process's own spawn method runs;
// everything else (validation, envPairs from process.env, stdio pipes, errors, events, IPC) stays Node's.
// The wrapper is installed at the first forklab call (spawn, exec, execFile, fork of this package) and stays:
// outside a forklab call (and without register) it hands the call to child_process's own method untouched.
// Installing and removing it around every call would change ChildProcess.prototype each time, which throws away
// V8's caches for everything child_process looks up through it: that alone made a spawn about 40 % slower.
// State is per thread and shared by every copy of the package loaded in it (ES module and CommonJS builds),
// through a global symbol.
import childProcess from 'node:child_process';
import { channel } from 'node:diagnostics_channel';
import { ForklabProcessHandle, type HandleShape, type ProcessHandle } from './handle.js';
import { unavailableReason } from './native.js';

export const FALLBACK_CHANNEL = 'forklab:spawn:fallback';

export type FunctionName = 'spawn' | 'exec' | 'execFile' | 'fork' | 'spawnSync' | 'execSync' | 'execFileSync' | 'ChildProcess';

export interface FunctionStats {
  served: number;
  fallbacks: number;
  byReason: Record<string, number>;
}

export interface FallbackEvent {
  /** why node:child_process served the call: an option (uid, gid), 'unavailable: …', 'node internals: …' */
  reason: string;
  function: FunctionName;
  command: string;
}

interface State {
  /** FORKLAB_SPAWN=off when the package loaded: every call is child_process's own (an incident switch). */
  disabled: string | null;
  shape: HandleShape | null;
  shapeWhy: string;
  originalMethod: (this: unknown, ...a: unknown[]) => unknown;
  wrapper: ((this: unknown, ...a: unknown[]) => unknown) | undefined;
  armed: number;
  registered: boolean;
  current: FunctionName;
  said: Set<string>;
  stats: Map<FunctionName, FunctionStats>;
}

type ChildInternals = { _handle: (ProcessHandle & Record<symbol, unknown>) | null; spawnfile?: string };

const proto = childProcess.ChildProcess.prototype as unknown as { spawn: (this: unknown, ...a: unknown[]) => unknown };
const BRAND = Symbol.for('forklab.spawn.handle');
const STATE = Symbol.for('forklab.spawn.state');
const fallbackChannel = channel(FALLBACK_CHANNEL);

function detectShape(method: unknown): [HandleShape | null, string] {
  const src = Function.prototype.toString.call(method);
  const ctor = Function.prototype.toString.call(childProcess.ChildProcess);
  if (!/this\._handle\s*=\s*new Process\(\)/.test(ctor) || !/this\._handle\.onexit\s*=/.test(ctor)) return [null, 'the ChildProcess constructor does not make a Process handle'];
  if (/this\._handle\.spawn\(options\)/.test(src)) return ['options', ''];
  const positional =
    /this\._handle\.spawn\(\s*options\.file,\s*options\.args,\s*options\.cwd,\s*options\.envPairs,\s*options\.stdio,\s*spawnFlags,\s*options\.uid,\s*options\.gid,?\s*\)/;
  if (positional.test(src) && /kProcessFlagDetached/.test(src)) return ['positional', ''];
  return [null, 'ChildProcess.prototype.spawn calls this._handle.spawn in a shape forklab does not know'];
}

function makeState(): State {
  const [shape, why] = detectShape(proto.spawn);
  return {
    disabled: process.env.FORKLAB_SPAWN === 'off' ? 'disabled: FORKLAB_SPAWN=off' : null,
    shape,
    shapeWhy: shape ? '' : `node internals: ${why} (Node ${process.version}); node:child_process serves every call`,
    originalMethod: proto.spawn,
    wrapper: undefined,
    armed: 0,
    registered: false,
    current: 'ChildProcess',
    said: new Set(),
    stats: new Map(),
  };
}

const g = globalThis as unknown as Record<symbol, State>;
g[STATE] ??= makeState();
export const state: State = g[STATE];

export function count(fn: FunctionName, served: boolean, reason: string | null, command: unknown): void {
  let s = state.stats.get(fn);
  if (!s) {
    s = { served: 0, fallbacks: 0, byReason: {} };
    state.stats.set(fn, s);
  }
  if (served) {
    s.served++;
    return;
  }
  const why = reason ?? 'unknown';
  s.fallbacks++;
  s.byReason[why] = (s.byReason[why] ?? 0) + 1;
  const event: FallbackEvent = { reason: why, function: fn, command: String(command) };
  // a reason that is about this process (no addon, unknown internals) is said once; an option every time
  const once = why.startsWith('unavailable') || why.startsWith('node internals') || why.startsWith('disabled');
  if (once && state.said.has(why)) return;
  state.said.add(why);
  if (fallbackChannel.hasSubscribers) fallbackChannel.publish(event);
  if (process.env.FORKLAB_SPAWN_LOG === '1') process.stderr.write(`forklab/spawn: node:child_process serves ${fn}(${event.command}): ${why}\n`);
}

function swapHandle(child: ChildInternals, options: unknown): void {
  const fn = state.current;
  const command = (options as { file?: unknown } | null)?.file;
  const real = child._handle;
  if (!real || real[BRAND]) return;
  if (state.disabled) {
    count(fn, false, state.disabled, command);
    return;
  }
  if (!state.shape) {
    count(fn, false, state.shapeWhy, command);
    return;
  }
  const missing = unavailableReason();
  if (missing !== null) {
    count(fn, false, `unavailable: ${missing.split('\n')[0]}`, command);
    return;
  }
  const h = new ForklabProcessHandle(real, state.shape, (served, reason) => count(fn, served, reason, command)) as unknown as ProcessHandle & Record<symbol, unknown>;
  h.onexit = real.onexit;
  for (const s of Object.getOwnPropertySymbols(real)) h[s] = real[s];
  h[BRAND] = true;
  child._handle = h;
}

function install(): void {
  if (state.wrapper && proto.spawn === state.wrapper) return;
  const original = state.originalMethod;
  const wrapper = function spawn(this: unknown, ...a: unknown[]): unknown {
    if (state.armed > 0 || state.registered) swapHandle(this as ChildInternals, a[0]);
    return Reflect.apply(original, this, a);
  };
  state.wrapper = wrapper;
  proto.spawn = wrapper;
}

/** Runs call (a child_process function) with forklab serving the children it starts. */
export function armed<T>(fn: FunctionName, call: () => T): T {
  const prev = state.current;
  if (state.armed === 0) state.current = fn;
  state.armed++;
  install();
  try {
    return call();
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

/** Counts per function since the package loaded in this thread. */
export function statsByFunction(): Partial<Record<FunctionName, FunctionStats>> {
  const out: Partial<Record<FunctionName, FunctionStats>> = {};
  for (const [fn, s] of state.stats) out[fn] = { served: s.served, fallbacks: s.fallbacks, byReason: { ...s.byReason } };
  return out;
}
