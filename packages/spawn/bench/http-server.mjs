// bench:http's server, the same file for Node, Bun and Deno: node:http on 127.0.0.1 (a free port), one child
// per request, the response its stdout (as in Val Town's measurement: spawn `echo hi`, stdout into the
// response; api=none answers `hi` without a child, the reference for what HTTP alone costs). Only node: modules,
// plus Bun.spawn and Deno.Command where asked.
//   RUNTIME http-server.mjs api=child_process|bun-spawn|deno-command|none heap-mb=N command=ARGV0 [arg=ARG ...]
// Holds heap-mb of Buffers, every byte written (memory outside the engine's heap, the kind fork copies), then
// prints one JSON line {type:'ready', port, rssMb, runtime, version} on stdout. GET /reset starts the server's
// counters; GET /loop returns the 10 ms timer's lateness since the previous GET /loop (bench:soak's samples); GET
// /stats returns the counters: requests served, failures, CPU time, the event loop's delay (a 10 ms timer's
// lateness, in every runtime; and perf_hooks.monitorEventLoopDelay where the runtime has it). Ends on SIGTERM,
// on stdin closing, or after max-s seconds (default 900), whichever comes first.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import process from 'node:process';

const args = Object.fromEntries(process.argv.slice(2).map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
const extra = process.argv
  .slice(2)
  .filter((a) => a.startsWith('arg='))
  .map((a) => a.slice(4));
const api = args.api ?? 'child_process';
const command = args.command ?? 'echo';
const argv = extra.length ? extra : ['hi'];
const heapMb = Number(args['heap-mb'] ?? 0);
const maxS = Number(args['max-s'] ?? 900);
const MIB = 1024 * 1024;

const keep = [];
for (let left = heapMb; left > 0; left -= 64) keep.push(Buffer.alloc(Math.min(64, left) * MIB, 1));

/** One child per request, its stdout the body: resolves with [status, body]. */
function runChild() {
  if (api === 'none') return Promise.resolve([200, Buffer.from('hi\n')]);
  if (api === 'bun-spawn') {
    const p = globalThis.Bun.spawn([command, ...argv], { stdout: 'pipe', stderr: 'ignore', stdin: 'ignore' });
    return Promise.all([new Response(p.stdout).arrayBuffer(), p.exited]).then(([out, code]) => [code === 0 ? 200 : 500, Buffer.from(out)]);
  }
  if (api === 'deno-command') {
    return new globalThis.Deno.Command(command, { args: argv, stdout: 'piped', stderr: 'null', stdin: 'null' })
      .output()
      .then((r) => [r.code === 0 ? 200 : 500, Buffer.from(r.stdout)]);
  }
  return new Promise((resolve) => {
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'ignore'] });
    const chunks = [];
    child.stdout.on('data', (d) => chunks.push(d));
    child.on('error', (e) => resolve([500, Buffer.from(String(e.code ?? e))]));
    child.on('close', (code) => resolve([code === 0 ? 200 : 500, Buffer.concat(chunks)]));
  });
}

// The event loop's delay: how late a 10 ms timer fires (comparable in every runtime), and perf_hooks' histogram.
const TICK_MS = 10;
let lateMs = [];
let windowMs = []; // since the last GET /loop (bench:soak samples it)
let lastTick = performance.now();
setInterval(() => {
  const now = performance.now();
  const late = Math.max(0, now - lastTick - TICK_MS);
  lateMs.push(late);
  if (windowMs.length < 1e6) windowMs.push(late);
  lastTick = now;
}, TICK_MS);
let histogram = null;
try {
  histogram = monitorEventLoopDelay({ resolution: 10 });
} catch {
  histogram = null;
}

const stats = { served: 0, failed: 0, cpu0: null, t0: 0 };
// Under `--import @forklab/spawn/register`: what forklab served, so that the run shows it did.
const registered = process.execArgv.some((a) => a.includes('@forklab/spawn/register'));
const forklab = registered ? await import('@forklab/spawn') : null;
let forklab0 = null;
const forklabCounts = () => {
  const r = forklab.registerStats();
  return { served: r.served, fallbacks: r.fallbacks };
};
const pct = (xs, p) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

function report() {
  const cpu = typeof process.cpuUsage === 'function' && stats.cpu0 ? process.cpuUsage(stats.cpu0) : null;
  const h = histogram;
  return {
    served: stats.served,
    failed: stats.failed,
    wallMs: performance.now() - stats.t0,
    cpuMs: cpu ? (cpu.user + cpu.system) / 1000 : null,
    rssMb: Math.round(process.memoryUsage().rss / MIB),
    timerLateMs: { p50: pct(lateMs, 50), p90: pct(lateMs, 90), p99: pct(lateMs, 99), max: lateMs.length ? Math.max(...lateMs) : null, n: lateMs.length },
    forklab: forklab ? { served: forklabCounts().served - forklab0.served, fallbacks: forklabCounts().fallbacks - forklab0.fallbacks } : null,
    monitorEventLoopDelayMs: h ? { p50: h.percentile(50) / 1e6, p90: h.percentile(90) / 1e6, p99: h.percentile(99) / 1e6, max: h.max / 1e6 } : null,
  };
}

const server = http.createServer((req, res) => {
  if (req.url === '/reset') {
    stats.served = 0;
    stats.failed = 0;
    stats.cpu0 = typeof process.cpuUsage === 'function' ? process.cpuUsage() : null;
    stats.t0 = performance.now();
    if (forklab) forklab0 = forklabCounts();
    lateMs = [];
    lastTick = performance.now();
    if (histogram) {
      histogram.disable();
      histogram.reset();
      histogram.enable();
    }
    res.end('{}');
    return;
  }
  if (req.url === '/loop') {
    const w = windowMs;
    windowMs = [];
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ p50: pct(w, 50), p99: pct(w, 99), max: w.length ? Math.max(...w) : null, n: w.length, served: stats.served, failed: stats.failed }));
    return;
  }
  if (req.url === '/stats') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(report()));
    return;
  }
  runChild().then(
    ([status, body]) => {
      if (status === 200) stats.served++;
      else stats.failed++;
      res.statusCode = status;
      res.end(body);
    },
    (e) => {
      stats.failed++;
      res.statusCode = 500;
      res.end(String(e));
    },
  );
});

const end = () => {
  server.close();
  process.exit(0);
};
process.on('SIGTERM', end);
process.stdin.on('end', end);
process.stdin.resume();
setTimeout(end, maxS * 1000).unref?.();
server.listen(0, '127.0.0.1', () => {
  const runtime = globalThis.Bun ? 'bun' : globalThis.Deno ? 'deno' : 'node';
  const version = globalThis.Bun ? globalThis.Bun.version : globalThis.Deno ? globalThis.Deno.version.deno : process.versions.node;
  void keep.length;
  process.stdout.write(`${JSON.stringify({ type: 'ready', port: server.address().port, rssMb: Math.round(process.memoryUsage().rss / MIB), runtime, version, api, heapMb })}\n`);
});
