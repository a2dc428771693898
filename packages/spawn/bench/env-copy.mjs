#!/usr/bin/env node
// npm run bench:env — what copying process.env costs each spawn, and what handing the child the C environ
// instead would save, at the bench's environment and at 135 variables, on each Node given (--nodes).
// child_process builds the child's environment from process.env on every call (normalizeSpawnArguments:
// for..in over process.env on Node 20; a spread of it, then for..in, on 22 and 24; Node 26 reads it natively).
// Measured per Node and environment, in a fresh process started with that environment:
//   copy      the copy as that Node's child_process makes it, in a tight loop (µs per call)
//   guard     the checks that decide whether the environ path may be taken (env-fastpath.mjs)
//   spawn     interleaved, one child each, as forklab's addon starts it (env-proto.c): "copy" = the copy, then
//             its strings converted for posix_spawn; "environ" = the guard, then environ filtered in C.
//             The difference is what the environ path saves a spawn.
// Then the check: for environments no shell can write (repeated names, entries without '=', an empty name,
// names that are array indices, bytes that are not UTF-8), the environment the C filter gives against the one
// child_process really gives a child (/usr/bin/env -0 run through execFileSync), on each Node.
// Options: --nodes PATH[,PATH]  --envs inherited,npm135  --rounds 20  --json FILE
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENV_SETTINGS, envFor, envPairsOf, envSize } from './env.mjs';
import { environPathAllowed } from './env-fastpath.mjs';
import { TARGET } from './spawn-worker.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const self = fileURLToPath(import.meta.url);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const f = (x, d = 1) => (typeof x === 'number' ? x.toFixed(d) : '-');

function fail(msg) {
  console.error(`bench:env: ${msg}`);
  process.exit(2);
}

/** The copy child_process makes on this Node (a replica of its loop: Node's own is not reachable). */
function nodeCopy(major) {
  if (major <= 20) return () => envPairsOf(process.env);
  return () => envPairsOf({ ...process.env });
}

/** Per call: the median over batches of wall time, and of this process's CPU time (user + system: less
 * sensitive than wall time to other work on the machine), in µs. */
function perCallUs(fn, reps = 200, batches = 15) {
  for (let i = 0; i < 20; i++) fn();
  const wall = [];
  const cpu = [];
  for (let b = 0; b < batches; b++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < reps; i++) fn();
    wall.push(Number(process.hrtime.bigint() - t0) / reps / 1000);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / reps);
  }
  return { wall: median(wall), cpu: median(cpu) };
}

async function worker(protoPath, rounds) {
  const proto = createRequire(import.meta.url)(protoPath);
  const major = Number(process.versions.node.split('.')[0]);
  let copy = nodeCopy(major);
  const options = { stdio: 'ignore' };
  const out = { node: process.version, major, env: envSize(envPairsOf(process.env)), copyUs: {}, spawnUs: {} };
  out.copyUs.forIn = perCallUs(() => envPairsOf(process.env));
  out.copyUs.spreadForIn = perCallUs(() => envPairsOf({ ...process.env }));
  const plain = { ...process.env };
  out.copyUs.plainObject = perCallUs(() => envPairsOf(plain));
  out.copyUs.thisNode = major <= 20 ? out.copyUs.forIn : out.copyUs.spreadForIn;
  out.copyUs.guard = perCallUs(() => environPathAllowed(options));
  out.copyUs.filterInC = perCallUs(() => proto.emulatedPairs());
  if (major >= 26) {
    // Node 26's own native path, for scale (needs --expose-internals, which the orchestrator passes there)
    const { internalBinding } = createRequire(import.meta.url)('internal/test/binding');
    const { getEnvPairs } = internalBinding('process_wrap');
    out.copyUs.node26Native = perCallUs(() => getEnvPairs());
    out.copyUs.thisNode = out.copyUs.node26Native;
    copy = getEnvPairs; // what child_process itself does on 26 when options.env is absent
  }
  if (!environPathAllowed(options)) fail('the environ path is refused in the bench itself');
  const ways = {
    copy: () => proto.spawnWait(TARGET, copy()),
    environ: () => proto.spawnWait(TARGET, environPathAllowed(options) ? null : copy()),
  };
  const samples = { copy: [], environ: [] };
  for (const w of Object.values(ways)) w();
  for (let r = 0; r < rounds; r++)
    for (const name of Object.keys(ways).sort(() => Math.random() - 0.5))
      for (let i = 0; i < 5; i++) {
        const t0 = process.hrtime.bigint();
        const rc = ways[name]();
        samples[name].push(Number(process.hrtime.bigint() - t0) / 1000);
        if (rc !== 0) fail(`the target ended with ${rc}`);
      }
  for (const [k, v] of Object.entries(samples)) out.spawnUs[k] = median(v);
  out.savedUs = out.spawnUs.copy - out.spawnUs.environ;
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

/** One environment no shell can write, and what it tests. */
const CASES = [
  ['repeated names, an entry without "=", an empty name', ['PATH=/usr/bin:/bin', 'DUP=one', 'NOEQ', 'DUP=two', '=empty', 'LAST=1']],
  ['names that are array indices and names that are not', ['0=zero', '01=lead', '4294967294=max', '4294967295=over', '-1=neg', '1.5=f', 'PATH=/usr/bin:/bin']],
  ['UTF-8 that is valid', ['PATH=/usr/bin:/bin', 'CAFÉ=crème', 'EMOJI=\u{1F600}', 'K=a=b=c']],
  ['bytes that are not UTF-8 (the filter says so: child_process re-encodes them)', ['PATH=/usr/bin:/bin', Buffer.from([0x58, 0x3d, 0xff, 0xfe])]],
];

function checkCase(node, execHelper, protoPath, dir, entries) {
  const file = join(dir, 'env');
  writeFileSync(file, Buffer.concat(entries.flatMap((e) => [Buffer.isBuffer(e) ? e : Buffer.from(e), Buffer.from([0])])));
  const code = `const p=require(${JSON.stringify(protoPath)}).emulatedPairs();const c=require('child_process').execFileSync('/usr/bin/env',['-0']);process.stdout.write(JSON.stringify({emulated:p===null?null:Buffer.from(p.map((x)=>x+'\\0').join('')).toString('base64'),child:c.toString('base64')}))`;
  const r = JSON.parse(execFileSync(execHelper, [file, node, '-e', code], { timeout: 30_000 }).toString());
  const show = (b64) => Buffer.from(b64, 'base64').toString('latin1').split('\0').filter(Boolean).join(' ');
  return r.emulated === null
    ? { state: 'not emulated', child: show(r.child) }
    : { state: r.emulated === r.child ? 'same' : 'DIFFERENT', child: show(r.child), emulated: show(r.emulated) };
}

const majors = new Map();
function major(node) {
  if (!majors.has(node)) majors.set(node, Number(execFileSync(node, ['-p', 'process.versions.node.split(".")[0]'], { timeout: 30_000 }).toString()));
  return majors.get(node);
}

function runWorker(node, setting, protoPath, rounds) {
  const flags = major(node) >= 26 ? ['--expose-internals', '--no-warnings'] : [];
  return new Promise((resolve, reject) => {
    const w = spawn(node, [...flags, self, '--worker', protoPath, String(rounds)], { env: envFor(setting), stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    w.stdout.on('data', (d) => (out += d));
    const limit = setTimeout(() => w.kill('SIGKILL'), 10 * 60_000);
    w.on('close', (code) => {
      clearTimeout(limit);
      code === 0 ? resolve({ setting, ...JSON.parse(out) }) : reject(new Error(`bench:env worker ${node} ${setting} ended with ${code}`));
    });
  });
}

async function main() {
  const o = { nodes: [process.execPath], envs: [...ENV_SETTINGS], rounds: 20, json: null };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, v] = [argv[i], argv[i + 1]];
    if (v === undefined) fail(`${flag}: a value is required`);
    if (flag === '--nodes') o.nodes = v.split(',');
    else if (flag === '--envs') o.envs = v.split(',');
    else if (flag === '--rounds') o.rounds = Number(v);
    else if (flag === '--json') o.json = v;
    else fail(`unknown option ${flag}`);
  }
  if (o.nodes.some((n) => !existsSync(n))) fail(`--nodes: no such file in "${o.nodes.join(',')}"`);
  if (o.envs.some((e) => !ENV_SETTINGS.includes(e))) fail(`--envs: ${ENV_SETTINGS.join(' and/or ')}, got "${o.envs.join(',')}"`);
  if (!Number.isInteger(o.rounds) || o.rounds < 1) fail('--rounds: a whole number >= 1');
  if (!existsSync(TARGET)) fail('the probe is not built: run `node scripts/build-native.mjs`');
  const dir = mkdtempSync(join(tmpdir(), 'forklab-bench-env-'));
  try {
    const include = join(dirname(dirname(process.execPath)), 'include', 'node');
    const cc = process.env.CC || 'cc';
    const protoPath = join(dir, 'env-proto.node');
    const execHelper = join(dir, 'env-exec');
    execFileSync(cc, ['-O2', '-shared', '-fPIC', `-I${include}`, '-o', protoPath, join(here, 'env-proto.c')], { stdio: 'inherit', timeout: 60_000 });
    execFileSync(cc, ['-O2', '-o', execHelper, join(here, 'env-exec.c')], { stdio: 'inherit', timeout: 60_000 });
    const results = [];
    const checks = [];
    for (const node of o.nodes) {
      for (const setting of o.envs) {
        const r = await runWorker(node, setting, protoPath, o.rounds);
        results.push(r);
        const us = (x, d = 1) => `${f(x.wall, d)} (CPU ${f(x.cpu, d)})`;
        console.log(
          `${r.node} ${setting} (${r.env.count} variables, ${r.env.bytes} bytes), µs per call, wall (CPU): this Node's copy ${us(r.copyUs.thisNode)}` +
            `${r.major >= 26 ? " (Node 26's native getEnvPairs)" : ''}; for..in over process.env ${us(r.copyUs.forIn)}; spread, then for..in ${us(r.copyUs.spreadForIn)}; ` +
            `for..in over a plain copy ${us(r.copyUs.plainObject)}; the guard ${us(r.copyUs.guard, 2)}; the C filter, as JS strings ${us(r.copyUs.filterInC)}\n` +
            `  spawn + reap, interleaved: copy ${f(r.spawnUs.copy)} µs, environ ${f(r.spawnUs.environ)} µs: saved ${f(r.savedUs)} µs a spawn`,
        );
      }
      for (const line of execFileSync(node, [join(here, 'env-check.mjs'), protoPath], { timeout: 60_000 })
        .toString()
        .trim()
        .split('\n')) {
        const c = JSON.parse(line);
        checks.push({ node, ...c });
        console.log(
          `  ${c.situation}: ${c.allowed ? `environ path taken, ${c.same ? 'the same environment as child_process' : 'A DIFFERENT ENVIRONMENT'}` : 'copy (child_process as it is)'}`,
        );
      }
      for (const [what, entries] of CASES) {
        const c = checkCase(node, execHelper, protoPath, dir, entries);
        checks.push({ node, what, ...c });
        const note = c.state === 'DIFFERENT' && major(node) >= 26 ? " (Node 26 passes environ unfiltered; the filter is Node 20-24's)" : '';
        console.log(
          `  environ with ${what}: ${c.state}${note}${c.state === 'DIFFERENT' ? `\n    child_process: ${c.child}\n    C filter:      ${c.emulated}` : ` (child_process gives: ${c.child})`}`,
        );
      }
    }
    const pressure = /avg10=([\d.]+)/.exec(execFileSync('cat', ['/proc/pressure/cpu']).toString())?.[1];
    console.log(`${o.rounds * 5} spawns per way, Node and environment; CPU pressure avg10 at the end: ${pressure} %`);
    if (o.json) writeFileSync(o.json, JSON.stringify({ rounds: o.rounds, results, checks }, null, 2));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--worker') await worker(process.argv[3], Number(process.argv[4]));
else await main();
