#!/usr/bin/env node
// Runs a command with every Node process under it registered to @forklab/spawn (NODE_OPTIONS gains
// --import of packages/spawn's register module, by absolute path so that a child in another directory finds it),
// and adds up what forklab served and what it left to child_process, over every Node process that ran.
// Usage: node scripts/under-register.mjs [--json FILE] -- COMMAND [ARGS...]
// Example: node scripts/under-register.mjs -- npm test   (the project's own suite, thousands of probes)
// Exits with the command's own status. Needs packages/spawn built (npm ci does it).
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const register = join(root, 'packages/spawn/dist/register.js');
const args = process.argv.slice(2);
let jsonPath = null;
const sep = args.indexOf('--');
const own = sep < 0 ? args : args.slice(0, sep);
const command = sep < 0 ? [] : args.slice(sep + 1);
for (let i = 0; i < own.length; i++) {
  if (own[i] === '--json' && own[i + 1]) jsonPath = own[++i];
  else {
    console.error(`under-register: unknown option ${own[i]} (usage: node scripts/under-register.mjs [--json FILE] -- COMMAND [ARGS...])`);
    process.exit(2);
  }
}
if (command.length === 0) {
  console.error('under-register: no command after -- (usage: node scripts/under-register.mjs [--json FILE] -- COMMAND [ARGS...])');
  process.exit(2);
}
if (!existsSync(register)) {
  console.error(`under-register: ${register} is missing: build packages/spawn first (npm ci)`);
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'forklab-under-register-'));
const collector = join(dir, 'collector.mjs');
// Readable and writable by every user: a test may run a command as another user (a read-only history, say).
chmodSync(dir, 0o1777);
// Each Node process (main thread) writes its registerStats() when it exits; a worker's counts are its own.
writeFileSync(
  collector,
  `import { writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { registerStats } from ${JSON.stringify(pathToFileURL(register).href)};
import { stepAsideReason, unavailableReason } from ${JSON.stringify(pathToFileURL(join(root, 'packages/spawn/dist/index.js')).href)};
if (isMainThread) process.on('exit', () => {
  try {
    writeFileSync(${JSON.stringify(dir)} + '/' + process.pid + '.json', JSON.stringify({ argv: process.argv.slice(1, 3), unavailable: unavailableReason(), aside: stepAsideReason(), ...registerStats() }));
  } catch {}
});
`,
);
const quote = (p) => (/\s/.test(p) ? `"${p}"` : p);
const nodeOptions = [process.env.NODE_OPTIONS ?? '', `--import=${quote(pathToFileURL(register).href)}`, `--import=${quote(pathToFileURL(collector).href)}`]
  .filter(Boolean)
  .join(' ');
const r = spawnSync(command[0], command.slice(1), { stdio: 'inherit', env: { ...process.env, NODE_OPTIONS: nodeOptions } });

const total = { processes: 0, processesServed: 0, served: 0, fallbacks: 0, byReason: {}, byFunction: {}, unavailable: {}, aside: 0 };
for (const f of readdirSync(dir)) {
  if (!f.endsWith('.json')) continue;
  let s;
  try {
    s = JSON.parse(readFileSync(join(dir, f), 'utf8'));
  } catch {
    continue;
  }
  total.processes++;
  if (s.served > 0) total.processesServed++;
  total.served += s.served;
  total.fallbacks += s.fallbacks;
  if (s.aside) total.aside++;
  if (s.unavailable) total.unavailable[s.unavailable] = (total.unavailable[s.unavailable] ?? 0) + 1;
  for (const [k, v] of Object.entries(s.byReason ?? {})) total.byReason[k] = (total.byReason[k] ?? 0) + v;
  for (const [fn, c] of Object.entries(s.byFunction ?? {})) {
    total.byFunction[fn] ??= { served: 0, fallbacks: 0 };
    const t = total.byFunction[fn];
    t.served += c.served;
    t.fallbacks += c.fallbacks;
  }
}
rmSync(dir, { recursive: true, force: true });
const status = r.status ?? 1;
console.log(`\nunder-register: ${command.join(' ')} exited ${r.signal ?? status}`);
console.log(`under-register: ${total.processes} Node processes ran under register (${total.processesServed} of them started children through forklab)`);
console.log(`under-register: forklab served ${total.served} calls; child_process served ${total.fallbacks}`);
for (const [fn, c] of Object.entries(total.byFunction)) console.log(`  ${fn.padEnd(14)} served ${String(c.served).padStart(7)}   child_process ${String(c.fallbacks).padStart(6)}`);
for (const [k, v] of Object.entries(total.byReason).sort((a, b) => b[1] - a[1])) console.log(`  child_process's, ${v}×: ${k}`);
for (const [k, v] of Object.entries(total.unavailable)) console.log(`  addon unavailable in ${v} processes: ${k}`);
if (total.aside) console.log(`  stepped aside in ${total.aside} processes`);
if (jsonPath) writeFileSync(jsonPath, `${JSON.stringify({ command, status: r.signal ?? status, ...total }, null, 1)}\n`);
process.exit(status);
