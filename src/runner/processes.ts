// Every process group forklab starts is registered here, so that Ctrl-C, an error or the end of the
// process can kill whatever is still alive (the probe and any child it forked).

const live = new Set<number>();

export function registerGroup(pgid: number): void {
  live.add(pgid);
}

export function forgetGroup(pgid: number): void {
  live.delete(pgid);
}

/** SIGKILL to the whole process group; a group that is already gone is fine. */
export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    /* ESRCH: nothing left */
  }
}

export function killAllGroups(): number {
  const n = live.size;
  for (const g of live) killGroup(g);
  live.clear();
  return n;
}

export function liveGroupCount(): number {
  return live.size;
}

let installed = false;
/** Kills every registered group when this process exits, however it exits. */
export function installExitCleanup(): void {
  if (installed) return;
  installed = true;
  process.on('exit', () => {
    killAllGroups();
  });
}
