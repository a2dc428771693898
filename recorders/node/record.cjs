'use strict';
// forklab trace's recorder for Node, loaded into every traced Node process and worker thread through
// NODE_OPTIONS=--require=… (forklab appends it to the user's NODE_OPTIONS; --require, unlike --import, also runs in
// worker threads and on every Node that reads NODE_OPTIONS). It observes each child_process call without changing
// it: the function, the command, the JavaScript stack of the caller (the frames outside node: internals, mapped by
// Node's own source maps when the program has them enabled), the child's pid, whether @forklab/spawn handled the
// call and what it published on 'forklab:spawn:fallback', and the recorder's own time. One JSON line per call goes
// to a file beside this one (../out/node-PID.jsonl), which forklab owns: never to the program's stdout or stderr.
// The call itself is child_process's, with the same arguments, `this`, return value and thrown error.
(() => {
  const perf = globalThis.performance || require('perf_hooks').performance;
  const loadStart = perf.now();
  if (!process.release || process.release.name !== 'node' || process.versions.bun || process.versions.deno) return;
  const KEY = Symbol.for('forklab.trace.recorder');
  if (globalThis[KEY]) return;
  Object.defineProperty(globalThis, KEY, { value: true });

  const fs = require('fs');
  const path = require('path');
  const cp = require('child_process');
  const OUT = path.join(__dirname, '..', 'out');
  // @forklab/spawn's process handles: in the state its copies share (its src/state.ts: children.handles), and in
  // versions before that state, a brand on each handle
  const FORKLAB_STATE = Symbol.for('forklab.spawn');
  const FORKLAB_HANDLE = Symbol.for('forklab.spawn.handle');
  const FALLBACK_CHANNEL = 'forklab:spawn:fallback';
  const NAMES = ['spawn', 'exec', 'execFile', 'fork', 'spawnSync', 'execSync', 'execFileSync'];
  const PROMISIFY = Symbol.for('nodejs.util.promisify.custom');
  const MAX_FRAMES = 24;
  const MAPPED_FRAMES = 12;
  let threadId = null;
  let fd = -1;
  let broken = false;
  let depth = 0;
  /** Events on the fallback channel while a call is being recorded: [reason, function]. */
  const published = [];

  /** Wall-clock seconds with microseconds (strace -ttt's clock). */
  const wallS = () => (perf.timeOrigin + perf.now()) / 1000;

  function write(obj) {
    if (broken) return;
    try {
      if (fd < 0) {
        fd = fs.openSync(path.join(OUT, `node-${process.pid}.jsonl`), 'a', 0o600);
        const start = {
          k: 'start',
          rt: 'node',
          pid: process.pid,
          ppid: process.ppid,
          tid: threadId,
          v: process.version,
          loadUs: Math.round(loadUs * 10) / 10,
          sourceMaps: sourceMapsOn(),
        };
        fs.writeSync(fd, `${JSON.stringify(start)}\n`);
      }
      fs.writeSync(fd, `${JSON.stringify(obj)}\n`);
    } catch {
      broken = true; // a permission model, a removed directory: record nothing more, change nothing
    }
  }

  function sourceMapsOn() {
    if (typeof process.sourceMapsEnabled === 'boolean') return process.sourceMapsEnabled;
    return process.execArgv.includes('--enable-source-maps') || /--enable-source-maps/.test(process.env.NODE_OPTIONS || '');
  }

  let findSourceMap = null;
  try {
    findSourceMap = require('module').findSourceMap || null;
  } catch {}

  /** [file, line, column] through the source map Node holds for the file, null when it has none. */
  function mapped(file, line, col) {
    if (!findSourceMap || !sourceMapsOn()) return null;
    let map;
    try {
      map = findSourceMap(file);
    } catch {
      return null;
    }
    if (!map) return null;
    const e = map.findEntry(line - 1, col - 1);
    if (!e || typeof e.originalSource !== 'string') return null;
    return [e.originalSource, e.originalLine + 1, e.originalColumn + 1];
  }

  /** The caller's stack as CallSites, Error.prepareStackTrace and the limit put back as they were. */
  function callSites(from) {
    const d = Object.getOwnPropertyDescriptor(Error, 'prepareStackTrace');
    if (d && (d.get || d.set)) return []; // an accessor of the program's own: not touched
    const limit = Error.stackTraceLimit;
    const prepare = Error.prepareStackTrace;
    const holder = {};
    try {
      Error.stackTraceLimit = 64;
      Error.prepareStackTrace = (_e, sites) => sites;
      Error.captureStackTrace(holder, from);
      const s = holder.stack;
      return Array.isArray(s) ? s : [];
    } finally {
      Error.stackTraceLimit = limit;
      Error.prepareStackTrace = prepare;
    }
  }

  /** [file, line, column, function, flags] of the frames outside node: internals ('a': async, 'm': mapped here). */
  function frames(from) {
    const out = [];
    for (const s of callSites(from)) {
      if (out.length >= MAX_FRAMES) break;
      let file = null;
      try {
        file = s.getFileName() || (s.getScriptNameOrSourceURL && s.getScriptNameOrSourceURL()) || null;
      } catch {}
      if (!file || file.startsWith('node:') || file === __filename) continue;
      const line = s.getLineNumber() || 0;
      const col = s.getColumnNumber() || 0;
      let fn = null;
      try {
        fn = s.getFunctionName() || s.getMethodName() || null;
      } catch {}
      let flags = s.isAsync && s.isAsync() ? 'a' : '';
      const m = out.length < MAPPED_FRAMES ? mapped(file, line, col) : null;
      if (m) flags += 'm';
      out.push(m ? [m[0], m[1], m[2], fn, flags, [file, line, col]] : [file, line, col, fn, flags]);
    }
    return out;
  }

  /** A value as recorded: strings and numbers as they are, a URL by its href, anything else '?' (never converted). */
  const plain = (x) => (typeof x === 'string' ? x.slice(0, 300) : typeof x === 'number' ? String(x) : x instanceof URL ? x.href : '?');
  const own = (o, key) => {
    if (o === null || (typeof o !== 'object' && typeof o !== 'function')) return undefined;
    const d = Object.getOwnPropertyDescriptor(o, key);
    return d && 'value' in d ? d.value : undefined;
  };

  function childOf(result) {
    const direct = own(result, 'pid');
    if (typeof direct === 'number') return { pid: direct, handle: own(result, '_handle') };
    const child = own(result, 'child'); // a promisified exec/execFile: the promise carries the child
    const pid = own(child, 'pid');
    return typeof pid === 'number' ? { pid, handle: own(child, '_handle') } : { pid: null, handle: undefined };
  }

  /** Whether a ChildProcess's _handle is @forklab/spawn's (read without running any getter of the program's). */
  function isForklabHandle(handle) {
    if (!handle || typeof handle !== 'object') return false;
    const handles = own(own(own(globalThis, FORKLAB_STATE), 'children'), 'handles');
    if (handles instanceof WeakSet && handles.has(handle)) return true;
    return own(handle, FORKLAB_HANDLE) === true;
  }

  /** At the first call (so that a process that starts no child pays nothing for them): the thread and the channel. */
  function firstCall() {
    threadId = 0;
    try {
      threadId = require('worker_threads').threadId;
    } catch {}
    try {
      const dc = require('diagnostics_channel');
      const onFallback = (e) => {
        if (depth > 0 && e && typeof e.reason === 'string') published.push([e.reason.slice(0, 200), String(e.function)]);
      };
      if (typeof dc.subscribe === 'function') dc.subscribe(FALLBACK_CHANNEL, onFallback);
      else dc.channel(FALLBACK_CHANNEL).subscribe(onFallback);
    } catch {}
  }

  function observe(name, original, self, args, from) {
    if (depth > 0) return Reflect.apply(original, self, args);
    const c0 = perf.now();
    if (threadId === null) firstCall();
    const t0 = wallS();
    let stack = [];
    try {
      stack = frames(from);
    } catch {}
    const firstPublished = published.length;
    const c1 = perf.now();
    let result;
    let error;
    let threw = false;
    depth++;
    try {
      result = Reflect.apply(original, self, args);
    } catch (e) {
      error = e;
      threw = true;
    } finally {
      depth--;
    }
    const c2 = perf.now();
    const t1 = wallS();
    try {
      const child = threw ? { pid: own(error, 'pid') ?? null, handle: undefined } : childOf(result);
      const events = published.splice(firstPublished);
      const handled = isForklabHandle(child.handle);
      const rec = {
        k: 'call',
        fn: name,
        cmd: plain(args[0]),
        argv: Array.isArray(args[1]) ? args[1].slice(0, 8).map(plain) : [],
        child: typeof child.pid === 'number' && child.pid > 0 ? child.pid : null,
        pid: process.pid,
        tid: threadId,
        t0,
        t1,
        frames: stack,
      };
      if (threw) rec.err = String(own(error, 'code') || own(error, 'name') || 'error');
      if (handled || events.length) rec.forklab = { handle: handled, fallback: events.map((e) => e[0]) };
      rec.costUs = Math.round((c1 - c0 + (perf.now() - c2)) * 1000 * 10) / 10;
      write(rec);
    } catch {}
    if (threw) throw error;
    return result;
  }

  function wrap(name, original) {
    const wrapped = {
      [name](...args) {
        return observe(name, original, this, args, wrapped);
      },
    }[name];
    Object.defineProperty(wrapped, 'length', { value: original.length });
    for (const key of Reflect.ownKeys(original)) {
      if (key === 'length' || key === 'name' || key === 'prototype') continue;
      const d = Object.getOwnPropertyDescriptor(original, key);
      if (key === PROMISIFY && typeof d.value === 'function') {
        const custom = d.value;
        const promised = {
          [name](...args) {
            return observe(name, custom, this, args, promised);
          },
        }[name];
        Object.defineProperty(wrapped, key, { ...d, value: promised });
      } else Object.defineProperty(wrapped, key, d);
    }
    return wrapped;
  }

  let loadUs = 0;
  try {
    for (const name of NAMES) if (typeof cp[name] === 'function') cp[name] = wrap(name, cp[name]);
    require('module').syncBuiltinESMExports();
  } catch {}
  loadUs = (perf.now() - loadStart) * 1000;
})();
