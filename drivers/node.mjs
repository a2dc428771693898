// forklab runtime driver for Node: starts the target the ways a Node program does and times each start
// to its reaping, inside Node. Speaks the probe protocol (docs/protocol.md) on stdout/stdin.
//   node [--max-old-space-size=MB] node.mjs CASE target=PATH [heap-mb=N] [heap-kind=buffers|objects]
// Cases: spawn (child_process.spawn, timed to its 'exit' event), spawnSync, forklab-spawn (forklab/spawn).
import { spawn, spawnSync } from 'node:child_process';
import { constants } from 'node:os';
import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';

/** The driver's version is its package's: the runner refuses a driver from another forklab. */
const DRIVER = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
const CASES = ['spawn', 'spawnSync', 'forklab-spawn'];
const KEYS = ['target', 'heap-mb', 'heap-kind'];
const MIB = 1024 * 1024;
/** The heap, referenced from module scope so that it lives as long as the driver. */
let keepAlive = null;

const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');
function fail(call, message, errno = 0) {
  out({ type: 'error', call, errno, message });
  process.exit(2);
}
const errnoOf = (e) => (e && typeof e.code === 'string' && constants.errno[e.code]) || 0;

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
  if (heapKind !== 'buffers' && heapKind !== 'objects') fail('usage', 'unknown value: heap-kind');
  return { target: args.target, heapMb, heapKind };
}

/** Buffers: 64 MB chunks outside V8's heap, every byte written. */
function buffersHeap(mb) {
  const keep = [];
  for (let left = mb; left > 0; left -= 64) keep.push(Buffer.alloc(Math.min(64, left) * MIB, 1));
  return keep;
}

/** V8 objects: arrays of small objects on V8's heap until it holds `mb` more than it did. */
function objectsHeap(mb) {
  const keep = [];
  const goal = process.memoryUsage().heapUsed + mb * MIB;
  let n = 0;
  while (process.memoryUsage().heapUsed < goal) {
    const a = new Array(1 << 16);
    for (let i = 0; i < a.length; i++) a[i] = { n: n++, next: null };
    keep.push(a);
  }
  return keep;
}

async function loadForklabSpawn() {
  try {
    const m = await import('forklab/spawn');
    const f = m.spawn ?? m.default?.spawn;
    return typeof f === 'function' ? { spawn: f } : { absent: 'forklab/spawn exports no spawn function' };
  } catch (e) {
    return { absent: `forklab/spawn cannot be imported (${e && e.code ? e.code : e})` };
  }
}

/** One start of the target, resolved with the nanoseconds from the call to the 'exit' event. */
function timedAsync(spawnFn, target) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    let child;
    try {
      child = spawnFn(target, []);
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

function timedSync(target) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(target, []);
  const ns = Number(process.hrtime.bigint() - t0);
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`target exited with ${r.signal ?? `status ${r.status}`}`);
  return ns;
}

/** Without a case: the cases this Node can run (forklab/spawn only when importable), and why not. */
async function list() {
  const f = await loadForklabSpawn();
  const cases = f.absent ? CASES.filter((c) => c !== 'forklab-spawn') : CASES;
  out({ type: 'hello', protocol: 1, probe: DRIVER, case: null, pid: process.pid, cases });
  out({ type: 'info', runtime: 'node', runtimeVersion: process.versions.node, libuv: process.versions.uv, ...(f.absent ? { 'absent.forklab-spawn': f.absent } : {}) });
  out({ type: 'done' });
}

async function main() {
  const [caseName, ...rest] = process.argv.slice(2);
  if (caseName === undefined) return list();
  out({ type: 'hello', protocol: 1, probe: DRIVER, case: caseName, pid: process.pid });
  if (!CASES.includes(caseName)) fail('usage', `unknown case: ${caseName}`);
  const { target, heapMb, heapKind } = parseArgs(rest);
  let once;
  if (caseName === 'spawn') once = () => timedAsync(spawn, target);
  else if (caseName === 'spawnSync') once = async () => timedSync(target);
  else {
    const f = await loadForklabSpawn();
    if (f.absent) fail('import', f.absent);
    once = () => timedAsync(f.spawn, target);
  }
  keepAlive = heapKind === 'buffers' ? buffersHeap(heapMb) : objectsHeap(heapMb);
  const mem = process.memoryUsage();
  out({
    type: 'info',
    runtime: 'node',
    runtimeVersion: process.versions.node,
    libuv: process.versions.uv,
    heapKind,
    heapMb,
    rssKb: Math.round(mem.rss / 1024),
    v8HeapUsedKb: Math.round(mem.heapUsed / 1024),
    externalKb: Math.round(mem.external / 1024),
  });
  out({ type: 'ready' });

  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
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
        fail(e && e.syscall ? e.syscall : 'spawn', e && e.message ? e.message : String(e), errnoOf(e));
      }
    }
    const warmup = m[1] === 'warmup';
    out({ type: 'samples', series: caseName, warmup, ns });
    out({ type: 'end', warmup });
  }
  out({ type: 'done' });
  process.exit(0);
}

main().catch((e) => fail('driver', e && e.stack ? e.stack : String(e)));
