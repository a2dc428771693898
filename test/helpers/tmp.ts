// Temporary directories of one test file, removed when its process ends (node:test runs each file in a process
// of its own), so that a run of the suite leaves nothing in the system's temporary folder.
// FORKLAB_TEST_KEEP_TMP=1 keeps them, to look at what a failing test left.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

function removeAll(): void {
  if (process.env.FORKLAB_TEST_KEEP_TMP === '1') return;
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
}

/** A new directory under the system's temporary folder, named prefix + random, removed at exit. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (made.length === 0) process.once('exit', removeAll);
  made.push(dir);
  return dir;
}
