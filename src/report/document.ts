// Writing a run document (or a report) to a file the user named. The document itself: src/document/run.ts.
import { mkdtempSync, renameSync, writeFileSync, rmSync, statSync, accessSync, constants } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export {
  DOCUMENT_SCHEMA,
  DOCUMENT_VERSION,
  buildDocument,
  documentWitness,
  measurementToJson,
  type RunDocument,
} from '../document/run.js';

/** Throws a plain Error naming the problem when FILE cannot be written (checked before any work). */
export function checkWritable(file: string): void {
  const dir = dirname(resolve(file));
  let st;
  try {
    st = statSync(dir);
  } catch {
    throw new Error(`directory ${dir} does not exist`);
  }
  if (!st.isDirectory()) throw new Error(`${dir} is not a directory`);
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    throw new Error(`directory ${dir} is not writable`);
  }
  try {
    if (statSync(file).isDirectory()) throw new Error(`${file} is a directory`);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/** Writes to a temporary file beside FILE, then renames: FILE is either the old or the whole new content. */
export function writeFileAtomic(file: string, text: string): void {
  const dir = mkdtempSync(join(dirname(resolve(file)), '.forklab-'));
  const tmp = join(dir, 'out');
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, resolve(file));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
