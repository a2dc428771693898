// The benches' server processes (bench:http, bench:soak): start http-server.mjs (or another file that prints one
// JSON ready line) on 127.0.0.1, wait for its ready line, stop it (SIGTERM, then SIGKILL); every process started is
// in `live` and killed when the bench exits, however it exits.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

export const live = new Set();

function killAll() {
  for (const p of live) p.kill('SIGKILL');
}
process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM'])
  process.on(sig, () => {
    killAll();
    process.exit(130);
  });

/** Starts argv (+ extra args); resolves with its parsed ready line, its pid and a stop() that ends it. */
export function startServer(argv, extra, { cwd, readyS = 120 } = {}) {
  const [exe, ...rest] = argv;
  const p = spawn(exe, [...rest, ...extra], { cwd, stdio: ['pipe', 'pipe', 'inherit'] });
  live.add(p);
  const stop = () =>
    new Promise((resolve) => {
      if (p.exitCode !== null || p.signalCode !== null) return resolve();
      const hard = setTimeout(() => p.kill('SIGKILL'), 5000);
      p.once('exit', () => {
        clearTimeout(hard);
        live.delete(p);
        resolve();
      });
      p.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const limit = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error(`${exe}: no ready line within ${readyS} s`));
    }, readyS * 1000);
    p.once('exit', (code, sig) => {
      clearTimeout(limit);
      live.delete(p);
      reject(new Error(`${exe} ended before it was ready (${sig ?? code})`));
    });
    createInterface({ input: p.stdout }).once('line', (l) => {
      clearTimeout(limit);
      p.removeAllListeners('exit');
      p.once('exit', () => live.delete(p));
      resolve({ ready: JSON.parse(l), pid: p.pid, stop });
    });
  });
}

/** GET a JSON answer from a bench server on 127.0.0.1 (30 s at most). */
export const getJson = (port, path) =>
  fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(30_000) }).then((r) => (r.ok ? r.json() : Promise.reject(new Error(`${path}: ${r.status}`))));

/** CPU pressure (some avg10, %) from /proc/pressure/cpu and the 1-minute load average; null where unreadable. */
export function machineLoad(read) {
  const out = { cpuPressureAvg10: null, loadAvg1: null };
  try {
    out.cpuPressureAvg10 = Number(/avg10=([\d.]+)/.exec(read('/proc/pressure/cpu'))[1]);
  } catch {
    // no PSI here
  }
  try {
    out.loadAvg1 = Number(read('/proc/loadavg').split(' ')[0]);
  } catch {
    // not Linux
  }
  return out;
}

/**
 * The passes of a bench over heaps and variants: heaps in turn forward and backward, variants shuffled in each,
 * `one(v, heapMb)` measuring one; a run that throws is kept as failed and said. The JSON (when asked) is written
 * after every run, complete: false, so that a run stopped early keeps what it measured. Returns the runs and the
 * machine's load before.
 */
export async function runPasses({ name, passes, heaps, variants, json, options, runtimes, one }) {
  const before = machineLoad((f) => readFileSync(f, 'utf8'));
  const runs = [];
  for (let pass = 0; pass < passes; pass++) {
    const order = pass % 2 === 0 ? heaps : [...heaps].reverse();
    for (const heapMb of order)
      for (const v of [...variants].sort(() => Math.random() - 0.5)) {
        process.stderr.write(`${name}: pass ${pass + 1} of ${passes}: ${v.id} heap ${heapMb} MB …\n`);
        try {
          runs.push({ pass, ...(await one(v, heapMb)) });
        } catch (e) {
          runs.push({ pass, variant: v.id, heapMb, failed: e.message });
          console.log(`${v.id} heap ${heapMb} MB: failed: ${e.message}`);
        }
        if (json) writeFileSync(json, JSON.stringify({ options, runtimes, runs, complete: false, machine: { before } }, null, 2));
      }
  }
  return { runs, before };
}
