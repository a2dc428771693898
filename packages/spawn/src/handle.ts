// The forklab process handle: what ChildProcess.prototype.spawn finds in `this._handle`. It takes the
// options child_process has already validated and the stdio pipes it has already created, starts the child
// with posix_spawn (native/addon.c), opens the parent ends of the pipes on child_process's own Pipe handles
// (`handle.open(fd)`), and reports the exit through `onexit(exitCode, signalName)`, as Node's ProcessWrap.
// Calls it cannot serve (uid, gid, no right to start children, a cwd or detached where the C library cannot
// do it without fork, a stdio entry without a descriptor) go to Node's own handle, which it replaced.
import { closeSync } from 'node:fs';
import type { FunctionName } from './counts.js';
import { nodeSpawnsItself } from './aside.js';
import { count } from './counts.js';
import { closeReal, openPipeEnds, type ProcessHandle, releaseReal, setHandleFactory } from './internals.js';
import { type NativeHandle, native, STDIO_PIPE } from './native.js';
import { childrenAllowed, pipeOpenAllowed, REFUSED } from './permission.js';
import { pipeHandles, readRequest, type SpawnRequest } from './request.js';
import { shared } from './state.js';

/** Why this request needs Node's handle (null: forklab serves it). */
export function realHandleReason(r: SpawnRequest): string | null {
  if (!childrenAllowed()) return REFUSED;
  if (r.kinds.includes(STDIO_PIPE) && !pipeOpenAllowed()) return 'permission: without --allow-net, Node’s permission model refuses to open a Pipe handle on a descriptor';
  if (r.uid !== undefined) return 'uid';
  if (r.gid !== undefined) return 'gid';
  const features = native().features;
  if (r.cwd && features && !features.addchdir) return `cwd: glibc ${features.glibc || '(not glibc)'} has no posix_spawn_file_actions_addchdir_np (2.29)`;
  if (r.detached && features && !features.setsid) return `detached: glibc ${features.glibc} has no POSIX_SPAWN_SETSID (2.26)`;
  return nodeSpawnsItself(r) ?? r.why;
}

// forklab's running children (per thread, shared by every copy of the package), listed by
// process.getActiveResourcesInfo() and process._getActiveHandles() as Node lists its own (internals.ts patches them);
// a handle whose spawn failed is listed by getActiveResourcesInfo() too, until child_process closes it (Node's
// ProcessWrap is listed from its creation to its close). A running child's handle is kept (strongly), as Node keeps an
// active handle.
const live = shared.children.live;

function trackLive(h: ProcessHandle, running: boolean): void {
  if (running) live.add(h);
  else live.delete(h);
}

/** Spawn errors child_process emits as 'error' and then still sets up stdio for (reading EOF from the pipes,
 * as libuv opens them after an exec failure); EMFILE and ENFILE it emits without any stdio. The addon opens
 * the pipes on their handles itself (native/addon.c); this is for an addon built before it did so, which hands
 * their descriptors back to be opened here. */
const EMITTED_WITH_STDIO = new Set([-13 /* EACCES */, -11 /* EAGAIN */, -2 /* ENOENT */]);
const NO_FDS: number[] = []; // (never written)

export class ForklabProcessHandle implements ProcessHandle {
  [key: symbol]: unknown;
  pid?: number;
  onexit?: (exitCode: number, signalCode: string) => void;
  /** 'real' after a request forklab could not serve; 'forklab' after one it did */
  mode: 'pending' | 'forklab' | 'real' = 'pending';
  private child: NativeHandle | undefined;
  private refed = true;
  private closed = false;
  /** spawn failed: listed as Node's handle is, until close() */
  private failed = false;
  /** close() called, its callback not run yet */
  private closing = false;

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
    try {
      releaseReal(this.real, r.shape); // Node's own check runs here: its refusal is thrown
    } catch (err) {
      count(this.fn, false, REFUSED, this.command);
      throw err;
    }
    this.mode = 'forklab';
    count(this.fn, true, null, this.command);
    // The parent's pipe ends go from the addon straight to child_process's Pipe handles: never a bare descriptor
    // in JS, which a worker terminated before opening it would leak.
    const onexit = (status: number, signalName: string) => {
      trackLive(this, false);
      if (!this.closed) this.onexit?.(status, signalName);
    };
    // (read by index: a destructuring with a rest element runs the array iterator and copies the rest every call)
    const res = native().spawn(r.file, r.args, r.envPairs, r.cwd, r.kinds, r.detached, onexit, pipeHandles(r));
    const err = res[0];
    const pid = res[1];
    const child = res[2];
    const fds = res.length > 3 ? (res.slice(3) as number[]) : NO_FDS; // (an addon from before it opened the pipes)
    if (fds.length > 0 && (err === 0 || EMITTED_WITH_STDIO.has(err))) openPipeEnds(r, fds);
    else for (const fd of fds) if (fd >= 0) closeSync(fd);
    if (err !== 0) {
      this.failed = true;
      trackLive(this, true);
      return err;
    }
    this.pid = pid;
    this.child = child;
    trackLive(this, true);
    if (!this.refed) native().unref(child as NativeHandle);
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
    // Node's handle stays listed while it closes (after its exit too), until its close callback: so does this one
    this.closing = true;
    trackLive(this, true);
    if (this.child) native().unref(this.child); // still running: reaped, but no longer reported
    this.child = undefined;
    process.nextTick(() => {
      this.closing = false;
      trackLive(this, false);
      callback?.();
    });
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
    return (this.child !== undefined || (this.failed && !this.closed) || this.closing) && this.refed;
  }
}

setHandleFactory((real, fn, command) => new ForklabProcessHandle(real, fn, command));
