// What the JavaScript drivers (node.mjs, bun.mjs, deno.mjs) share: the probe protocol (docs/protocol.md) on
// stdout/stdin, the heap kinds, and the scheduling counters of the `usage` line. Only node: modules, so that
// Node, Bun and Deno all run it as it is.
//   RUNTIME DRIVER CASE target=PATH [heap-mb=N] [heap-kind=buffers|objects]
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { createInterface } from 'node:readline';

/** The driver's version is its package's: the runner refuses a driver from another forklab. */
export const DRIVER = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
const KEYS = ['target', 'heap-mb', 'heap-kind'];
export const HEAP_KINDS = ['buffers', 'objects'];
const MIB = 1024 * 1024;
/** The heap, referenced from module scope so that it lives as long as the driver. */
let keepAlive = null;

export const out = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);
export function fail(call, message, errno = 0) {
  out({ type: 'error', call, errno, message });
  process.exit(2);
}

function parseArgs(argv) {
  const args = {};
  for (const a of argv) {
    const eq = a.indexOf('=');
    if (eq <= 0) fail('usage', `expected key=value: ${a}`);
    const k = a.slice(0, eq);
    if (!KEYS.includes(k)) fail('usage', `unknown argument: ${k}`);
    if (k in args) fail('usage', `repeated argument: ${k}`);
    args[k] = a.slice(eq + 1);
  }
  if (!args.target) fail('usage', 'missing argument: target');
  const heapMb = Number(args['heap-mb'] ?? '0');
  if (!Number.isSafeInteger(heapMb) || heapMb < 0) fail('usage', 'not a whole number: heap-mb');
  const heapKind = args['heap-kind'] ?? 'buffers';
  if (!HEAP_KINDS.includes(heapKind)) fail('usage', 'unknown value: heap-kind');
  return { target: args.target, heapMb, heapKind };
}

/** Buffers: 64 MB chunks outside the engine's heap, every byte written. */
function buffersHeap(mb) {
  const keep = [];
  for (let left = mb; left > 0; left -= 64) keep.push(Buffer.alloc(Math.min(64, left) * MIB, 1));
  return keep;
}

/** Objects: arrays of small objects on the engine's heap until the process holds `mb` more than it did. */
function objectsHeap(mb, heapUsed) {
  const keep = [];
  const goal = heapUsed() + mb * MIB;
  let n = 0;
  while (heapUsed() < goal) {
    const a = new Array(1 << 16);
    for (let i = 0; i < a.length; i++) a[i] = { n: n++, next: null };
    keep.push(a);
  }
  return keep;
}

/** A counter of /proc/thread-self/FILE (the thread that spawns), or null where it cannot be read. */
function threadCounter(file, key) {
  try {
    const text = readFileSync(`/proc/thread-self/${file}`, 'utf8');
    const m = new RegExp(`^${key}\\s*:\\s*(\\d+)`, 'm').exec(text);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

function counters() {
  return {
    nivcsw: threadCounter('status', 'nonvoluntary_ctxt_switches'),
    nvcsw: threadCounter('status', 'voluntary_ctxt_switches'),
    migrations: threadCounter('sched', 'se.nr_migrations'),
  };
}

/**
 * The `usage` line: the spawning thread's context switches and migrations since `ready`. The children's
 * switches are null: none of these runtimes offers getrusage(RUSAGE_CHILDREN).
 */
function usageLine(atReady) {
  const now = counters();
  const delta = (k) => (now[k] !== null && atReady[k] !== null ? now[k] - atReady[k] : null);
  const nivcsw = delta('nivcsw');
  const nvcsw = delta('nvcsw');
  if (nivcsw === null || nvcsw === null) return; // no /proc/thread-self: the line is optional
  out({ type: 'usage', nivcsw, nvcsw, childNivcsw: null, migrations: delta('migrations') });
}

/** One start of the target through an EventEmitter child, resolved with the nanoseconds to its 'exit' event. */
export function timedExit(start) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    let child;
    try {
      child = start();
    } catch (e) {
      return reject(e);
    }
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      const ns = Number(process.hrtime.bigint() - t0);
      if (code !== 0) reject(new Error(`target exited with ${signal ?? `status ${code}`}`));
      else resolve(ns);
    });
  });
}

/** Nanoseconds of one call of `fn` (which may return a promise). */
export async function timed(fn) {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0);
}

const errnoOf = (e, errnos) => (e && typeof e.code === 'string' && errnos?.[e.code]) || 0;

/**
 * Runs a driver. `spec`: runtime name, version, extra info fields, the case names with a function that
 * returns `once(target)` (or `{ absent: why }`), `heapUsed()` for the objects heap, `errnos` (code → number).
 */
export async function runDriver(spec) {
  const [caseName, ...rest] = process.argv.slice(spec.argvSkip ?? 2);
  const cases = Object.keys(spec.cases);
  if (caseName === undefined) {
    // Without a case: the cases this runtime can run here, and why not the others.
    const absent = {};
    for (const c of cases) {
      const made = await spec.cases[c]('');
      if (made && typeof made === 'object' && 'absent' in made) absent[`absent.${c}`] = made.absent;
    }
    out({ type: 'hello', protocol: 1, probe: DRIVER, case: null, pid: process.pid, cases: cases.filter((c) => !(`absent.${c}` in absent)) });
    out({ type: 'info', runtime: spec.runtime, runtimeVersion: spec.version, ...spec.info, ...absent });
    out({ type: 'done' });
    process.exit(0);
  }
  out({ type: 'hello', protocol: 1, probe: DRIVER, case: caseName, pid: process.pid });
  if (!cases.includes(caseName)) fail('usage', `unknown case: ${caseName}`);
  const { target, heapMb, heapKind } = parseArgs(rest);
  const once = await spec.cases[caseName](target);
  if (once && typeof once === 'object' && 'absent' in once) fail('import', once.absent);
  keepAlive = heapKind === 'buffers' ? buffersHeap(heapMb) : objectsHeap(heapMb, spec.heapUsed);
  out({
    type: 'info',
    runtime: spec.runtime,
    runtimeVersion: spec.version,
    ...spec.info,
    heapKind,
    heapMb,
    heapParts: keepAlive.length,
    rssKb: Math.round(process.memoryUsage().rss / 1024),
  });
  out({ type: 'ready' });
  const atReady = counters();

  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    if (line.startsWith('stop')) break;
    const m = /^(warmup|run) (\d+)\s*$/.exec(line);
    if (!m) fail('usage', `unknown command: ${line}`);
    const n = Number(m[2]);
    if (n < 1 || n > 10_000_000) fail('usage', `iteration count out of range: ${line}`);
    const ns = [];
    for (let i = 0; i < n; i++) {
      try {
        ns.push(await once());
      } catch (e) {
        fail(e?.syscall ? e.syscall : 'spawn', e?.message ? e.message : String(e), errnoOf(e, spec.errnos));
      }
    }
    const warmup = m[1] === 'warmup';
    out({ type: 'samples', series: caseName, warmup, ns });
    out({ type: 'end', warmup });
  }
  usageLine(atReady);
  out({ type: 'done' });
  process.exit(0);
}
