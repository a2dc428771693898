// The forklab process handle: what ChildProcess.prototype.spawn finds in `this._handle`. It takes the
// options child_process has already validated and the stdio pipes it has already created, starts the child
// with posix_spawn (native/addon.c), opens the parent ends of the pipes on child_process's own Pipe handles
// (`handle.open(fd)`), and reports the exit through `onexit(exitCode, signalName)`, as Node's ProcessWrap.
// Calls it cannot serve (uid, gid, no right to start children, a cwd or detached where the C library cannot
// do it without fork, a stdio entry without a descriptor) go to Node's own handle, which it replaced.
import { closeSync } from 'node:fs';
import type { FunctionName } from './counts.js';
import { count } from './counts.js';
import { childrenAllowed, closeReal, type ProcessHandle, readRequest, releaseReal, type SpawnRequest, setHandleFactory, trackLive } from './internals.js';
import { native, STDIO_IGNORE, STDIO_PIPE, type NativeHandle } from './native.js';

/** Why this request needs Node's handle (null: forklab serves it). */
export function realHandleReason(r: SpawnRequest): string | null {
  if (!childrenAllowed()) return 'permission: Node’s permission model does not allow child processes (Node’s handle refuses, as child_process)';
  if (r.uid !== undefined) return 'uid';
  if (r.gid !== undefined) return 'gid';
  const features = native().features;
  if (r.cwd && features && !features.addchdir) return `cwd: glibc ${features.glibc || '(not glibc)'} has no posix_spawn_file_actions_addchdir_np (2.29)`;
  if (r.detached && features && !features.setsid) return `detached: glibc ${features.glibc} has no POSIX_SPAWN_SETSID (2.26)`;
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

/** Spawn errors child_process emits as 'error' and then still sets up stdio for (reading EOF from the pipes,
 * as libuv opens them after an exec failure); EMFILE and ENFILE it emits without any stdio: closed here. */
const EMITTED_WITH_STDIO = new Set([-13 /* EACCES */, -11 /* EAGAIN */, -2 /* ENOENT */]);

function openPipes(stdio: SpawnRequest['stdio'], fds: number[]): void {
  stdio.forEach((s, i) => {
    const fd = fds[i] ?? -1;
    if (fd < 0) return;
    const err = s.handle?.open?.(fd) ?? -1;
    if (err !== 0) closeSync(fd);
  });
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
    private readonly fn: FunctionName,
    private readonly command: unknown,
  ) {}

  spawn(...a: unknown[]): number {
    const r = readRequest(a);
    const reason = r ? realHandleReason(r) : 'unrecognised handle.spawn arguments';
    if (!r || reason) {
      this.mode = 'real';
      count(this.fn, false, reason, this.command);
      const real = this.real;
      real.onexit = (code, sig) => this.onexit?.(code, sig);
      const err = real.spawn(...a);
      this.pid = real.pid;
      return err;
    }
    // As Node's handle: each argument is converted to a string (42 is "42"; a Symbol throws the TypeError
    // Node's does), and an empty cwd means none.
    const args = (r.args ?? []).map((x) => `${x}`);
    const envPairs = r.envPairs === undefined ? null : r.envPairs.map((x) => `${x}`);
    const cwd = r.cwd || null;
    this.mode = 'forklab';
    count(this.fn, true, null, this.command);
    releaseReal(this.real, r.shape);
    const kinds = r.stdio.map((s) => {
      if (s.type === 'pipe' || s.type === 'overlapped') return STDIO_PIPE;
      if (s.type === 'ignore') return STDIO_IGNORE;
      if (s.type === 'wrap') return s.handle?.fd as number;
      return s.fd as number;
    });
    const [err, pid, child, ...fds] = native().spawn(r.file, args, envPairs, cwd, kinds, r.detached, (status, signalName) => {
      trackLive(this, false);
      if (!this.closed) this.onexit?.(status, signalName);
    });
    if (err !== 0) {
      if (EMITTED_WITH_STDIO.has(err)) openPipes(r.stdio, fds);
      else for (const fd of fds) if (fd >= 0) closeSync(fd);
      return err;
    }
    this.pid = pid;
    this.child = child;
    trackLive(this, true);
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
      closeReal(this.real, callback);
      return;
    }
    this.closed = true;
    trackLive(this, false);
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

setHandleFactory((real, fn, command) => new ForklabProcessHandle(real, fn, command));
