// A ChildProcess-like EventEmitter over the addon: events, stdio streams and kill() behave as
// node:child_process's do (order: spawn, exit, close; or error, close).
import { EventEmitter } from 'node:events';
import { closeSync } from 'node:fs';
import { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { native, STDIO_PIPE, type NativeHandle } from './native.js';
import { AbortError, errnoError, type SpawnError } from './errors.js';
import { signalName, signalNumber, type Normalized } from './options.js';

const UV_ESRCH = -3;
const UV_EINVAL = -22;
const UV_ENOSYS = -38;
/** Exec failures child_process reports as an 'error' event; every other failure is thrown. */
const EMITTED = new Set([-13 /* EACCES */, -11 /* EAGAIN */, -24 /* EMFILE */, -23 /* ENFILE */, -2 /* ENOENT */]);

export class ChildProcess extends EventEmitter {
  pid: number | undefined = undefined;
  stdin: Writable | null = null;
  stdout: Readable | null = null;
  stderr: Readable | null = null;
  readonly stdio: (Socket | null)[] = [];
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  killed = false;
  readonly connected = false;
  spawnfile = '';
  spawnargs: string[] = [];
  private handle: NativeHandle | undefined;
  private closesNeeded = 1;
  private closesGot = 0;

  /** Starts the child (called by spawn()). Throws like child_process for errors it throws. */
  start(n: Normalized): void {
    this.spawnfile = n.file;
    this.spawnargs = n.argv;
    const [err, pid, handle, ...fds] = native().spawn(n.file, n.argv, n.envp, n.cwd, n.stdio, n.detached, (status, sig) => this.onExit(status, sig));
    if (err !== 0 && !EMITTED.has(err)) {
      for (const fd of fds) if (fd >= 0) closeSync(fd);
      throw errnoError(err, 'spawn');
    }
    if (err === 0) {
      this.pid = pid;
      this.handle = handle;
    }
    n.stdio.forEach((kind, i) => {
      if (kind !== STDIO_PIPE) {
        this.stdio.push(null);
        return;
      }
      const fd = fds[i] ?? -1;
      let socket: Socket;
      if (err === 0 && fd >= 0) {
        socket = new Socket({ fd, readable: i > 0, writable: i === 0 || i > 2 });
        if (i > 0) {
          this.closesNeeded++;
          socket.on('close', () => this.maybeClose());
        }
      } else {
        if (fd >= 0) closeSync(fd);
        socket = new Socket({ readable: i > 0 } as ConstructorParameters<typeof Socket>[0]);
      }
      this.stdio.push(socket);
    });
    this.stdin = this.stdio[0] ?? null;
    this.stdout = this.stdio[1] ?? null;
    this.stderr = this.stdio[2] ?? null;
    if (err !== 0) process.nextTick(() => this.onExit(err, 0));
    else process.nextTick(() => this.emit('spawn'));
  }

  private onExit(status: number, sig: number): void {
    if (sig) this.signalCode = signalName(sig);
    else this.exitCode = status;
    this.stdin?.destroy();
    this.handle = undefined;
    if (status < 0) {
      const err: SpawnError = errnoError(status, `spawn ${this.spawnfile}`);
      err.path = this.spawnfile;
      err.spawnargs = this.spawnargs.slice(1);
      this.emit('error', err);
    } else {
      this.emit('exit', this.exitCode, this.signalCode);
    }
    process.nextTick(() => this.flushStdio());
    this.maybeClose();
  }

  /** Unread output would keep the pipes (and so 'close') open forever: let it flow, as child_process does. */
  private flushStdio(): void {
    for (const s of this.stdio) {
      if (!s?.readable || s.readableFlowing !== null || s.listenerCount('readable') > 0) continue;
      s.resume();
    }
  }

  private maybeClose(): void {
    this.closesGot++;
    if (this.closesGot === this.closesNeeded) this.emit('close', this.exitCode, this.signalCode);
  }

  kill(sig?: NodeJS.Signals | number): boolean {
    const signal = sig === 0 ? 0 : signalNumber(sig ?? 'SIGTERM');
    if (!this.handle) return false;
    const err = native().kill(this.handle, signal);
    if (err === 0) {
      this.killed = true;
      return true;
    }
    if (err === UV_ESRCH) return false;
    if (err === UV_EINVAL || err === UV_ENOSYS) throw errnoError(err, 'kill');
    this.emit('error', errnoError(err, 'kill'));
    return false;
  }

  ref(): void {
    if (this.handle) native().ref(this.handle);
  }

  unref(): void {
    if (this.handle) native().unref(this.handle);
  }
}

/** timeout + killSignal and AbortSignal, wired as child_process wires them. */
export function armLimits(child: ChildProcess, n: Normalized): void {
  if (n.timeoutMs > 0) {
    let timer: NodeJS.Timeout | null = setTimeout(() => {
      if (!timer) return;
      timer = null;
      try {
        child.kill(n.killSignal);
      } catch (err) {
        child.emit('error', err);
      }
    }, n.timeoutMs);
    child.once('exit', () => {
      if (timer) clearTimeout(timer);
      timer = null;
    });
  }
  const signal = n.signal;
  if (signal) {
    const onAbort = (): void => {
      try {
        if (child.kill(n.killSignal)) child.emit('error', new AbortError(undefined, { cause: signal.reason }));
      } catch (err) {
        child.emit('error', err);
      }
    };
    if (signal.aborted) process.nextTick(onAbort);
    else {
      signal.addEventListener('abort', onAbort, { once: true });
      child.once('exit', () => signal.removeEventListener('abort', onAbort));
    }
  }
}
