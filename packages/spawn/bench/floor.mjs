// bench:spawn's C floor (floor.c): compiled once per bench run into a temporary folder, then one process per
// worker, holding the worker's memory size and started with the worker's environment, so that its children
// get exactly the envPairs child_process builds there.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Builds floor.c with the machine's C compiler; returns its path and a function that removes it. */
export function buildFloor() {
  const dir = mkdtempSync(join(tmpdir(), 'forklab-bench-floor-'));
  const exe = join(dir, 'forklab-bench-floor');
  const cc = process.env.CC || 'cc';
  try {
    execFileSync(cc, ['-O2', '-Wall', '-o', exe, join(here, 'floor.c')], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 60_000 });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`bench: cannot build the C floor with ${cc} (set CC to a C compiler): ${e.message}`);
  }
  return { exe, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** One floor process holding sizeMb; `run(n, mode)` resolves with n samples in ns. */
export function startFloor(exe, sizeMb, target) {
  const p = spawn(exe, [`rss-mb=${sizeMb}`, `target=${target}`], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: p.stdout });
  const waiting = [];
  const queue = [];
  let failure = null;
  lines.on('line', (l) => {
    const m = JSON.parse(l);
    if (m.type === 'error') failure = new Error(`C floor: ${m.call}: ${m.message}`);
    if (waiting.length) waiting.shift()(m);
    else queue.push(m);
  });
  p.on('close', (code) => {
    if (!failure && code !== 0) failure = new Error(`C floor ended with ${code}`);
    for (const w of waiting.splice(0)) w({ type: 'closed' });
  });
  const next = () => (queue.length ? Promise.resolve(queue.shift()) : new Promise((r) => waiting.push(r)));
  const limit = setTimeout(() => p.kill('SIGKILL'), 60 * 60_000);
  const check = (m) => {
    if (failure) throw failure;
    if (m.type === 'closed') throw new Error('C floor ended early');
    return m;
  };
  return {
    /** { envCount, envBytes } of the floor's own environment, which its children get. */
    async ready() {
      for (;;) {
        const m = check(await next());
        if (m.type === 'ready') return m;
      }
    },
    async run(n, mode, warm = false) {
      p.stdin.write(`${warm ? 'warmup' : 'run'} ${n} ${mode}\n`);
      const ns = [];
      for (let m = check(await next()); m.type !== 'end'; m = check(await next())) if (m.type === 'samples') ns.push(...m.ns);
      return ns;
    },
    stop() {
      clearTimeout(limit);
      p.stdin.end('stop\n');
      return new Promise((r) => (p.exitCode !== null ? r() : p.on('close', r)));
    },
  };
}
