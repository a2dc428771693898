// The sync family: spawnSync, execSync and execFileSync all end in the spawn_sync binding's spawn(options)
// (internals.ts wraps it, request.ts reads its options). forklab's replacement takes the same options (validated by
// Node) and returns the same result object, from the addon's posix_spawn + poll loop (native/spawn_sync.c).
import { nodeSpawnsItself } from './aside.js';
import { count, type FunctionName } from './counts.js';
import { armedSync as arm, installSync, type SyncImpl } from './internals.js';
import { native, unavailableReason } from './native.js';
import { childrenAllowed } from './permission.js';
import { readSyncOptions } from './request.js';

const forklabSync: SyncImpl = (below, self, options, fn, armed) => {
  if (!armed) return Reflect.apply(below, self, [options]); // not a forklab call
  const command = (options as { file?: unknown } | null)?.file;
  const missing = unavailableReason();
  const addon = missing === null ? native() : undefined;
  const read = readSyncOptions(options);
  let reason: string | null = null;
  if (missing !== null) reason = `unavailable: ${missing.split('\n')[0]}`;
  else if (!addon?.spawnSync) reason = 'spawnSync: not in this addon build';
  else if (!childrenAllowed()) reason = 'permission: Node’s permission model does not allow child processes (Node’s binding refuses, as child_process)';
  else if ('why' in read) reason = read.why;
  else if (read.uid != null) reason = 'uid';
  else if (read.gid != null) reason = 'gid';
  else {
    const features = addon.features;
    if (read.cwd !== null && features && !features.addchdir) reason = `cwd: glibc ${features.glibc || '(not glibc)'} has no posix_spawn_file_actions_addchdir_np (2.29)`;
    else if (read.detached && features && !features.setsid) reason = `detached: glibc ${features.glibc} has no POSIX_SPAWN_SETSID (2.26)`;
    else reason = nodeSpawnsItself(read);
  }
  if (reason !== null || !addon?.spawnSync || 'why' in read) {
    count(fn, false, reason, command);
    return Reflect.apply(below, self, [options]);
  }
  count(fn, true, null, command);
  return addon.spawnSync(read.build());
};

/** Runs call (spawnSync, execSync or execFileSync) with forklab's sync spawner in place. */
export function armedSync<T>(fn: FunctionName, command: unknown, call: () => T): T {
  return arm(fn, command, forklabSync, call);
}

/** The whole thread from now on (register, after registerHandle): the reason it cannot, or null. */
export function registerSync(): string | null {
  return installSync(forklabSync);
}
