// bench:http's report: per variant and heap, the median over passes of each figure with the passes' range,
// and the goal of issue 42: Node under register at least Bun's node:child_process at the largest heap (Bun.spawn beside
// it), and the machine's load during the runs.
import { VARIANTS } from './http-variants.mjs';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const f = (x, d = 0) => (typeof x === 'number' && Number.isFinite(x) ? x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }) : '-');
const at = (o, path) => path.split('.').reduce((x, k) => (x == null ? x : x[k]), o);

function cell(runs, variant, heapMb) {
  const ok = runs.filter((r) => r.variant === variant && r.heapMb === heapMb && !r.failed);
  if (!ok.length) return null;
  const m = (path) => {
    const xs = ok.map((r) => at(r, path)).filter((x) => typeof x === 'number');
    return xs.length ? median(xs) : null;
  };
  const rps = ok.map((r) => r.requestsPerS);
  return {
    n: ok.length,
    version: ok[0].version,
    rssMb: m('rssMb'),
    rps: median(rps),
    rpsLow: Math.min(...rps),
    rpsHigh: Math.max(...rps),
    p50: m('latencyMs.p50'),
    p90: m('latencyMs.p90'),
    p99: m('latencyMs.p99'),
    loopP99: m('loopDelayMs.p99'),
    loopMax: m('loopDelayMs.max'),
    eldP99: m('monitorEventLoopDelayMs.p99'),
    cpuMs: m('cpuMsPerRequest'),
    errors: ok.reduce((a, r) => a + r.errors, 0),
    forklab: ok.every((r) => r.forklab)
      ? ok.reduce((a, r) => ({ served: a.served + r.forklab.served, fallbacks: a.fallbacks + r.forklab.fallbacks }), { served: 0, fallbacks: 0 })
      : null,
  };
}

export function printHttp(runs, o, meta) {
  console.log(
    `\nmedians over ${o.passes} pass(es) of fresh servers; ${o.connections} connections, at most ${o.requests} requests or ${o.duration} s per run after ${o.warmup} warm-up requests; child: ${o.command}`,
  );
  console.log(
    'variant             heap MB | version  | RSS MB | requests/s [passes]   | latency ms p50 / p90 / p99 | loop delay ms p99 / max (10 ms timer) | monitorEventLoopDelay p99 ms | CPU ms/request | errors',
  );
  const cells = {};
  for (const heapMb of o.heaps)
    for (const v of VARIANTS) {
      if (!o.variants.includes(v.id)) continue;
      const c = cell(runs, v.id, heapMb);
      cells[`${v.id} ${heapMb}`] = c;
      if (!c) {
        console.log(`${v.id.padEnd(19)} ${String(heapMb).padStart(7)} | no run`);
        continue;
      }
      console.log(
        `${v.id.padEnd(19)} ${String(heapMb).padStart(7)} | ${String(c.version).padEnd(8)} | ${f(c.rssMb).padStart(6)} | ${`${f(c.rps)} [${f(c.rpsLow)}-${f(c.rpsHigh)}]`.padEnd(21)} | ${`${f(c.p50, 1)} / ${f(c.p90, 1)} / ${f(c.p99, 1)}`.padEnd(26)} | ${`${f(c.loopP99, 1)} / ${f(c.loopMax, 1)}`.padEnd(37)} | ${f(c.eldP99, 1).padEnd(28)} | ${f(c.cpuMs, 2).padEnd(14)} | ${c.errors}${c.forklab ? ` | forklab served ${c.forklab.served}, fallbacks ${c.forklab.fallbacks}` : ''}`,
      );
    }
  const top = Math.max(...o.heaps);
  const reg = cells[`node-register ${top}`];
  const bunCp = cells[`bun-child_process ${top}`];
  const bunSpawn = cells[`bun-spawn ${top}`];
  if (reg && bunCp) {
    const ratio = reg.rps / bunCp.rps;
    console.log(
      `\ngoal (issue 42): Node under register at least Bun's node:child_process at ${top} MB: ${ratio >= 1 ? 'met' : 'NOT MET'}: ${f(reg.rps)} against ${f(bunCp.rps)} requests/s (${f(ratio, 2)}×; passes ${f(reg.rpsLow)}-${f(reg.rpsHigh)} against ${f(bunCp.rpsLow)}-${f(bunCp.rpsHigh)}); CPU ms per request ${f(reg.cpuMs, 2)} against ${f(bunCp.cpuMs, 2)}`,
    );
    if (bunSpawn)
      console.log(`beside it, Bun.spawn at ${top} MB: ${f(bunSpawn.rps)} requests/s (register ${f(reg.rps / bunSpawn.rps, 2)}× that), CPU ms per request ${f(bunSpawn.cpuMs, 2)}`);
    const cp = cells[`node-child_process ${top}`];
    if (cp) console.log(`Node's child_process at ${top} MB: ${f(cp.rps)} requests/s; under register ${f(reg.rps / cp.rps, 1)}× that`);
  } else console.log(`\ngoal (issue 42): not judged: node-register and bun-child_process at ${top} MB are both needed`);
  const pressures = runs.flatMap((r) => (r.machine ? [r.machine.before.cpuPressureAvg10, r.machine.after.cpuPressureAvg10] : [])).filter((x) => typeof x === 'number');
  const loads = runs.flatMap((r) => (r.machine ? [r.machine.before.loadAvg1, r.machine.after.loadAvg1] : [])).filter((x) => typeof x === 'number');
  if (pressures.length || loads.length)
    console.log(
      `the machine during the runs: CPU pressure (some avg10) ${f(Math.min(...pressures))}-${f(Math.max(...pressures))} %, load average (1 min) ${f(Math.min(...loads), 1)}-${f(Math.max(...loads), 1)}`,
    );
  console.log(
    "for context, Val Town's measurement (not this machine): Node 22.3 651 requests/s, Deno 2,290, Bun 2,208 (8 vCPUs, bombardier -c 30 -n 10000, spawn `echo hi` per request)",
  );
  console.log(
    `runtimes: ${Object.entries(meta.runtimes)
      .map(([k, v]) => `${k} ${v ?? 'absent'}`)
      .join(
        ', ',
      )}; wall ${meta.wallS} s; CPU pressure avg10 before/after: ${meta.before.cpuPressureAvg10}/${meta.after.cpuPressureAvg10} %, load average ${meta.before.loadAvg1}/${meta.after.loadAvg1}`,
  );
}
