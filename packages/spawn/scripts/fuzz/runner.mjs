// One campaign case, run once in a fresh process: `node [flags] runner.mjs CASE.json DIR MODE SPEC`.
// MODE 'ref', 'refImport' and 'register' call node:child_process (under register it is forklab's: the process was started
// with --import of register.js); 'module' calls the exports of SPEC. It lays out DIR (scripts, a PATH whose first
// entry lacks the command), puts the process in the case's state, makes the call and writes everything a program
// can observe to DIR/result.json: events and their order, callbacks, bytes, errors, the ChildProcess's fields,
// the async context in each callback, open descriptors and active resources during and after.
import { AsyncLocalStorage } from 'node:async_hooks';
import * as nodeCp from 'node:child_process';
import { EventEmitter } from 'node:events';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { FORK_CHILD, shScript } from './child.mjs';

const [caseFile, dir, mode, spec] = isMainThread ? process.argv.slice(2) : workerData.argv;
const kase = JSON.parse(fs.readFileSync(caseFile, 'utf8'));
const LIMIT_MS = 8000;

/** The descriptor numbers of this process. A case can leave none free (a low `ulimit -n`, a call that takes the
 * last one), and reading the directory needs one: then each number is looked up by its link, which needs none,
 * so that the runner still sees what a program would see. */
function fdNumbers() {
  try {
    return fs.readdirSync('/proc/self/fd');
  } catch (e) {
    if (e.code !== 'EMFILE' && e.code !== 'ENFILE') throw e;
    const out = [];
    for (let fd = 0, miss = 0; miss < 1024; fd++) {
      try {
        fs.readlinkSync(`/proc/self/fd/${fd}`);
        out.push(String(fd));
        miss = 0;
      } catch {
        miss++;
      }
    }
    return out;
  }
}

/** The descriptor kinds of this process: pipe, socket, pidfd, eventfd, /dev/null, file... with counts. */
function fdKinds() {
  const kinds = {};
  for (const f of fdNumbers()) {
    let k;
    try {
      k = fs.readlinkSync(`/proc/self/fd/${f}`);
    } catch {
      continue; // the directory's own descriptor, closed by now
    }
    k = k.startsWith('anon_inode:') ? k.slice(11).replace(/[[\]]/g, '') : k.replace(/:\[\d+\]$/, '').replace(/^\/(?!dev\/).*/, 'file');
    kinds[k] = (kinds[k] ?? 0) + 1;
  }
  return kinds;
}

const resources = () =>
  process
    .getActiveResourcesInfo()
    .filter((r) => r !== 'Timeout' && r !== 'Immediate' && r !== 'TTYWrap' && r !== 'MessagePort')
    .sort();

function errorShape(e) {
  if (e === null || e === undefined) return e ?? null;
  if (typeof e !== 'object') return { thrown: String(e) };
  const out = { name: e.name, message: e.message };
  for (const k of ['code', 'errno', 'syscall', 'path', 'spawnargs', 'killed', 'signal', 'status', 'cmd']) if (Object.hasOwn(e, k)) out[k] = e[k];
  for (const k of ['stdout', 'stderr']) if (Object.hasOwn(e, k)) out[k] = bytes(e[k]);
  if (Object.hasOwn(e, 'output')) out.output = Array.isArray(e.output) ? e.output.map(bytes) : e.output;
  return out;
}

/** hex or base64 text is decoded (when it is valid) so that the case directory in it can be normalised */
const TEXT_ENCODING = kase.opts.encoding === 'hex' || kase.opts.encoding === 'base64' ? kase.opts.encoding : null;

function bytes(v) {
  if (v === null || v === undefined) return v ?? null;
  if (typeof v === 'string' && TEXT_ENCODING) {
    const b = Buffer.from(v, TEXT_ENCODING);
    if (b.toString(TEXT_ENCODING) === v) return { [TEXT_ENCODING]: b.toString('latin1') };
  }
  if (typeof v === 'string') return { s: v };
  if (Buffer.isBuffer(v)) return { b: v.toString('latin1') };
  if (ArrayBuffer.isView(v)) return { u8: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('latin1') };
  return { other: String(v) };
}

/** What a stream delivered: its bytes as latin1 text, or, when the call set it to hex or base64 (exec's encoding),
 * the text of those chunks together decoded as bytes() decodes them, so that the case directory in it can be
 * normalised (seed 20261210 in Debian 11: a child's cwd line in hex differed by the directory alone). */
function streamed(chunks) {
  if (TEXT_ENCODING && chunks.length > 0 && chunks.every((c) => typeof c === 'string')) {
    const decoded = bytes(chunks.join(''));
    if (TEXT_ENCODING in decoded) return decoded;
  }
  return Buffer.concat(chunks.map((c) => Buffer.from(c))).toString('latin1');
}

function layout() {
  for (const d of ['bin', 'empty', 'sub']) fs.mkdirSync(join(dir, d), { recursive: true });
  const body = shScript(kase.steps);
  fs.writeFileSync(join(dir, 'bin', 'fl-tool'), `#!/bin/sh\n${body}`, { mode: 0o755 });
  fs.writeFileSync(join(dir, 'noshebang'), body, { mode: 0o755 });
  fs.writeFileSync(join(dir, 'notexec'), `#!/bin/sh\n${body}`, { mode: 0o644 });
  fs.writeFileSync(join(dir, 'child.cjs'), FORK_CHILD);
  fs.writeFileSync(join(dir, 'afile'), 'not a directory\n');
  return body;
}

/** The call's command and arguments for the case's function and command form. */
function command(body) {
  const f = kase.fn;
  const c = kase.command;
  if (f === 'fork') return c === 'missing' ? [join(dir, 'nope.cjs'), [JSON.stringify(kase.steps)]] : [join(dir, 'child.cjs'), [JSON.stringify(kase.steps)]];
  const file = {
    script: join(dir, 'bin', 'fl-tool'),
    path: 'fl-tool',
    missing: 'fl-missing',
    missingAbs: join(dir, 'nope', 'fl-tool'),
    noShebang: join(dir, 'noshebang'),
    notExec: join(dir, 'notexec'),
    dir: join(dir, 'bin'),
  };
  const viaShell = f === 'exec' || f === 'execSync' || (kase.opts.shell !== undefined && kase.opts.shell !== false);
  if (c === 'shC') return viaShell ? [body, []] : ['/bin/sh', ['-c', body, 'fl-argv1']];
  return [file[c], viaShell ? [] : ['a b', 'c']];
}

const opened = [];
let socketData = null;

async function stdioEntry(e) {
  if (typeof e !== 'string' || !e.includes(':')) return e;
  const [kind, what] = e.split(':');
  if (kind === 'fd') {
    if (what !== 'file') return Number(what);
    const fd = fs.openSync(join(dir, 'fd-file'), 'w');
    opened.push(fd);
    return fd;
  }
  if (what === 'stdout') return process.stdout;
  if (what === 'file') {
    const s = fs.createWriteStream(join(dir, 'stream-file'));
    await new Promise((r) => s.on('open', r));
    opened.push(s);
    return s;
  }
  // a connected unix socket; what the child writes is collected on the server's side
  const path = join(dir, 'sock');
  socketData = [];
  const server = net.createServer((c) => c.on('data', (d) => socketData.push(d)).on('error', () => {}));
  await new Promise((r) => server.listen(path, r));
  const s = net.connect(path);
  await new Promise((r) => s.on('connect', r));
  opened.push(s, server);
  return s;
}

/** Options as the call gets them, from the case's symbolic values. */
async function options() {
  const o = kase.opts;
  const out = {};
  if (o.stdio !== undefined) out.stdio = Array.isArray(o.stdio) ? await Promise.all(o.stdio.map(stdioEntry)) : o.stdio;
  if (o.env === 'custom') out.env = { PATH: process.env.PATH, FOO: 'custom' };
  else if (o.env === 'empty') out.env = {};
  else if (o.env === 'nonString') out.env = { PATH: process.env.PATH, FOO: 42, BAR: undefined };
  if (o.cwd !== undefined) out.cwd = { sub: join(dir, 'sub'), empty: '', missing: join(dir, 'nope'), file: join(dir, 'afile'), url: pathToFileURL(join(dir, 'sub')) }[o.cwd];
  if (o.shell !== undefined) out.shell = o.shell;
  for (const k of ['detached', 'timeout', 'killSignal', 'encoding', 'argv0', 'serialization']) if (o[k] !== undefined) out[k] = o[k];
  if (o.maxBuffer !== undefined) out.maxBuffer = o.maxBuffer === 'Infinity' ? Number.POSITIVE_INFINITY : o.maxBuffer;
  if (o.input !== undefined) {
    const text = 'input-1\ninput-2\n';
    // The DataView sees the text alone, 8 bytes into a buffer of its own: a view over Buffer.from(text).buffer
    // was Node's whole 8 KiB pool, whose other bytes differ from process to process (Node 26, seed 20261211)
    const padded = Buffer.alloc(text.length + 16, '.');
    padded.write(text, 8);
    const dataview = new DataView(padded.buffer, padded.byteOffset + 8, text.length);
    out.input = { str: text, buf: Buffer.from(text), u8: new Uint8Array(Buffer.from(text)), dataview, empty: '' }[o.input];
  }
  for (const k of ['uid', 'gid']) if (o[k] !== undefined) out[k] = o[k] === 'self' ? (k === 'uid' ? process.getuid() : process.getgid()) : 65534;
  if (o.signal !== undefined) {
    const ac = new AbortController();
    if (o.signal === 'abortedBefore') ac.abort();
    else if (o.signal.startsWith('abortAfter')) setTimeout(() => ac.abort(), Number(o.signal.slice(10))).unref();
    out.signal = ac.signal;
  }
  return out;
}

async function moduleUnderTest() {
  if (mode !== 'module') return nodeCp;
  return await import(spec);
}

function setState(st) {
  if (st.env === 'replaced') process.env = { ...process.env, FOO: 'replaced' };
  if (st.env === 'mutated') process.env.FOO = 'mutated';
  if (st.freeze) for (const c of [Object, Array, Function, Promise, Map, Set, RegExp, String, Number, Error, EventEmitter]) Object.freeze(c.prototype);
  if (st.permission === 'spoof' && process.permission) {
    try {
      process.permission.has = () => true;
    } catch {}
  }
  if (st.fdsFree !== undefined) {
    const held = [];
    for (;;) {
      try {
        held.push(fs.openSync('/dev/null', 'r'));
      } catch {
        break;
      }
    }
    for (const fd of held.splice(0, st.fdsFree)) fs.closeSync(fd);
  }
}

async function main() {
  const body = layout();
  const m = await moduleUnderTest();
  const fn = m[kase.fn];
  const [file, args] = command(body);
  const opts = await options();
  const st = kase.state;
  setState(st);
  const als = new AsyncLocalStorage();
  const store = () => als.getStore()?.id ?? null;
  const gc = () => globalThis.gc?.();
  const r = { mode, events: [], callback: null, threw: null, ret: null, uncaught: [], streams: {}, child: null };
  process.on('uncaughtException', (e) => r.uncaught.push(errorShape(e)));
  const pollute = st.pollute;
  const restore = () => {
    if (pollute) delete Object.prototype[pollute.key];
  };
  let child;
  let finish;
  const done = new Promise((res) => (finish = res));
  const sync = kase.fn.endsWith('Sync');
  const callArgs = kase.fn === 'exec' || kase.fn === 'execSync' ? [file, opts] : [file, args, opts];
  if (kase.fn === 'exec' || kase.fn === 'execFile') {
    callArgs.push((err, stdout, stderr) => {
      r.callback = [errorShape(err), bytes(stdout), bytes(stderr), store()];
      gc();
      finish('callback');
    });
  }
  if (st.errno === 'isatty') (await import('node:tty')).isatty(1);
  const call = () => {
    if (pollute) Object.prototype[pollute.key] = pollute.value;
    try {
      if (sync) r.ret = fn(...callArgs);
      else child = fn(...callArgs);
    } catch (e) {
      r.threw = errorShape(e);
    }
    restore();
    gc();
  };
  if (st.als) als.run({ id: 'case' }, call);
  else call();
  r.during = { fds: fdKinds(), res: resources() };
  if (sync || !child) {
    if (r.ret !== null) r.ret = r.ret && typeof r.ret === 'object' && !Buffer.isBuffer(r.ret) ? syncResult(r.ret) : bytes(r.ret);
    return r;
  }
  const out = [];
  const err = [];
  child.stdout?.on('data', (d) => out.push(d));
  child.stderr?.on('data', (d) => err.push(d));
  child.stdin?.on('error', () => {});
  for (const s of child.stdio?.slice(3) ?? []) s?.on?.('data', () => {});
  let closed = false;
  for (const name of ['spawn', 'error', 'exit', 'close', 'disconnect', 'message']) {
    child.on(name, (...a) => {
      r.events.push([name, ...a.map((x) => (x instanceof Error ? errorShape(x) : x)), store()]);
      if (name === 'close') {
        closed = true;
        if (kase.fn !== 'exec' && kase.fn !== 'execFile') finish('close');
      }
      if (name === 'error' && child.pid === undefined) setTimeout(() => finish('error'), 100);
    });
  }
  if (kase.parent.stdin !== undefined && child.stdin) child.stdin.end(kase.parent.stdin);
  else child.stdin?.end();
  if (kase.parent.kill) setTimeout(() => r.events.push(['parent-kill', child.kill(kase.parent.kill.signal)]), kase.parent.kill.afterMs);
  setImmediate(gc);
  setTimeout(gc, 20).unref();
  const limit = setTimeout(() => finish('limit'), LIMIT_MS);
  r.done = await done;
  clearTimeout(limit);
  if (r.done === 'callback' && !closed) await new Promise((res) => setTimeout(res, 0));
  r.streams = { stdout: streamed(out), stderr: streamed(err) };
  r.child = {
    pid: typeof child.pid,
    killed: child.killed,
    exitCode: child.exitCode,
    signalCode: child.signalCode,
    spawnfile: child.spawnfile,
    spawnargs: child.spawnargs,
    connected: child.connected,
    stdio: child.stdio?.map((s) => (s === null ? null : s.constructor.name)),
    isChildProcess: child instanceof nodeCp.ChildProcess,
  };
  if (child.pid !== undefined && kase.opts.detached) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {}
  }
  return r;
}

function syncResult(x) {
  return {
    pid: typeof x.pid,
    status: x.status,
    signal: x.signal,
    output: x.output?.map(bytes) ?? null,
    stdout: bytes(x.stdout),
    stderr: bytes(x.stderr),
    error: errorShape(x.error),
  };
}

async function after(r) {
  await new Promise((res) => setTimeout(res, 50));
  for (const o of opened.splice(0)) {
    if (typeof o === 'number') fs.closeSync(o);
    else if (typeof o.close === 'function' && !(o instanceof net.Socket)) o.close();
    else o.destroy();
  }
  await new Promise((res) => setTimeout(res, 30));
  r.after = { fds: fdKinds(), res: resources() };
  r.files = {};
  for (const f of ['fd-file', 'stream-file']) if (fs.existsSync(join(dir, f))) r.files[f] = fs.readFileSync(join(dir, f), 'latin1');
  if (socketData) r.files.socket = Buffer.concat(socketData).toString('latin1');
  return r;
}

/** The case in this thread. An exception that reaches the runner itself (not the call's: that is recorded where
 * it happens) is the observation instead, as `runnerFailed`, so that a run the runner could not finish says
 * so and why, rather than leaving no result. */
async function inThisThread() {
  try {
    const r = await main();
    return await after(r);
  } catch (e) {
    return { mode, runnerFailed: { code: e?.code ?? null, message: String(e?.message ?? e) } };
  }
}

if (!isMainThread) {
  parentPort.postMessage(JSON.stringify(await inThisThread()));
} else {
  // The result's descriptor is opened before the case's state is set: a case that leaves no descriptor free
  // still has its observation written (through this one, which Node opens close-on-exec: no child inherits it).
  const resultFd = fs.openSync(join(dir, 'result.json'), 'w');
  let text;
  if (kase.state.worker) {
    const w = new Worker(new URL(import.meta.url), { workerData: { argv: [caseFile, dir, mode, spec] } });
    text = await new Promise((res) => {
      w.on('message', res);
      w.on('error', (e) => res(JSON.stringify({ mode, runnerFailed: { code: e?.code ?? null, message: `in the worker: ${e?.message ?? e}` } })));
      w.on('exit', (code) => res(JSON.stringify({ mode, workerExit: code })));
    });
  } else text = JSON.stringify(await inThisThread());
  fs.writeSync(resultFd, text);
  process.exit(0);
}
