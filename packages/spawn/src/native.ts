// The addon (native/addon.c), loaded once per thread. Loading fails with a clear error where it cannot work:
// not Linux, no usable binary (every path tried is listed), a kernel without pidfd_open or waitid(P_PIDFD)
// (Linux < 5.4), a glibc whose posix_spawn cannot report an exec failure (< 2.24).
import { requireAddon } from './locate.cjs';

/** Opaque per-child handle owned by the addon. */
export type NativeHandle = { readonly __brand: 'forklab-spawn-handle' };

/** [err (0 or -errno), pid, handle]; an addon built before it opened the pipes itself adds the parent fd of
 * each stdio entry (-1 unless a pipe), for the caller to open or close. */
export type NativeSpawnResult = [number, number, NativeHandle | undefined, ...number[]];

/** What spawnSync's binding returns, before child_process adds stdout/stderr. */
export interface NativeSyncResult {
  pid: number;
  status: number | null;
  signal: string | null;
  output: (Buffer | null)[] | null;
  error?: number;
}

export interface NativeSyncRequest {
  file: string;
  args: string[];
  /** null: the parent's environ */
  envPairs: string[] | null;
  cwd: string | null;
  /** per descriptor: STDIO_PIPE, STDIO_IGNORE or a parent descriptor */
  stdio: number[];
  /** per descriptor: bytes written to the child's end before closing it (pipes only) */
  input: (Uint8Array | null)[];
  /** per descriptor: whether the parent reads what the child writes there */
  readable: boolean[];
  detached: boolean;
  timeoutMs: number;
  maxBuffer: number;
  killSignal: number;
  /** the io_uring rings each of Node's loops holds (loop-rings.ts): held too, as Node's spawnSync loop holds them */
  loopRings: number;
}

/** What the machine offers beyond the addon's floor (glibc 2.17), found at load. */
export interface NativeFeatures {
  /** '' when the C library is not glibc */
  glibc: string;
  /** posix_spawn_file_actions_addchdir_np (glibc 2.29): without it a call with a cwd goes to Node's handle */
  addchdir: boolean;
  /** pidfd_spawn (glibc 2.39): the pidfd comes with the child, no pid-reuse window */
  pidfdSpawn: boolean;
  /** POSIX_SPAWN_SETSID (glibc 2.26): without it a detached call goes to Node's handle */
  setsid: boolean;
  /** uv_version() of the running Node */
  uv: string;
}

export interface NativeAddon {
  spawn(
    file: string,
    argv: string[],
    envp: string[] | null,
    cwd: string | null,
    stdio: number[],
    detached: boolean,
    onexit: (exitStatus: number, signalName: string) => void,
    /** per stdio entry, the Pipe handle whose open(fd) the addon calls with the pipe's parent end, or null */
    pipes?: readonly (object | null)[],
  ): NativeSpawnResult;
  kill(handle: NativeHandle, signal: number): number;
  ref(handle: NativeHandle): void;
  unref(handle: NativeHandle): void;
  /** handle.close(...args) for Node's own Process handle, made safe after a uv_spawn that failed early on
   * libuv >= 1.52: 0 nothing was closed, 1 closed as it was, 2 closed after putting it back in the loop's queue */
  closeProcessHandle(handle: object, ...args: unknown[]): number;
  spawnSync?(req: NativeSyncRequest): NativeSyncResult;
  /** how many times this process has called fork() since the addon loaded (counted by a pthread_atfork handler) */
  forks?(): number;
  features?: NativeFeatures;
}

export const STDIO_IGNORE = -1;
export const STDIO_PIPE = -2;

let addon: NativeAddon | undefined;
let addonPath: string | undefined;
let loadError: Error | undefined;

function load(): NativeAddon {
  if (process.platform !== 'linux') {
    throw new Error(`@forklab/spawn works on Linux only (posix_spawn + pidfd); this is ${process.platform}. Use node:child_process.`);
  }
  const r = requireAddon();
  addonPath = r.path;
  return r.addon as NativeAddon;
}

/** The addon, or the error that explains why it cannot be used here (thrown). */
export function native(): NativeAddon {
  if (addon) return addon;
  if (loadError) throw loadError;
  try {
    addon = load();
    return addon;
  } catch (err) {
    if (!(err as { transient?: boolean }).transient) loadError = err as Error;
    throw err;
  }
}

/** null when the addon loads; otherwise the reason it cannot (used to fall back, never silently). */
export function unavailableReason(): string | null {
  try {
    native();
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Where the loaded addon came from (undefined before it loaded). */
export function loadedAddonPath(): string | undefined {
  return addonPath;
}
