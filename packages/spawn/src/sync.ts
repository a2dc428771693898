// The sync family: spawnSync, execSync and execFileSync all end in process.binding('spawn_sync').spawn(options),
// which child_process looks up at call time. forklab's replacement takes the same options (validated by
// Node) and returns the same result object, from the addon's posix_spawn + poll loop (native/spawn_sync.c).
import { count, type FunctionName } from './internals.js';
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

let binding: SyncBinding | undefined;
let realSync: SyncBinding['spawn'] | undefined;
let current: FunctionName = 'spawnSync';
let depth = 0;
let registered = false;

function syncBinding(): SyncBinding {
  if (!binding) {
    binding = (process as unknown as { binding(n: string): SyncBinding }).binding('spawn_sync');
    realSync = binding.spawn;
  }
  return binding;
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
  const fn = current;
  const real = realSync as SyncBinding['spawn'];
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
    maxBuffer: options.maxBuffer ?? Number.POSITIVE_INFINITY,
    killSignal: options.killSignal ?? 15,
  });
}

/** Runs call (spawnSync, execSync or execFileSync) with forklab's sync spawner in place. */
export function armedSync<T>(fn: FunctionName, call: () => T): T {
  const b = syncBinding();
  const prev = current;
  if (depth === 0) current = fn;
  depth++;
  b.spawn = forklabSync;
  try {
    return call();
  } finally {
    depth--;
    current = prev;
    if (depth === 0 && !registered) b.spawn = realSync as SyncBinding['spawn'];
  }
}

/** The whole thread from now on (register). */
export function registerSync(): void {
  registered = true;
  syncBinding().spawn = forklabSync;
}
