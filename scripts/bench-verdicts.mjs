#!/usr/bin/env node
// npm run bench:verdicts — how stable forklab's verdicts are on this machine: two consecutive
// `forklab reproduce --quick` runs (same seed, a fresh temporary history), then the agreement of their verdicts.
// Goals (docs/reproduce.md): no claim flips between holds and differs; at least 95 % of the claims get the same
// verdict; a claim that moves with the machine's noise says inconclusive rather than alternating. Prints the
// figures; never a test (timings on a shared machine swing).
//
// Options: --runs N (default 2)  --seed N (default 1)  --only 000,002 (those articles: for trying a preset; the
// goal is over all of them)  --settle SECONDS (each run is `reproduce --quick --settle SECONDS`)  --json FILE (every
// run's verdicts and the comparison)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { opt, repo } from './bench-args.mjs';

const runs = Number(opt('runs', '2'));
const seed = opt('seed', '1');
const jsonOut = opt('json', undefined);
const only = opt('only', undefined);
const settleS = opt('settle', undefined);
if (!Number.isInteger(runs) || runs < 2) {
  console.error('bench:verdicts: --runs must be an integer ≥ 2');
  process.exit(2);
}
if (settleS !== undefined && !(Number(settleS) > 0)) {
  console.error('bench:verdicts: --settle needs a budget in seconds above 0');
  process.exit(2);
}

const tmp = mkdtempSync(join(tmpdir(), 'forklab-bench-verdicts-'));
const results = [];
try {
  for (let r = 1; r <= runs; r++) {
    const file = join(tmp, `run${r}.json`);
    const t0 = Date.now();
    process.stderr.write(`bench:verdicts: reproduce --quick${settleS ? ` --settle ${settleS}` : ''}, run ${r} of ${runs} …\n`);
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
        join(tmp, 'history.db'),
        '--no-color',
      ],
      {
        cwd: repo,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
        timeout: 20 * 60 * 1000,
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    if (p.error) throw p.error;
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    results.push({ exit: p.status, seconds: (Date.now() - t0) / 1000, verdicts: doc.verdicts });
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

const ids = results[0].verdicts.map((v) => v.claimId);
const label = (v) => v.verdict;
const rows = ids.map((id) => ({ id, verdicts: results.map((res) => label(res.verdicts.find((v) => v.claimId === id))) }));
const same = rows.filter((r) => r.verdicts.every((v) => v === r.verdicts[0]));
const flips = rows.filter((r) => r.verdicts.includes('holds') && r.verdicts.includes('differs'));
const moved = rows.filter((r) => !same.includes(r));
const count = (res, v) => res.verdicts.filter((x) => x.verdict === v).length;

const out = [];
out.push(`forklab bench:verdicts — ${runs} consecutive reproduce --quick${settleS ? ` --settle ${settleS}` : ''} runs, seed ${seed}${only ? `, articles ${only} only` : ''}`);
for (const [i, res] of results.entries())
  out.push(
    `  run ${i + 1}: ${res.seconds.toFixed(0)} s, exit ${res.exit}; ${count(res, 'holds')} hold, ${count(res, 'differs')} differ, ${count(res, 'inconclusive')} inconclusive, ${count(res, 'not-measurable')} not measurable`,
  );
out.push(`same verdict in every run: ${same.length} of ${rows.length} claims (${((same.length / rows.length) * 100).toFixed(1)} %; goal ≥ 95 % on a quiet machine)`);
// the goal is about two consecutive runs: each pair's agreement
const pairs = results.slice(1).map((res, i) => {
  const agree = ids.filter((id) => label(res.verdicts.find((v) => v.claimId === id)) === label(results[i].verdicts.find((v) => v.claimId === id))).length;
  return `runs ${i + 1} and ${i + 2}: ${agree} of ${ids.length} (${((agree / ids.length) * 100).toFixed(1)} %)`;
});
out.push(`consecutive runs agree on: ${pairs.join('; ')}`);
out.push(`flips between holds and differs: ${flips.length} (goal 0)${flips.length ? `: ${flips.map((r) => r.id).join(', ')}` : ''}`);
for (const r of moved) out.push(`  moved: ${r.id}: ${r.verdicts.join(' → ')}`);
process.stdout.write(`${out.join('\n')}\n`);
if (jsonOut)
  writeFileSync(
    jsonOut,
    JSON.stringify(
      { seed, settleS: settleS ? Number(settleS) : null, results, same: same.map((r) => r.id), moved: moved.map((r) => r.id), flips: flips.map((r) => r.id) },
      null,
      1,
    ),
  );
