#!/usr/bin/env node
// npm run fuzz:spawn -- --seed N --runs M [--module SPEC] [--register PATH|none] [--node PATH] [--path P] [--case JSON]
// The differential campaign: fast-check makes child_process calls (scripts/fuzz/gen.mjs); each runs in fresh
// processes through node:child_process and through the module under test (scripts/fuzz/campaign.mjs), and every
// observation is compared (scripts/fuzz/compare.mjs). Prints how many cases ran and per-dimension counts; on a
// difference, the shrunk case, what differs, and the command that replays it, and exits 1.
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { runCase } from './fuzz/campaign.mjs';
import { NORMALISATIONS, runnerNote } from './fuzz/compare.mjs';
import { caseArb, dimensions } from './fuzz/gen.mjs';
import { knownDefect } from './fuzz/known.mjs';

const DEFAULT_MODULE = '@forklab/spawn';
const USAGE = 'usage: npm run fuzz:spawn -- --seed N --runs M [--module SPEC] [--register PATH|none] [--node PATH] [--path P] [--case JSON] [--shrink-runs K] [--strict-known]';

function fail(msg) {
  console.error(`fuzz:spawn: ${msg}\n${USAGE}`);
  process.exit(2);
}

function parse(argv) {
  const a = {
    seed: undefined,
    runs: 50,
    module: DEFAULT_MODULE,
    register: undefined,
    node: process.execPath,
    path: undefined,
    case: undefined,
    shrinkRuns: 30,
    strictKnown: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) fail(`${flag} needs a value`);
      return v;
    };
    const int = (min) => {
      const raw = value();
      const n = Number(raw);
      if (!Number.isSafeInteger(n) || n < min) fail(`${flag} must be an integer >= ${min}, not '${raw}'`);
      return n;
    };
    if (flag === '--seed') a.seed = int(-(2 ** 31));
    else if (flag === '--runs') a.runs = int(1);
    else if (flag === '--shrink-runs') a.shrinkRuns = int(0);
    else if (flag === '--module') a.module = value();
    else if (flag === '--register') a.register = value();
    else if (flag === '--node') a.node = value();
    else if (flag === '--path') a.path = value();
    else if (flag === '--case') a.case = value();
    else if (flag === '--strict-known') a.strictKnown = true;
    else if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else fail(`unknown argument '${flag}'`);
  }
  if (a.path !== undefined && a.seed === undefined) fail('--path replays a seed: give --seed too');
  a.seed ??= Date.now() % 2 ** 31;
  return a;
}

function resolveModule(spec) {
  if (spec.startsWith('node:')) return spec;
  if (spec.startsWith('.') || isAbsolute(spec)) {
    const p = resolve(spec);
    if (!existsSync(p)) fail(`--module ${spec}: no such file`);
    return pathToFileURL(p).href;
  }
  try {
    return import.meta.resolve(spec);
  } catch {
    return fail(`--module ${spec}: no package of that name resolves from here`);
  }
}

const args = parse(process.argv.slice(2));
const moduleUrl = resolveModule(args.module);
let register = args.register;
if (register === undefined) register = args.module === DEFAULT_MODULE ? new URL('../dist/register.js', import.meta.url).pathname : 'none';
if (register !== 'none' && !existsSync(register)) fail(`--register ${register}: no such file (npm run build makes packages/spawn/dist)`);
const probe = spawnSync(args.node, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 30_000 });
if (probe.status !== 0) fail(`--node ${args.node}: does not run (${probe.error?.message ?? probe.stderr.trim()})`);
const nodeVersion = probe.stdout.trim();
const cfg = {
  node: args.node,
  major: Number(nodeVersion.split('.')[0]),
  module: moduleUrl,
  register: register === 'none' ? null : register,
  addon: process.env.FORKLAB_SPAWN_ADDON,
};

console.log(`fuzz:spawn: Node ${nodeVersion} (${args.node}); module ${args.module}${cfg.register ? `; register ${cfg.register}` : ''}; seed ${args.seed}, ${args.runs} runs`);
for (const n of NORMALISATIONS) console.log(`  normalised: ${n}`);

if (args.case !== undefined) {
  const kase = JSON.parse(args.case.trim().startsWith('{') ? args.case : readFileSync(args.case, 'utf8'));
  const found = await runCase(kase, cfg);
  report(kase, found, 'replay of this one case');
  process.exit(found.length ? 1 : 0);
}

const counts = new Map();
const known = new Map();
let generated = 0;
let failing = false;
let shrinkCalls = 0;
const started = Date.now();
const property = fc.asyncProperty(caseArb, async (kase) => {
  if (failing && shrinkCalls++ >= args.shrinkRuns) return true; // shrink budget spent: stop shrinking here
  if (!failing) {
    generated++;
    for (const d of dimensions(kase)) counts.set(d, (counts.get(d) ?? 0) + 1);
  }
  const found = await runCase(kase, cfg);
  const unexplained = [];
  for (const f of found) {
    const rest = f.differences.filter((d) => {
      const k = args.strictKnown ? null : knownDefect(kase, f.subject, d, cfg.major);
      if (k && !failing) known.set(k, known.get(k) ?? { case: kase, subject: f.subject, field: d.field });
      return !k;
    });
    if (rest.length) unexplained.push({ ...f, differences: rest });
  }
  if (unexplained.length) {
    if (!failing) generationEnded = Date.now();
    failing = true;
    lastFound = unexplained;
    throw new Error('differs');
  }
  return true;
});
let lastFound = [];
let generationEnded = 0;
const params = { seed: args.seed, numRuns: args.runs, endOnFailure: false };
if (args.path !== undefined) params.path = args.path;
const out = await fc.check(property, params);
const seconds = (Date.now() - started) / 1000;

const generating = ((generationEnded || Date.now()) - started) / 1000;
console.log(
  `cases run: ${generated} (${(generating / Math.max(generated, 1)).toFixed(2)} s per case, ${seconds.toFixed(0)} s in all${generationEnded ? `, ${(seconds - generating).toFixed(0)} s of them checking and shrinking the difference` : ''})`,
);
const byDim = new Map();
for (const [k, n] of counts) {
  const [dim, val] = k.split('=');
  if (!byDim.has(dim)) byDim.set(dim, []);
  byDim.get(dim).push(`${val}:${n}`);
}
for (const [dim, vals] of [...byDim].sort()) console.log(`  ${dim}: ${vals.join(' ')}`);
for (const [k, v] of known)
  console.log(`known defect (not counted as a failure; --strict-known counts it): ${k}\n  first case: ${JSON.stringify(v.case)} (${v.subject}: ${v.field})`);

if (out.failed) {
  const kase = out.counterexample[0];
  const final = await runCase(kase, cfg);
  report(kase, final.length ? final : lastFound, `${out.numShrinks} shrinks`);
  console.log(
    `replay: npm run fuzz:spawn -- --seed ${out.seed} --path ${out.counterexamplePath} --runs ${args.runs}${args.module !== DEFAULT_MODULE ? ` --module ${args.module}` : ''}${args.node !== process.execPath ? ` --node ${args.node}` : ''}`,
  );
  console.log(`replay this case alone: npm run fuzz:spawn -- --case '${JSON.stringify(kase)}'${args.module !== DEFAULT_MODULE ? ` --module ${args.module}` : ''}`);
  process.exit(1);
}
console.log(`no difference in ${generated} cases`);

function report(kase, found, how) {
  if (!found.length) {
    console.log(`no difference (${how})`);
    return;
  }
  console.log(`DIFFERENCE (${how}): ${JSON.stringify(kase)}`);
  for (const f of found) {
    console.log(`  through ${f.subject === 'module' ? args.module : 'register'}:`);
    // long values: from a little before the first place where they part
    const show = (vs, other) => {
      const at = (v) => {
        const o = other?.[0] ?? '';
        let i = 0;
        while (i < v.length && v[i] === o[i]) i++;
        return Math.max(0, i - 60);
      };
      return vs.map((v) => (v === undefined ? '(absent)' : v.length > 400 ? `…${v.slice(at(v), at(v) + 400)}…(${v.length} chars)` : v)).join(' | ');
    };
    for (const d of f.differences) console.log(`    ${d.field}: child_process ${show(d.reference, d.subject)}  ≠  ${show(d.subject, d.reference)}`);
    for (const note of new Set(f.differences.map((d) => runnerNote(d.field)).filter(Boolean))) console.log(`    (runner: ${note})`);
  }
}
