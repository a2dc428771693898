// Where an output file (--json, --html, --markdown) goes, checked before any work, and how it is written:
// a regular file (or a new path) is replaced atomically — a temporary file beside it, then rename — so it holds
// either its old content or the whole new one; a device or a FIFO is written through (never replaced: /dev/null
// stays a device); a symbolic link is followed and the rule applied to what it points at; "-", /dev/stdout,
// /dev/stderr and /dev/fd/N write to the open descriptor. Block devices and sockets are refused.
import {
  accessSync,
  chmodSync,
  chownSync,
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import { ForklabError, UsageError } from '../errors.js';

export type OutputTarget =
  | { kind: 'fd'; fd: number; display: string }
  | { kind: 'through'; path: string; display: string; what: 'character device' | 'FIFO' }
  | { kind: 'atomic'; path: string; display: string; existing: { mode: number; uid: number; gid: number } | null };

/** A write that failed after the checks passed (full disk, I/O error); the message names the file and the cause. */
export class OutputError extends ForklabError {
  constructor(
    readonly display: string,
    readonly errno: string | null,
    message: string,
    hint?: string,
  ) {
    super('file', message, { exitCode: 1, hint });
    this.name = 'OutputError';
  }
}

const ERRNO_TEXT: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EIO: 'input/output error',
  EPIPE: 'the reader closed the pipe',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a component of the path is not a directory',
  EISDIR: 'is a directory',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
  EFBIG: 'file too large',
  EXDEV: 'not on the same file system',
};

/** "no space left on the device (ENOSPC)" from a Node error. */
export function errnoText(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code && ERRNO_TEXT[code]) return `${ERRNO_TEXT[code]} (${code})`;
  return code ? `${(e as Error).message}` : String((e as Error).message ?? e);
}

const FD_PATH = /^\/(?:dev\/(stdout|stderr|stdin|fd\/(\d+))|proc\/self\/fd\/(\d+))$/;

function fdOf(path: string): number | null {
  const m = FD_PATH.exec(path);
  if (!m) return null;
  if (m[1] === 'stdout') return 1;
  if (m[1] === 'stderr') return 2;
  if (m[1] === 'stdin') return 0;
  return Number(m[2] ?? m[3]);
}

/** Follows symbolic links one by one (a dangling one too), returning the final path and its lstat (null: absent). */
function follow(start: string): { path: string; st: Stats | null } {
  let path = start;
  for (let hops = 0; hops < 40; hops++) {
    let st: Stats;
    try {
      st = lstatSync(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { path, st: null };
      throw e;
    }
    if (!st.isSymbolicLink()) return { path, st };
    path = resolve(dirname(path), readlinkSync(path));
  }
  throw Object.assign(new Error('too many levels of symbolic links'), { code: 'ELOOP' });
}

/** Can a new file be created in dir? Tried for real (a temporary directory made and removed): /proc, read-only mounts. */
function probeDirectory(dir: string, bad: (problem: string) => never): void {
  let st: Stats;
  try {
    st = statSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') bad(`directory ${dir} does not exist`);
    if (code === 'ENOTDIR') bad(`${dir} is not a directory (a component of the path is a file)`);
    bad(`cannot reach directory ${dir}: ${errnoText(e)}`);
  }
  if (!st.isDirectory()) bad(`${dir} is not a directory`);
  try {
    accessSync(dir, constants.W_OK);
    rmdirSync(mkdtempSync(join(dir, '.forklab-check-')));
  } catch (e) {
    bad(`cannot create files in ${dir}: ${errnoText(e)}`);
  }
}

/**
 * Where `file` (the value of `flag`) would be written, checked now, before any work: throws a UsageError naming
 * the flag and the problem. Nothing is created or changed.
 */
export function planOutput(flag: string, file: string): OutputTarget {
  const bad = (problem: string): never => {
    throw new UsageError(flag, problem);
  };
  if (file.trim() === '') bad('the file name is empty; give a path, or - for standard output');
  if (file === '-') return { kind: 'fd', fd: 1, display: 'standard output' };
  const abs = resolve(file);
  const fd = fdOf(abs);
  if (fd !== null) {
    if (fd === 0) bad(`${file} is standard input; give a file, or - for standard output`);
    try {
      fstatSync(fd);
    } catch {
      bad(`${file}: descriptor ${fd} is not open`);
    }
    return { kind: 'fd', fd, display: fd === 1 ? 'standard output' : fd === 2 ? 'standard error' : `descriptor ${fd}` };
  }
  let followed: { path: string; st: Stats | null };
  try {
    followed = follow(abs);
  } catch (e) {
    return bad((e as Error).message);
  }
  const { path, st } = followed;
  const via = path === abs ? '' : ` (the link ${file} points at ${path})`;
  if (st === null) {
    probeDirectory(dirname(path), bad);
    return { kind: 'atomic', path, display: file, existing: null };
  }
  if (st.isDirectory()) bad(`${file} is a directory${via}; give a file name`);
  if (st.isBlockDevice()) bad(`${file} is a block device${via}; forklab writes only to files, pipes and character devices`);
  if (st.isSocket()) bad(`${file} is a socket${via}; give a file`);
  if (st.isCharacterDevice() || st.isFIFO()) {
    try {
      accessSync(path, constants.W_OK);
    } catch (e) {
      bad(`cannot write to ${file}${via}: ${errnoText(e)}`);
    }
    return { kind: 'through', path, display: file, what: st.isFIFO() ? 'FIFO' : 'character device' };
  }
  try {
    accessSync(path, constants.W_OK);
  } catch (e) {
    bad(`${file}${via} exists and is not writable (${errnoText(e)}); it was left as it is`);
  }
  probeDirectory(dirname(path), bad);
  return { kind: 'atomic', path, display: file, existing: { mode: st.mode & 0o7777, uid: st.uid, gid: st.gid } };
}

/** Writes all of text to an open descriptor, waiting when a non-blocking pipe is full. */
function writeAllSync(fd: number, text: string | Buffer): void {
  const buf = typeof text === 'string' ? Buffer.from(text) : text;
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(fd, buf, off, buf.length - off);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

function writeAtomic(path: string, text: string, existing: { mode: number; uid: number; gid: number } | null): void {
  const tmp = join(dirname(path), `.${basename(path)}.forklab-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, existing?.mode ?? 0o666);
  try {
    try {
      writeAllSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (existing) {
      chmodSync(tmp, existing.mode);
      if (process.getuid?.() === 0) chownSync(tmp, existing.uid, existing.gid);
    }
    renameSync(tmp, path);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw e;
  }
}

/**
 * Writes text to the target planned before the run. The target is planned again first (the path may have changed
 * meanwhile). Throws OutputError naming the file and the cause (ENOSPC, EIO...); what was there stays as it was.
 */
export function writeOutput(flag: string, target: OutputTarget, text: string): void {
  let t = target;
  try {
    if (t.kind !== 'fd') t = planOutput(flag, t.display);
    if (t.kind === 'fd') writeAllSync(t.fd, text);
    else if (t.kind === 'through') {
      const fd = openSync(t.path, constants.O_WRONLY);
      try {
        writeAllSync(fd, text);
      } finally {
        closeSync(fd);
      }
    } else writeAtomic(t.path, text, t.existing);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? null;
    const why = e instanceof UsageError ? e.message.slice(flag.length + 2) : errnoText(e);
    throw new OutputError(t.display, code, `could not write ${t.display}: ${why}${t.kind === 'atomic' && t.existing ? `; ${t.display} was left as it was` : ''}`);
  }
}

/** The conventional status of a writer whose reader went away (128 + SIGPIPE), as `yes | head` ends. */
export const BROKEN_PIPE_STATUS = 141;

/**
 * Writes text to standard output now. A closed pipe (`forklab export 3 | head -c 100`) ends the process quietly
 * with status 141; any other failure (a full disk: `> /dev/full`) throws OutputError naming the cause.
 */
export function writeStdout(text: string): void {
  try {
    writeAllSync(1, text);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EPIPE') process.exit(BROKEN_PIPE_STATUS);
    throw new OutputError('standard output', (e as NodeJS.ErrnoException).code ?? null, `could not write to standard output: ${errnoText(e)}`);
  }
}

/**
 * For writes through process.stdout and process.stderr, whose failures arrive as 'error' events: a closed pipe
 * ends the process quietly (141), another failure with one line on stderr (status 1), never a stack trace.
 * Probes are killed by the exit handler of the runner.
 */
export function guardStandardStreams(): void {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(BROKEN_PIPE_STATUS);
    try {
      writeSync(2, `forklab: could not write to standard output: ${errnoText(e)}\n`);
    } catch {
      // stderr is gone too: the status says it
    }
    process.exit(1);
  });
  process.stderr.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(BROKEN_PIPE_STATUS);
    process.exit(1);
  });
}
