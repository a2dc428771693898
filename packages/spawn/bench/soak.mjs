#!/usr/bin/env node
// npm run bench:soak — a service held under load: the bench:http server (http-server.mjs) under
// `--import @forklab/spawn/register`, holding a heap of Buffers (1 GiB by default), on 127.0.0.1, driven by autocannon
// until --requests responses (each one a child: `echo hi`) or --max-s seconds, whichever comes first. Every
// --interval-s it samples, from outside the server: its open descriptors (/proc/PID/fd), its children and those of
// them in state Z (zombies, from /proc/*/stat), its RSS (/proc/PID/status), and, from the server, its event loop's
// delay since the previous sample (a 10 ms timer's lateness). At rest before the load and 2 s after it, the same
// once more. Then the table of samples and a verdict: flat, or which of descriptors, zombies, RSS, event-loop delay
// grew, with the bounds it was judged by (soak-verdict.mjs). Exits 1 when not flat, 2 on bad options.
// Options: --requests 10000  --max-s 600  --heap-mb 1024  --connections 10  --interval-s 5  --command echo
//          --node PATH  --json FILE
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getJson, machineLoad, startServer } from './server-process.mjs';
import { parseRssMb, parseStat, sampleTable, soakBounds, soakVerdict } from './soak-verdict.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..', '..');
const autocannon = (await import('autocannon')).default;

function fail(msg) {
  console.error(`bench:soak: ${msg}`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = { requests: 10_000, maxS: 600, heapMb: 1024, connections: 10, intervalS: 5, command: 'echo', node: process.execPath };
  const whole = (flag, v, min) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) fail(`${flag}: a whole number >= ${min}, got "${v}"`);
    return n;
  };
  const flags = { '--requests': ['requests', 1], '--max-s': ['maxS', 1], '--heap-mb': ['heapMb', 0], '--connections': ['connections', 1], '--interval-s': ['intervalS', 1] };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, v] = [argv[i], argv[i + 1]];
    if (v === undefined) fail(`${flag}: a value is required`);
    if (flags[flag]) o[flags[flag][0]] = whole(flag, v, flags[flag][1]);
    else if (flag === '--command') o.command = v;
    else if (flag === '--node') o.node = v;
    else if (flag === '--json') o.json = v;
    else fail(`unknown option ${flag} (known: ${[...Object.keys(flags), '--command', '--node', '--json'].join(' ')})`);
  }
  return o;
}

const readText = (f) => readFileSync(f, 'utf8');

/** The server's children, and how many of them are zombies (state Z). */
function children(pid) {
  let all = 0;
  let zombies = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let st = null;
    try {
      st = parseStat(readText(`/proc/${d}/stat`));
    } catch {
      continue; // gone meanwhile
    }
    if (st?.ppid !== pid) continue;
    all++;
    if (st.state === 'Z') zombies++;
  }
  return { children: all, zombies };
}

function probe(pid) {
  return { fds: readdirSync(`/proc/${pid}/fd`).length, ...children(pid), rssMb: parseRssMb(readText(`/proc/${pid}/status`)) };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const t0 = Date.now();
  const server = join(here, 'http-server.mjs');
  const { ready, pid, stop } = await startServer(
    [o.node, '--import', '@forklab/spawn/register', server, 'api=child_process'],
    [`heap-mb=${o.heapMb}`, `command=${o.command}`, `max-s=${o.maxS + 180}`],
    { cwd: repo },
  );
  const machine = { before: machineLoad(readText) };
  const url = `http://127.0.0.1:${ready.port}/`;
  const samples = [];
  let done = 0;
  let idle;
  let serverEnd;
  try {
    await new Promise((resolve, reject) => autocannon({ url, connections: o.connections, amount: 200 }, (e) => (e ? reject(e) : resolve())));
    await getJson(ready.port, '/reset');
    await sleep(1000);
    idle = { before: probe(pid) };
    await getJson(ready.port, '/loop'); // starts the first window
    const startMs = Date.now();
    const inst = autocannon({ url, connections: o.connections, amount: o.requests, timeout: 30 });
    inst.on('response', () => done++);
    const finished = new Promise((resolve) => inst.on('done', resolve));
    const cap = setTimeout(() => inst.stop(), o.maxS * 1000);
    let last = { t: startMs, n: 0 };
    const sample = async () => {
      const loop = await getJson(ready.port, '/loop');
      const now = Date.now();
      const s = { tS: (now - startMs) / 1000, requests: done, rps: ((done - last.n) * 1000) / Math.max(1, now - last.t), ...probe(pid), loopP99Ms: loop.p99, loopMaxMs: loop.max };
      last = { t: now, n: done };
      samples.push(s);
      process.stderr.write(`bench:soak: ${s.tS.toFixed(0)} s, ${done} requests, ${s.fds} fds, ${s.zombies} zombies, RSS ${s.rssMb.toFixed(0)} MiB\n`);
    };
    let stopped = false;
    const ticker = (async () => {
      while (!stopped) {
        await Promise.race([sleep(o.intervalS * 1000), finished]);
        if (!stopped) await sample();
      }
    })();
    const result = await finished;
    stopped = true;
    clearTimeout(cap);
    await ticker;
    await sample();
    await sleep(2000);
    idle.after = probe(pid);
    serverEnd = await getJson(ready.port, '/stats');
    const bounds = soakBounds(o.connections, done);
    const v = soakVerdict(samples, idle, bounds);
    machine.after = machineLoad(readText);
    console.log(
      `\nbench:soak: ${done} responses (${result.non2xx} not 2xx, ${result.errors} errors, ${result.timeouts} timeouts) in ${((Date.now() - startMs) / 1000).toFixed(0)} s; Node ${ready.version} under register, heap ${o.heapMb} MiB of Buffers, ${o.connections} connections, child: ${o.command}`,
    );
    if (serverEnd.forklab) console.log(`forklab served ${serverEnd.forklab.served}, child_process served ${serverEnd.forklab.fallbacks} (since the warm-up)`);
    for (const row of sampleTable(samples)) console.log(row);
    console.log(`idle before the load: ${idle.before.fds} fds, ${idle.before.children} children, ${idle.before.zombies} zombies, RSS ${idle.before.rssMb.toFixed(0)} MiB`);
    console.log(`idle 2 s after it:    ${idle.after.fds} fds, ${idle.after.children} children, ${idle.after.zombies} zombies, RSS ${idle.after.rssMb.toFixed(0)} MiB`);
    for (const c of v.checks) console.log(`${c.flat ? 'flat' : 'NOT FLAT'}: ${c.what}: ${c.detail}`);
    const reached = done >= o.requests ? '' : ` (stopped by --max-s ${o.maxS} at ${done} of ${o.requests} requests)`;
    console.log(
      `verdict: ${v.flat ? 'flat, nothing leaked' : v.steadySamples < 3 ? 'not judged: fewer than 3 samples after the warm-up' : `NOT flat: ${v.leaked.join(', ')}`}${reached}`,
    );
    console.log(
      `the machine: CPU pressure (some avg10) ${machine.before.cpuPressureAvg10}/${machine.after.cpuPressureAvg10} %, load average ${machine.before.loadAvg1}/${machine.after.loadAvg1} (before/after); wall ${((Date.now() - t0) / 1000).toFixed(0)} s`,
    );
    if (o.json) writeFileSync(o.json, JSON.stringify({ options: o, version: ready.version, samples, idle, bounds, verdict: v, server: serverEnd, done, machine }, null, 2));
    process.exitCode = v.flat ? 0 : 1;
  } finally {
    await stop();
  }
}

await main();
