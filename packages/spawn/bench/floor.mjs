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

/** Builds floor.c (and floor-state.c, the child floor-check.mjs compares) with the machine's C compiler; returns
 * their paths, the folder and a function that removes it. */
export function buildFloor() {
  const dir = mkdtempSync(join(tmpdir(), 'forklab-bench-floor-'));
  const exe = join(dir, 'forklab-bench-floor');
  const stateExe = join(dir, 'forklab-bench-floor-state');
  const cc = process.env.CC || 'cc';
  try {
    for (const [out, src] of [
      [exe, 'floor.c'],
      [stateExe, 'floor-state.c'],
    ])
      execFileSync(cc, ['-O2', '-Wall', '-o', out, join(here, src)], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 60_000 });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`bench: cannot build the C floor with ${cc} (set CC to a C compiler): ${e.message}`);
  }
  return { exe, stateExe, dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Whether this Node's libuv gives its stdio pipes 64 KiB socket buffers (1.51 and later), as forklab then does. */
export function uvPipeBuffers(uv = process.versions.uv) {
  const [major, minor] = uv.split('.').map(Number);
  return major > 1 || (major === 1 && minor >= 51);
}

/** One floor process holding sizeMb (with extraEnv added to this process's environment, which its children get);
 * `run(n, mode)` resolves with n samples in ns. */
export function startFloor(exe, sizeMb, target, extraEnv = null) {
  const args = [`rss-mb=${sizeMb}`, `target=${target}`, ...(uvPipeBuffers() ? ['pipe-buffers=1'] : [])];
  const p = spawn(exe, args, { stdio: ['pipe', 'pipe', 'inherit'], ...(extraEnv ? { env: { ...process.env, ...extraEnv } } : {}) });
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
