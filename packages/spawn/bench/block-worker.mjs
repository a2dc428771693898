// bench:block's worker, the same file for Node, Bun and Deno: holds heap-mb of Buffers (every byte written), then
// starts n children one after another (command, stdio ignored) and, for each, measures how long the spawn call
// itself blocks (sync), the longest gap of a 1 ms timer chain from the call until the child's exit has been handled
// (the event loop's longest stall that the spawn caused: the call plus whatever the runtime does on the loop for
// that child), and spawn-to-exit; then the same timer's longest gaps in as many idle windows of the same length (the
// machine alone). Prints one JSON line.
//   RUNTIME block-worker.mjs api=child_process|bun-spawn|deno-command heap-mb=N n=K command=ARGV0
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import process from 'node:process';

const args = Object.fromEntries(process.argv.slice(2).map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
const api = args.api ?? 'child_process';
const heapMb = Number(args['heap-mb'] ?? 0);
const n = Number(args.n ?? 100);
const command = args.command ?? 'true';
const MIB = 1024 * 1024;
const keep = [];
for (let left = heapMb; left > 0; left -= 64) keep.push(Buffer.alloc(Math.min(64, left) * MIB, 1));

/** Starts one child; returns a promise of its exit (resolved once the runtime has handled it). */
function start() {
  if (api === 'bun-spawn') return globalThis.Bun.spawn([command], { stdio: ['ignore', 'ignore', 'ignore'] }).exited;
  if (api === 'deno-command') return new globalThis.Deno.Command(command, { stdin: 'null', stdout: 'null', stderr: 'null' }).spawn().status;
  const child = spawn(command, [], { stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
}

// a 1 ms timer chain: its longest gap since reset() is the loop's longest stall
let last = performance.now();
let longest = 0;
let ticking = true;
const tick = () => {
  const now = performance.now();
  if (now - last > longest) longest = now - last;
  last = now;
  if (ticking) setTimeout(tick, 1);
};
setTimeout(tick, 1);
const reset = () => {
  longest = 0;
  last = performance.now();
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const syncUs = [];
const stallMs = [];
const exitMs = [];
const idleMs = [];
for (let i = 0; i < 10; i++) await start(); // warm-up
for (let i = 0; i < n; i++) {
  await sleep(3);
  reset();
  const t0 = performance.now();
  const exited = start();
  const t1 = performance.now();
  await exited;
  const t2 = performance.now();
  await sleep(0); // let the timer chain run once after the exit was handled
  syncUs.push((t1 - t0) * 1000);
  stallMs.push(Math.max(longest, performance.now() - last));
  exitMs.push(t2 - t0);
}
for (const ms of exitMs) {
  await sleep(3);
  reset();
  await sleep(Math.max(1, ms));
  idleMs.push(Math.max(longest, performance.now() - last));
}
ticking = false;
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const sum = (xs) => ({ p50: pct(xs, 50), p99: pct(xs, 99), max: Math.max(...xs) });
// under `--import @forklab/spawn/register`: what forklab served, so that the run shows it did
const registered = process.execArgv?.some((a) => a.includes('@forklab/spawn/register'));
const forklab = registered ? (await import('@forklab/spawn')).registerStats() : null;
const runtime = globalThis.Bun ? 'bun' : globalThis.Deno ? 'deno' : 'node';
const version = globalThis.Bun ? globalThis.Bun.version : globalThis.Deno ? globalThis.Deno.version.deno : process.versions.node;
void keep.length;
process.stdout.write(
  `${JSON.stringify({ runtime, version, api, heapMb, n, rssMb: Math.round(process.memoryUsage().rss / MIB), syncUs: sum(syncUs), stallMs: sum(stallMs), idleStallMs: sum(idleMs), spawnToExitMs: sum(exitMs), forklab: forklab && { served: forklab.served, fallbacks: forklab.fallbacks } })}\n`,
);
process.exit(0);
