// The addon (native/addon.c), loaded once per thread. Loading fails with a clear error where it cannot work:
// not Linux, no usable binary (every path tried is listed), or a kernel without pidfd_open (Linux < 5.3).
import { requireAddon } from './locate.cjs';

/** Opaque per-child handle owned by the addon. */
export type NativeHandle = { readonly __brand: 'forklab-spawn-handle' };

/** [err (0 or -errno), pid, handle, parent fd of each stdio entry (-1 unless a pipe)] */
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
  envPairs: string[];
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
}

export interface NativeAddon {
  spawn(
    file: string,
    argv: string[],
    envp: string[],
    cwd: string | null,
    stdio: number[],
    detached: boolean,
    onexit: (exitStatus: number, termSignal: number) => void,
  ): NativeSpawnResult;
  kill(handle: NativeHandle, signal: number): number;
  ref(handle: NativeHandle): void;
  unref(handle: NativeHandle): void;
  spawnSync?(req: NativeSyncRequest): NativeSyncResult;
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
    loadError = err as Error;
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
