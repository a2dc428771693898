#!/usr/bin/env node
// npm run bench:http — the case users hit: an HTTP server that starts one short child per request (as Val Town
// measured it: spawn `echo hi`, its stdout the response; "Why is spawning a new process in Node so slow?",
// blog.val.town, Node 22.3 651 requests/s, Deno 2,290, Bun 2,208 on 8 vCPUs with bombardier -c 30 -n 10000),
// side by side in one run: Node's child_process, Node under `--import @forklab/spawn/register`, Bun (its
// node:child_process and Bun.spawn) and Deno (its node:child_process and Deno.Command), each server holding a
// small and a 1 GiB heap of Buffers (http-server.mjs, one file for the three runtimes), driven by autocannon
// over 127.0.0.1. Per server and heap: requests/s, latency p50/p90/p99, the event loop's delay, CPU per request.
// Each run is one fresh server; runs are bounded (--requests and --duration) and every server is killed at the
// end. Fresh servers differ, so every variant and heap runs in --passes servers, in a new random order each
// pass; a figure is the median over the passes, with their range.
// Options: --variants LIST  --heaps 0,1024  --connections 10  --requests 4000  --duration 20 (s, the most one
//          run may take)  --warmup 200  --passes 3  --command echo  --node PATH  --bun PATH  --deno PATH
//          --json FILE
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_VARIANTS, findRuntime, VARIANTS } from './http-variants.mjs';
import { load } from './http-load.mjs';
import { printHttp } from './http-report.mjs';
import { getJson, machineLoad, runPasses, startServer } from './server-process.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..', '..');

function fail(msg) {
  console.error(`bench:http: ${msg}`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = { variants: [...DEFAULT_VARIANTS], heaps: [0, 1024], connections: 10, requests: 4000, duration: 20, warmup: 200, passes: 3, command: 'echo' };
  const whole = (flag, v, min) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) fail(`${flag}: a whole number >= ${min}, got "${v}"`);
    return n;
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, v] = [argv[i], argv[i + 1]];
    if (v === undefined) fail(`${flag}: a value is required`);
    if (flag === '--variants') {
      o.variants = v.split(',');
      const bad = o.variants.filter((x) => !VARIANTS.some((y) => y.id === x));
      if (bad.length) fail(`--variants: unknown ${bad.join(', ')} (known: ${VARIANTS.map((y) => y.id).join(', ')})`);
    } else if (flag === '--heaps') o.heaps = v.split(',').map((x) => whole('--heaps', x, 0));
    else if (flag === '--connections') o.connections = whole(flag, v, 1);
    else if (flag === '--requests') o.requests = whole(flag, v, 1);
    else if (flag === '--duration') o.duration = whole(flag, v, 1);
    else if (flag === '--warmup') o.warmup = whole(flag, v, 0);
    else if (flag === '--passes') o.passes = whole(flag, v, 1);
    else if (flag === '--command') o.command = v;
    else if (['--node', '--bun', '--deno'].includes(flag)) {
      if (!existsSync(v)) fail(`${flag}: no such file ${v}`);
      o[flag.slice(2)] = v;
    } else if (flag === '--json') o.json = v;
    else fail(`unknown option ${flag}`);
  }
  return o;
}

const readText = (f) => readFileSync(f, 'utf8');

async function runOne(variant, heapMb, o) {
  const argv = variant.argv(o);
  const { ready, stop } = await startServer(argv, [`heap-mb=${heapMb}`, `command=${o.command}`, `max-s=${o.duration * 4 + 120}`], { cwd: repo });
  const loadBefore = machineLoad(readText);
  try {
    if (o.warmup > 0) await load(ready.port, o.warmup, o.duration, o.connections);
    await getJson(ready.port, '/reset');
    const { result: r, ok, seconds } = await load(ready.port, o.requests, o.duration, o.connections);
    const server = await getJson(ready.port, '/stats');
    return {
      variant: variant.id,
      heapMb,
      version: ready.version,
      rssMb: server.rssMb,
      requestsPerS: ok / seconds,
      ok,
      errors: r.errors + r.timeouts + r.non2xx,
      seconds,
      latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99 },
      loopDelayMs: server.timerLateMs,
      monitorEventLoopDelayMs: server.monitorEventLoopDelayMs,
      forklab: server.forklab,
      cpuMsPerRequest: server.cpuMs !== null && server.served > 0 ? server.cpuMs / server.served : null,
      // the machine while this run was measured (the bench shares it with whatever else runs)
      machine: { before: loadBefore, after: machineLoad(readText) },
    };
  } finally {
    await stop();
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  o.node ??= process.execPath;
  const runtimes = { node: o.node, bun: o.bun ?? findRuntime('bun'), deno: o.deno ?? findRuntime('deno') };
  if (o.variants.includes('node-register') && !existsSync(join(here, '..', 'dist', 'register.js'))) fail('@forklab/spawn is not built: run `npm run build`');
  const variants = VARIANTS.filter((v) => o.variants.includes(v.id));
  const absent = variants.filter((v) => !runtimes[v.runtime]);
  for (const v of absent) console.log(`${v.id}: absent (no ${v.runtime}: give --${v.runtime} PATH, put it on PATH, or set FORKLAB_TEST_RUNTIMES)`);
  const present = variants.filter((v) => runtimes[v.runtime]).map((v) => ({ ...v, argv: (opts) => v.command(runtimes[v.runtime], join(here, 'http-server.mjs'), opts) }));
  const startedMs = Date.now();
  const { runs, before } = await runPasses({
    name: 'bench:http',
    passes: o.passes,
    heaps: o.heaps,
    variants: present,
    json: o.json,
    options: o,
    runtimes,
    one: (v, heapMb) => runOne(v, heapMb, o),
  });
  const wallS = Math.round((Date.now() - startedMs) / 1000);
  const after = machineLoad(readText);
  printHttp(runs, o, { before, after, wallS, runtimes });
  if (o.json)
    writeFileSync(
      o.json,
      JSON.stringify({ options: o, runtimes, runs, wallS, complete: true, cpuPressure: [before.cpuPressureAvg10, after.cpuPressureAvg10], machine: { before, after } }, null, 2),
    );
}

await main();
