#!/usr/bin/env node
// npm run bench:verdicts — whether forklab's verdicts hold still between runs on this machine (docs/reproduce.md,
// "Benches"). Two benches, each of `--runs` consecutive `forklab reproduce --quick` runs (same seed):
//   one history: every run stored in one temporary history, so each learns the drift between runs from the ones
//     before it and judges the machine's value, pooled with them (the figures are given again for the verdicts each
//     run alone gives, kept beside the pooled ones: reproduce --no-pool). Figures: holds ↔ differs flips in any of the pairs of runs (goal 0), the last two runs' agreement
//     (goal ≥ 95 % of the claims), the share the last run decides, holds or differs (goal ≥ 70 %);
//   fresh histories: each run in a history of its own (the stated prior alone). Figure: flips in any pair (goal 0).
// Prints the figures and whether each goal is met; never a test (timings on a shared machine swing).
//
// Options: --runs N (default 5)  --bench one|fresh|both (default both)  --seed N (default 1)
//   --only 000,002 (those articles: for trying a preset; the goals are over all of them)
//   --settle SECONDS (each run is `reproduce --quick --settle SECONDS`)  --json FILE (every run's verdicts and the figures)
//   --prior (after the one-history bench: the half-t scale per kind of quantity that best explains the drift its runs
//   showed, what the stated priors of src/claims/drift.ts are measured with)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { opt, repo } from './bench-args.mjs';

const runs = Number(opt('runs', '5'));
const seed = opt('seed', '1');
const jsonOut = opt('json', undefined);
const only = opt('only', undefined);
const settleS = opt('settle', undefined);
const bench = opt('bench', 'both');
const prior = process.argv.includes('--prior');
if (!Number.isInteger(runs) || runs < 2) {
  console.error('bench:verdicts: --runs must be an integer ≥ 2');
  process.exit(2);
}
if (settleS !== undefined && !(Number(settleS) > 0)) {
  console.error('bench:verdicts: --settle needs a budget in seconds above 0');
  process.exit(2);
}
if (!['one', 'fresh', 'both'].includes(bench)) {
  console.error('bench:verdicts: --bench must be one, fresh or both');
  process.exit(2);
}

const tmp = mkdtempSync(join(tmpdir(), 'forklab-bench-verdicts-'));

/** One `reproduce --quick` into the history `db`: its time, exit status and verdicts. */
function reproduce(db, label) {
  const file = join(tmp, `${label}.json`);
  const t0 = Date.now();
  process.stderr.write(`bench:verdicts: reproduce --quick${settleS ? ` --settle ${settleS}` : ''}, ${label} …\n`);
  const p = spawnSync(
    process.execPath,
    [
      join(repo, 'bin', 'forklab.js'),
      'reproduce',
      '--quick',
      ...(only ? ['--only', only] : []),
      ...(settleS ? ['--settle', settleS] : []),
      '--seed',
      seed,
      '--json',
      file,
      '--db',
      db,
      '--no-color',
    ],
    { cwd: repo, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 20 * 60 * 1000, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (p.error) throw p.error;
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  return { label, exit: p.status, seconds: (Date.now() - t0) / 1000, verdicts: doc.verdicts };
}

const verdictOf = (res, id) => res.verdicts.find((v) => v.claimId === id)?.verdict;
const count = (res, v) => res.verdicts.filter((x) => x.verdict === v).length;
const pct = (a, b) => `${((a / b) * 100).toFixed(1)} %`;

/** The figures of one bench: flips in every pair, each consecutive pair's agreement, the last run's decided share. */
function figures(results) {
  const ids = results[0].verdicts.map((v) => v.claimId);
  const flips = [];
  for (let i = 0; i < results.length; i++)
    for (let j = i + 1; j < results.length; j++)
      for (const id of ids) {
        const pair = [verdictOf(results[i], id), verdictOf(results[j], id)];
        if (pair.includes('holds') && pair.includes('differs')) flips.push({ id, runs: [i + 1, j + 1] });
      }
  const agree = (a, b) => ids.filter((id) => verdictOf(a, id) === verdictOf(b, id)).length;
  const consecutive = results.slice(1).map((res, i) => ({ runs: [i + 1, i + 2], agree: agree(results[i], res) }));
  const last = results.at(-1);
  const decided = count(last, 'holds') + count(last, 'differs');
  const moved = ids.filter((id) => new Set(results.map((r) => verdictOf(r, id))).size > 1).map((id) => ({ id, verdicts: results.map((r) => verdictOf(r, id)) }));
  return { claims: ids.length, flips, pairs: (results.length * (results.length - 1)) / 2, consecutive, lastAgree: consecutive.at(-1).agree, decided, moved };
}

function report(name, results, f, goals) {
  const out = [`${name}: ${results.length} consecutive reproduce --quick${settleS ? ` --settle ${settleS}` : ''} runs, seed ${seed}${only ? `, articles ${only} only` : ''}`];
  for (const [i, res] of results.entries())
    out.push(
      `  run ${i + 1}: ${res.seconds.toFixed(0)} s, exit ${res.exit}; ${count(res, 'holds')} hold, ${count(res, 'differs')} differ, ${count(res, 'inconclusive')} inconclusive, ${count(res, 'not-measurable')} not measurable`,
    );
  const ok = (b) => (b ? 'met' : 'NOT met');
  out.push(
    `  holds ↔ differs flips in the ${f.pairs} pairs of runs: ${f.flips.length} (goal 0: ${ok(f.flips.length === 0)})${f.flips.length ? `: ${f.flips.map((x) => `${x.id} (runs ${x.runs.join(' and ')})`).join(', ')}` : ''}`,
  );
  out.push(`  consecutive runs agree on: ${f.consecutive.map((c) => `${c.runs.join(' and ')}: ${c.agree} of ${f.claims} (${pct(c.agree, f.claims)})`).join('; ')}`);
  if (goals) {
    out.push(
      `  runs ${results.length - 1} and ${results.length} agree on ${f.lastAgree} of ${f.claims} claims: ${pct(f.lastAgree, f.claims)} (goal ≥ 95 %: ${ok(f.lastAgree >= 0.95 * f.claims)})`,
    );
    out.push(
      `  run ${results.length} decides ${f.decided} of ${f.claims} claims (holds or differs): ${pct(f.decided, f.claims)} (goal ≥ 70 %: ${ok(f.decided >= 0.7 * f.claims)})`,
    );
  }
  for (const m of f.moved) out.push(`    moved: ${m.id}: ${m.verdicts.join(' → ')}`);
  return out.join('\n');
}

/** The half-t scale per kind of quantity that best explains what the one-history runs showed (needs the build in dist/). */
async function priorFigures(db) {
  const { Store } = await import(join(repo, 'dist', 'store', 'db.js'));
  const { fitPriorScale } = await import(join(repo, 'dist', 'stats', 'drift.js'));
  const { DRIFT_PRIORS } = await import(join(repo, 'dist', 'claims', 'drift.js'));
  const store = Store.open(db, { create: false });
  const byKey = new Map();
  try {
    // every estimate set in this history: the bench's runs, one machine
    for (const row of store.driftEstimates.all()) for (const [k, e] of Object.entries(row.estimates)) byKey.set(k, [...(byKey.get(k) ?? []), e]);
  } finally {
    store.close();
  }
  const out = ['prior: the half-t(2) scale that best explains the drift the one-history runs showed, per kind of quantity'];
  for (const cls of Object.keys(DRIFT_PRIORS)) {
    const sets = [...byKey.values()].filter((es) => es[0].class === cls);
    const scale = sets[0]?.[0].scale ?? 'log';
    const fit = fitPriorScale(sets, scale, DRIFT_PRIORS[cls].df);
    out.push(
      `  ${cls}: ${fit ? `${(fit.scale * 100).toPrecision(2)} ${scale === 'absolute' ? 'points' : '%'} from ${fit.quantities} quantities` : 'no quantity of this kind'} (stated: ${(DRIFT_PRIORS[cls].scale * 100).toPrecision(2)})`,
    );
  }
  return out.join('\n');
}

const doc = { seed, settleS: settleS ? Number(settleS) : null, runs };
const printed = [];
try {
  if (bench !== 'fresh') {
    const db = join(tmp, 'one-history.db');
    const results = Array.from({ length: runs }, (_, i) => reproduce(db, `one history, run ${i + 1} of ${runs}`));
    const f = figures(results);
    printed.push(report("forklab bench:verdicts, one history (each run's verdicts on the machine's value: it and the runs before it)", results, f, true));
    // The same runs as each alone would have judged them (reproduce --no-pool): the verdicts kept beside the pooled ones.
    const alone = results.map((r) => ({ ...r, verdicts: r.verdicts.map((v) => ({ ...v, verdict: v.alone?.verdict ?? v.verdict })) }));
    const fa = figures(alone);
    printed.push(report('the same runs, each judged alone (--no-pool: this run with the drift, not pooled)', alone, fa, true));
    if (prior) printed.push(await priorFigures(db));
    doc.oneHistory = { results, figures: f, alone: fa };
  }
  if (bench !== 'one') {
    const results = Array.from({ length: runs }, (_, i) => reproduce(join(tmp, `fresh-${i + 1}.db`), `fresh history, run ${i + 1} of ${runs}`));
    const f = figures(results);
    printed.push(report('forklab bench:verdicts, fresh histories (the stated prior alone)', results, f, false));
    doc.freshHistories = { results, figures: f };
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
process.stdout.write(`${printed.join('\n\n')}\n`);
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(doc, null, 1));
