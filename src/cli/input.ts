// Reading a file the user named (a run document for import, report --input or judge), bounded: a document is a
// few megabytes, so forklab stops at MAX_INPUT_BYTES and says why instead of filling memory (/dev/zero, a FIFO
// that never ends, the wrong file).
import { closeSync, openSync, readSync } from 'node:fs';
import { ForklabError } from '../errors.js';
import { CliError } from './errors.js';
import { errnoText } from './output.js';

/** The most forklab reads of one input file: 256 MiB, far above any run document. */
const MAX_INPUT_BYTES = 256 * 1024 * 1024;

/** The text of FILE ("-": standard input), at most maxBytes; a ForklabError naming the file and the cause otherwise. */
export function readBounded(file: string, maxBytes = MAX_INPUT_BYTES): string {
  let fd: number;
  try {
    fd = file === '-' ? 0 : openSync(file, 'r');
  } catch (e) {
    throw new ForklabError('file', `cannot read ${file}: ${errnoText(e)}`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(1 << 20, maxBytes + 1 - total));
      let n: number;
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
          continue;
        }
        throw new ForklabError('file', `cannot read ${file}: ${errnoText(e)}`);
      }
      if (n === 0) break;
      chunks.push(buf.subarray(0, n));
      total += n;
      if (total > maxBytes)
        throw new ForklabError('file', `${file} is larger than ${Math.round(maxBytes / 1048576)} MiB (or never ends): not a run document; nothing was read into the history`, {
          hint: 'give the file written by --json or forklab export',
        });
    }
  } finally {
    if (fd !== 0) closeSync(fd);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

/** readBounded for a file a command reads (import, judge): a file that cannot be read is a usage error (exit 2) with its hint. */
export function readInputFile(file: string): string {
  try {
    return readBounded(file);
  } catch (e) {
    if (e instanceof ForklabError) throw new CliError(e.message, 2, e.hint);
    throw e;
  }
}
