// The sync family: spawnSync, execSync and execFileSync all end in process.binding('spawn_sync').spawn(options),
// which child_process looks up at call time. forklab's replacement takes the same options (validated by
// Node) and returns the same result object, from the addon's posix_spawn + poll loop (native/spawn_sync.c).
import { count, state as handleState, type FunctionName } from './internals.js';
import { native, type NativeSyncResult, STDIO_IGNORE, STDIO_PIPE, unavailableReason } from './native.js';

interface SyncStdio {
  type: string;
  fd?: number;
  readable?: boolean;
  writable?: boolean;
  input?: ArrayBufferView;
}

interface SyncOptions {
  file: string;
  args?: string[];
  cwd?: string;
  envPairs?: string[];
  stdio: SyncStdio[];
  detached?: boolean;
  uid?: number;
  gid?: number;
  timeout?: number;
  maxBuffer?: number;
  killSignal?: number;
}

type SyncBinding = { spawn: (options: SyncOptions) => NativeSyncResult };

/** Per thread, shared by every copy of the package loaded in it (ES module and CommonJS builds). */
interface SyncState {
  binding: SyncBinding;
  realSync: SyncBinding['spawn'];
  current: FunctionName;
  depth: number;
  registered: boolean;
}
const SYNC_STATE = Symbol.for('forklab.spawn.sync');
const shared = globalThis as unknown as Record<symbol, SyncState | undefined>;

function syncState(): SyncState {
  let st = shared[SYNC_STATE];
  if (!st) {
    const binding = (process as unknown as { binding(n: string): SyncBinding }).binding('spawn_sync');
    st = { binding, realSync: binding.spawn, current: 'spawnSync', depth: 0, registered: false };
    shared[SYNC_STATE] = st;
  }
  return st;
}

function syncReason(o: SyncOptions): string | null {
  if (o.uid !== undefined) return 'uid';
  if (o.gid !== undefined) return 'gid';
  if (typeof o.file !== 'string' || !Array.isArray(o.stdio)) return 'unrecognised spawn_sync options';
  for (const s of o.stdio) {
    if (s.type === 'pipe' || s.type === 'ignore') continue;
    if ((s.type === 'inherit' || s.type === 'fd') && Number.isInteger(s.fd)) continue;
    return `stdio type ${s.type}`;
  }
  return null;
}

function forklabSync(this: unknown, options: SyncOptions): NativeSyncResult {
  const st = syncState();
  const fn = st.current;
  const real = st.realSync;
  if (st.depth === 0 && !st.registered) return Reflect.apply(real, this, [options]); // not a forklab call
  if (handleState.disabled) {
    count(fn, false, handleState.disabled, options?.file);
    return Reflect.apply(real, this, [options]);
  }
  const missing = unavailableReason();
  const addon = missing === null ? native() : undefined;
  const reason = missing !== null ? `unavailable: ${missing.split('\n')[0]}` : !addon?.spawnSync ? 'spawnSync: not in this addon build' : syncReason(options);
  if (reason || !addon?.spawnSync) {
    count(fn, false, reason, options?.file);
    return Reflect.apply(real, this, [options]);
  }
  count(fn, true, null, options.file);
  const stdio = options.stdio.map((s) => (s.type === 'pipe' ? STDIO_PIPE : s.type === 'ignore' ? STDIO_IGNORE : (s.fd as number)));
  const input = options.stdio.map((s) => (s.type === 'pipe' && s.input ? new Uint8Array(s.input.buffer, s.input.byteOffset, s.input.byteLength) : null));
  const readable = options.stdio.map((s) => s.type === 'pipe' && Boolean(s.writable));
  return addon.spawnSync({
    file: options.file,
    // as Node's sync spawner: entries that are not strings are converted (42 is "42")
    args: (options.args ?? []).map((x) => `${x}`),
    envPairs: (options.envPairs ?? []).map((x) => `${x}`),
    cwd: options.cwd ?? null,
    stdio,
    input,
    readable,
    detached: Boolean(options.detached),
    timeoutMs: options.timeout ?? 0,
    // as Node's sync spawner: a maxBuffer of 0 is no limit
    maxBuffer: options.maxBuffer !== undefined && options.maxBuffer > 0 ? options.maxBuffer : Number.POSITIVE_INFINITY,
    killSignal: options.killSignal ?? 15,
  });
}

/** Runs call (spawnSync, execSync or execFileSync) with forklab's sync spawner in place. */
export function armedSync<T>(fn: FunctionName, call: () => T): T {
  const st = syncState();
  const prev = st.current;
  if (st.depth === 0) st.current = fn;
  st.depth++;
  // installed once and left (outside a forklab call it hands over to Node's): changing the binding around
  // every call would throw away V8's caches for it
  if (st.binding.spawn !== forklabSync) st.binding.spawn = forklabSync;
  try {
    return call();
  } finally {
    st.depth--;
    st.current = prev;
  }
}

/** The whole thread from now on (register). */
export function registerSync(): void {
  const st = syncState();
  st.registered = true;
  st.binding.spawn = forklabSync;
}
