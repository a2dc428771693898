// What every copy of the package loaded in one thread shares, in one object under one registered symbol on
// globalThis. A program can hold two copies: the ES module and the CommonJS build (`import` and `require` of
// @forklab/spawn, or register through both `-r` and `--import`). Both patch the same ChildProcess.prototype,
// spawn_sync binding and process functions, so they must patch them once and know each other's process handles;
// both answer registerStats(), so they count into one place; register must install once whichever entry runs
// first; and the look at Node's mechanism (a spawn) is made once. A copy that loads later takes the object there;
// each section is made by the first copy that loads. Per thread: a worker has its own globalThis, child_process
// and handles.

// The types of what the state holds are declared here, so that the modules sharing it import it and not each
// other (aside.ts, counts.ts and internals.ts hand them on under their old names).

export type NodeMechanism = 'fork' | 'posix_spawn';

export interface MechanismVerdict {
  mechanism: NodeMechanism;
  /** how it was decided: the libuv version, the look at the mechanism, or the variable */
  why: string;
  /** a value of the variable that was not understood (then the version decides) */
  warning: string | null;
  /** on a Node that spawns with posix_spawn: the calls its libuv still forks for and forklab serves without fork
   * ('detached'); every other call is Node's. Empty there: forklab steps aside. */
  served: string[];
}

export type FunctionName = 'spawn' | 'exec' | 'execFile' | 'fork' | 'spawnSync' | 'execSync' | 'execFileSync' | 'ChildProcess';

export interface FunctionStats {
  served: number;
  fallbacks: number;
  byReason: Record<string, number>;
}

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
  /** Node's own symbols (owner_symbol, ...), copied from its Process handle to forklab's */
  [key: symbol]: unknown;
}

/** A method of Node's, as forklab calls it: `this` and the arguments passed through. */
export type Method = (this: unknown, ...a: unknown[]) => unknown;

/** internals.ts: what it has patched, and the forklab call in progress. */
export interface PatchState {
  /** FORKLAB_SPAWN=off when the package first loaded: every call is child_process's own, nothing is patched. */
  disabled: string | null;
  /** why the ChildProcess constructor is not one forklab knows (null: it is; undefined until the first copy looked) */
  internalsWhy: string | null | undefined;
  /** forklab's wrapper of ChildProcess.prototype.spawn, once installed */
  wrapper: Method | undefined;
  /** calls that went through the wrapper */
  seen: number;
  /** under register, the ChildProcess objects whose spawn went through the wrapper (internals.ts watchBypasses) */
  passed: WeakSet<object>;
  /** under register, Node's 'child_process' diagnostics channel is subscribed to (once per thread) */
  watching: boolean;
  armed: number;
  armedSync: number;
  /** register ran (in any copy, through either entry): every call of the thread is forklab's from then on */
  registered: boolean;
  current: FunctionName;
  /** what releaseReal's close did: [threw, nothing closed, closed as it was, put back in the queue first] */
  released: [number, number, number, number];
  /** the spawn_sync binding, looked up once: its spawn wrapped, or why it cannot be */
  sync: { binding: { spawn: Method } | null; why: string | null; wrapper: Method | undefined; seen: number } | undefined;
}

/** forklab's process handles and its running children. */
export interface ChildrenState {
  /** every handle forklab put in a ChildProcess (so that no copy swaps one made by another; forklab trace's
   * recorder, recorders/node/record.cjs, reads it to tell that @forklab/spawn took a call) */
  handles: WeakSet<object>;
  /** running children, kept strongly as Node keeps an active handle: listed by process.getActiveResourcesInfo()
   * and process._getActiveHandles() once those are patched */
  live: Set<ProcessHandle>;
  resourcesPatched: boolean;
}

/** counts.ts: what registerStats() reports, and the process-wide reasons already said once. */
export interface CountState {
  said: Set<string>;
  stats: Map<FunctionName, FunctionStats>;
}

/** aside.ts and index.ts: Node's own mechanism, decided once per (variable, libuv version). */
export interface MechanismState {
  verdicts: Map<string, MechanismVerdict>;
  /** the warning about a FORKLAB_SPAWN_NODE_MECHANISM value not understood was emitted */
  warned: boolean;
}

export interface SharedState {
  patches: PatchState;
  children: ChildrenState;
  counts: CountState;
  mechanism: MechanismState;
}

const KEY = Symbol.for('forklab.spawn');
/** globalThis as the holder of the one key (widened to `object` first: its own declared properties say nothing of it) */
const anyGlobal: object = globalThis;
const holder: { [KEY]?: Partial<SharedState> } = anyGlobal;
const slot: Partial<SharedState> = holder[KEY] ?? {};
holder[KEY] = slot;
slot.patches ??= {
  disabled: process.env.FORKLAB_SPAWN === 'off' ? 'disabled: FORKLAB_SPAWN=off' : null,
  internalsWhy: undefined,
  wrapper: undefined,
  seen: 0,
  passed: new WeakSet(),
  watching: false,
  armed: 0,
  armedSync: 0,
  registered: false,
  current: 'ChildProcess',
  released: [0, 0, 0, 0],
  sync: undefined,
};
slot.children ??= { handles: new WeakSet(), live: new Set(), resourcesPatched: false };
slot.counts ??= { said: new Set(), stats: new Map() };
slot.mechanism ??= { verdicts: new Map(), warned: false };

export const shared: SharedState = { patches: slot.patches, children: slot.children, counts: slot.counts, mechanism: slot.mechanism };
