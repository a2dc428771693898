// The addon (native/addon.c), loaded once. Loading fails with a clear error where it cannot work:
// not Linux, not built, or a kernel without pidfd_open (Linux < 5.3).
import { requireAddon } from './locate.cjs';

/** Opaque per-child handle owned by the addon. */
export type NativeHandle = { readonly __brand: 'forklab-spawn-handle' };

/** [err (0 or -errno), pid, handle, parent fd of each stdio entry (-1 unless a pipe)] */
export type NativeSpawnResult = [number, number, NativeHandle | undefined, ...number[]];

export interface NativeAddon {
  spawn(
    file: string,
    argv: string[],
    envp: string[] | null,
    cwd: string | null,
    stdio: number[],
    detached: boolean,
    onexit: (exitStatus: number, termSignal: number) => void,
  ): NativeSpawnResult;
  kill(handle: NativeHandle, signal: number): number;
  ref(handle: NativeHandle): void;
  unref(handle: NativeHandle): void;
}

export const STDIO_IGNORE = -1;
export const STDIO_PIPE = -2;

let addon: NativeAddon | undefined;
let loadError: Error | undefined;

function load(): NativeAddon {
  if (process.platform !== 'linux') {
    throw new Error(`@forklab/spawn works on Linux only (posix_spawn + pidfd); this is ${process.platform}. Use node:child_process.`);
  }
  try {
    return requireAddon() as NativeAddon;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'MODULE_NOT_FOUND') {
      throw new Error('@forklab/spawn: the addon is not built (build/Release/forklab_spawn.node); run `npm rebuild @forklab/spawn` (needs gcc, make, python3).', { cause: err });
    }
    throw err;
  }
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
