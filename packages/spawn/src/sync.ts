// The sync family: spawnSync, execSync and execFileSync all end in the spawn_sync binding's spawn(options)
// (internals.ts wraps it). forklab's replacement takes the same options (validated by Node) and returns the same
// result object, from the addon's posix_spawn + poll loop (native/spawn_sync.c).
import { count, type FunctionName } from './counts.js';
import { armedSync as arm, childrenAllowed, installSync, type SyncImpl } from './internals.js';
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

function syncReason(o: SyncOptions): string | null {
  if (!childrenAllowed()) return 'permission: Node’s permission model does not allow child processes (Node’s binding refuses, as child_process)';
  if (o.uid !== undefined && o.uid !== null) return 'uid';
  if (o.gid !== undefined && o.gid !== null) return 'gid';
  if (typeof o.file !== 'string' || !Array.isArray(o.stdio)) return 'unrecognised spawn_sync options';
  const features = native().features;
  if (o.cwd !== undefined && o.cwd !== null && features && !features.addchdir)
    return `cwd: glibc ${features.glibc || '(not glibc)'} has no posix_spawn_file_actions_addchdir_np (2.29)`;
  if (o.detached && features && !features.setsid) return `detached: glibc ${features.glibc} has no POSIX_SPAWN_SETSID (2.26)`;
  for (const s of o.stdio) {
    if (s.type === 'pipe' || s.type === 'ignore') continue;
    if ((s.type === 'inherit' || s.type === 'fd') && Number.isInteger(s.fd)) continue;
    return `stdio type ${s.type}`;
  }
  return null;
}

const forklabSync: SyncImpl = (below, self, opts, fn, armed) => {
  const options = opts as SyncOptions;
  if (!armed) return Reflect.apply(below, self, [options]); // not a forklab call
  const missing = unavailableReason();
  const addon = missing === null ? native() : undefined;
  const reason = missing !== null ? `unavailable: ${missing.split('\n')[0]}` : !addon?.spawnSync ? 'spawnSync: not in this addon build' : syncReason(options);
  if (reason || !addon?.spawnSync) {
    count(fn, false, reason, options?.file);
    return Reflect.apply(below, self, [options]);
  }
  count(fn, true, null, options.file);
  const stdio = options.stdio.map((s) => (s.type === 'pipe' ? STDIO_PIPE : s.type === 'ignore' ? STDIO_IGNORE : (s.fd as number)));
  const input = options.stdio.map((s) => (s.type === 'pipe' && s.input ? new Uint8Array(s.input.buffer, s.input.byteOffset, s.input.byteLength) : null));
  const readable = options.stdio.map((s) => s.type === 'pipe' && Boolean(s.writable));
  const result: NativeSyncResult = addon.spawnSync({
    file: options.file,
    // as Node's sync spawner: entries that are not strings are converted (42 is "42")
    args: (options.args ?? []).map((x) => `${x}`),
    // without envPairs, the parent's environ (as Node's binding)
    envPairs: options.envPairs === undefined || options.envPairs === null ? null : options.envPairs.map((x) => `${x}`),
    cwd: options.cwd ?? null, // (an empty one fails with ENOENT, as Node's sync spawner: chdir(""))
    stdio,
    input,
    readable,
    detached: Boolean(options.detached),
    timeoutMs: options.timeout ?? 0,
    // as Node's sync spawner: a maxBuffer of 0 is no limit
    maxBuffer: options.maxBuffer !== undefined && options.maxBuffer > 0 ? options.maxBuffer : Number.POSITIVE_INFINITY,
    killSignal: options.killSignal ?? 15,
  });
  return result;
};

/** Runs call (spawnSync, execSync or execFileSync) with forklab's sync spawner in place. */
export function armedSync<T>(fn: FunctionName, command: unknown, call: () => T): T {
  return arm(fn, command, forklabSync, call);
}

/** The whole thread from now on (register, after registerHandle): the reason it cannot, or null. */
export function registerSync(): string | null {
  return installSync(forklabSync);
}
