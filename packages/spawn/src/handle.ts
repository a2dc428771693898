// The forklab process handle: what ChildProcess.prototype.spawn finds in `this._handle`. It takes the
// options child_process has already validated and the stdio pipes it has already created, starts the child
// with posix_spawn (native/addon.c), opens the parent ends of the pipes on child_process's own Pipe handles
// (`handle.open(fd)`), and reports the exit through `onexit(exitCode, signalName)`, as Node's ProcessWrap.
// Calls it cannot serve (uid, gid, a stdio entry without a descriptor) go to the real handle it replaced.
import { closeSync } from 'node:fs';
import { constants } from 'node:os';
import { native, STDIO_IGNORE, STDIO_PIPE, type NativeHandle } from './native.js';

/** The two shapes of `this._handle.spawn(...)`: one options object (Node 20, 22), positional (24, 26). */
export type HandleShape = 'options' | 'positional';

/** Node's Process handle, as far as child_process uses it. */
export interface ProcessHandle {
  pid?: number;
  onexit?: (exitCode: number, signalCode: string) => void;
  spawn(...args: unknown[]): number;
  kill(signal: number): number;
  close(callback?: () => void): void;
  ref(): void;
  unref(): void;
  hasRef(): boolean;
}

export interface StdioSpec {
  type: string;
  fd?: number;
  handle?: { open?(fd: number): number; fd?: number };
  ipc?: boolean;
}

export interface SpawnRequest {
  file: string;
  args: string[];
  cwd: string | undefined | null;
  envPairs: string[];
  stdio: StdioSpec[];
  detached: boolean;
  uid: number | undefined;
  gid: number | undefined;
}

const DETACHED_FLAG = 1; // processConstants.kProcessFlagDetached on Node 24 and 26

const signalNames: string[] = [];
for (const [name, n] of Object.entries(constants.signals)) signalNames[n] ??= name;

/** The request in either shape, or null when it is not one we recognise. */
export function readRequest(shape: HandleShape, a: unknown[]): SpawnRequest | null {
  let r: SpawnRequest;
  if (shape === 'options') {
    const o = a[0] as Record<string, unknown> | undefined;
    if (a.length !== 1 || !o || typeof o !== 'object') return null;
    r = {
      file: o.file as string,
      args: o.args as string[],
      cwd: o.cwd as string,
      envPairs: o.envPairs as string[],
      stdio: o.stdio as StdioSpec[],
      detached: Boolean(o.detached),
      uid: o.uid as number,
      gid: o.gid as number,
    };
  } else {
    if (typeof a[5] !== 'number') return null;
    r = {
      file: a[0] as string,
      args: a[1] as string[],
      cwd: a[2] as string,
      envPairs: a[3] as string[],
      stdio: a[4] as StdioSpec[],
      detached: ((a[5] as number) & DETACHED_FLAG) !== 0,
      uid: a[6] as number,
      gid: a[7] as number,
    };
  }
  if (typeof r.file !== 'string' || !Array.isArray(r.stdio)) return null;
  if (r.args !== undefined && !Array.isArray(r.args)) return null;
  if (r.envPairs !== undefined && !Array.isArray(r.envPairs)) return null;
  return r;
}

/** Why this request needs the real handle (null: forklab serves it). */
export function realHandleReason(r: SpawnRequest): string | null {
  if (r.uid !== undefined) return 'uid';
  if (r.gid !== undefined) return 'gid';
  for (const s of r.stdio) {
    if (s.type === 'pipe' || s.type === 'overlapped') {
      if (typeof s.handle?.open !== 'function') return 'stdio pipe without a Pipe handle';
    } else if (s.type === 'wrap') {
      if (!Number.isInteger(s.handle?.fd) || (s.handle?.fd as number) < 0) return 'stdio stream without a descriptor';
    } else if (s.type === 'fd' || s.type === 'inherit') {
      if (!Number.isInteger(s.fd)) return `stdio ${s.type} without a descriptor`;
    } else if (s.type !== 'ignore') return `stdio type ${s.type}`;
  }
  return null;
}

/** Spawn errors child_process emits as 'error' (the others it throws). */
const EMITTED = new Set([-13 /* EACCES */, -11 /* EAGAIN */, -24 /* EMFILE */, -23 /* ENFILE */, -2 /* ENOENT */]);

function openPipes(stdio: StdioSpec[], fds: number[]): void {
  stdio.forEach((s, i) => {
    const fd = fds[i] ?? -1;
    if (fd < 0) return;
    const err = s.handle?.open?.(fd) ?? -1;
    if (err !== 0) closeSync(fd);
  });
}

const UV_EINVAL = -22;

/**
 * Frees Node's own Process handle, which the ChildProcess constructor made and forklab does not use. Node
 * frees a Process handle only when it is closed, and closing one whose libuv handle was never initialised is
 * not safe; a spawn that libuv refuses before it forks (an inherited descriptor of -1: EINVAL) initialises it,
 * and close() then frees it. Without this, the handle's onexit would keep every finished child alive (about 2 KB
 * of JavaScript heap per call).
 */
export function releaseReal(real: ProcessHandle, shape: HandleShape): boolean {
  const stdio = [{ type: 'fd', fd: -1 }];
  const err = shape === 'options' ? real.spawn({ file: '/', args: ['/'], envPairs: [], stdio }) : real.spawn('/', ['/'], undefined, [], stdio, 0, undefined, undefined);
  if (err !== UV_EINVAL) return false;
  real.onexit = undefined;
  real.close();
  return true;
}

export class ForklabProcessHandle implements ProcessHandle {
  pid?: number;
  onexit?: (exitCode: number, signalCode: string) => void;
  /** 'real' after a request forklab could not serve; 'forklab' after one it did */
  mode: 'pending' | 'forklab' | 'real' = 'pending';
  private child: NativeHandle | undefined;
  private refed = true;
  private closed = false;

  constructor(
    private readonly real: ProcessHandle,
    private readonly shape: HandleShape,
    private readonly onServe: (served: boolean, reason: string | null) => void,
  ) {}

  spawn(...a: unknown[]): number {
    const r = readRequest(this.shape, a);
    const reason = r ? realHandleReason(r) : 'unrecognised handle.spawn arguments';
    if (!r || reason) {
      this.mode = 'real';
      this.onServe(false, reason);
      const real = this.real;
      real.onexit = (code, sig) => this.onexit?.(code, sig);
      const err = real.spawn(...a);
      this.pid = real.pid;
      return err;
    }
    // As Node's handle: each argument is converted to a string (42 is "42"; a Symbol throws the TypeError
    // Node's does), and an empty cwd means none.
    const args = (r.args ?? []).map((x) => `${x}`);
    const cwd = r.cwd || null;
    this.mode = 'forklab';
    this.onServe(true, null);
    releaseReal(this.real, this.shape);
    const kinds = r.stdio.map((s) => {
      if (s.type === 'pipe' || s.type === 'overlapped') return STDIO_PIPE;
      if (s.type === 'ignore') return STDIO_IGNORE;
      if (s.type === 'wrap') return s.handle?.fd as number;
      return s.fd as number;
    });
    const [err, pid, child, ...fds] = native().spawn(r.file, args, r.envPairs ?? [], cwd, kinds, r.detached, (status, sig) =>
      this.closed ? undefined : this.onexit?.(status, sig ? (signalNames[sig] ?? `SIG${sig}`) : ''),
    );
    if (err !== 0) {
      // as libuv: after an exec failure child_process reads EOF from the pipes, after any other it closes them
      if (EMITTED.has(err)) openPipes(r.stdio, fds);
      else for (const fd of fds) if (fd >= 0) closeSync(fd);
      return err;
    }
    this.pid = pid;
    this.child = child;
    if (!this.refed) native().unref(child as NativeHandle);
    openPipes(r.stdio, fds);
    return 0;
  }

  kill(signal: number): number {
    if (this.mode === 'real') return this.real.kill(signal);
    if (!this.child) return -3; // UV_ESRCH
    return native().kill(this.child, signal);
  }

  close(callback?: () => void): void {
    if (this.mode === 'real') {
      this.real.close(callback);
      return;
    }
    this.closed = true;
    if (this.child) native().unref(this.child); // still running: reaped, but no longer reported
    this.child = undefined;
    if (callback) process.nextTick(callback);
  }

  ref(): void {
    if (this.mode === 'real') {
      this.real.ref();
      return;
    }
    this.refed = true;
    if (this.child) native().ref(this.child);
  }

  unref(): void {
    if (this.mode === 'real') {
      this.real.unref();
      return;
    }
    this.refed = false;
    if (this.child) native().unref(this.child);
  }

  hasRef(): boolean {
    if (this.mode === 'real') return this.real.hasRef();
    return this.child !== undefined && this.refed;
  }
}
