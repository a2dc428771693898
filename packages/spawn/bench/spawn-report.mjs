// bench:spawn's report: the medians over passes per environment, kind and size, the C floor beside them, the
// growth from the smallest to the largest size, and issue 29's targets judged on those figures: forklab within
// 1.3× of the fair floor at the smallest and the largest size (spawn, execFile, spawnSync), flat (largest ÷
// smallest ≤ 1.15) for every function and kind, and never slower than child_process.
import { FLOOR_OF, FUNCTIONS } from './spawn-worker.mjs';

export const TARGETS = { floorRatio: 1.3, flatRatio: 1.15 };

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const f = (x, d = 0) => (x === undefined || x === null || Number.isNaN(x) ? '-' : x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }));

/** The median over passes of each figure of one cell (the passes' own figures kept in `passes`). */
export function combine(passes) {
  const out = { ...passes[0], passes: passes.map((p) => ({ medianUs: p.medianUs, callMedianUs: p.callMedianUs, maxGapMs: p.maxGapMs, rssMb: p.rssMb })) };
  for (const field of ['medianUs', 'callMedianUs', 'maxGapMs']) {
    out[field] = {};
    for (const k of Object.keys(passes[0][field])) out[field][k] = median(passes.map((p) => p[field][k]));
  }
  return out;
}

/** A ratio of two figures of one cell (or of two cells): its value from the medians over passes, and the range
 * of the same ratio pass by pass. */
function ratio(numCell, num, denCell, den) {
  const value = numCell.medianUs[num] / denCell.medianUs[den];
  const xs = numCell.passes.map((p, i) => p.medianUs[num] / denCell.passes[i]?.medianUs[den]).filter((x) => Number.isFinite(x));
  return { value, low: xs.length > 1 ? Math.min(...xs) : null, high: xs.length > 1 ? Math.max(...xs) : null };
}
const fmtRatio = (r) => `${f(r.value, 2)}${r.low !== null ? ` [${f(r.low, 2)}-${f(r.high, 2)}]` : ''}`;

export function printTables(results, o) {
  for (const env of o.envs) {
    const mine = results.filter((r) => r.env.setting === env);
    if (!mine.length) continue;
    const e = mine[0].env;
    console.log(
      `\nenvironment ${env}: ${e.count} variables, ${f(e.bytes)} bytes as the child receives them` +
        (e.floorCount !== e.count || e.floorBytes !== e.bytes
          ? ` (the C floor's: ${e.floorCount}, ${e.floorBytes} bytes: NOT the same)`
          : ' (the C floor gives its children the same)'),
    );
    console.log('kind     MB   function  | child_process µs | forklab µs | cp/forklab | call cp µs | call forklab µs');
    for (const r of mine) {
      const m = r.medianUs;
      for (const fn of FUNCTIONS) {
        const [cp, fl] = [m[`${fn}:child_process`], m[`${fn}:forklab`]];
        const [ccp, cfl] = [r.callMedianUs[`${fn}:child_process`], r.callMedianUs[`${fn}:forklab`]];
        console.log(
          `${r.kind.padEnd(8)} ${String(r.sizeMb).padStart(4)}  ${fn.padEnd(9)} | ${f(cp).padStart(15)} | ${f(fl).padStart(10)} | ${f(cp / fl, 2).padStart(10)} | ${f(ccp).padStart(10)} | ${f(cfl).padStart(15)}`,
        );
      }
      const floors = Object.entries(FLOOR_OF).map(([fn, fl]) => `${fn} ${fmtRatio(ratio(r, `${fn}:forklab`, r, fl))}`);
      console.log(
        `${r.kind.padEnd(8)} ${String(r.sizeMb).padStart(4)}  C floor µs: ignore ${f(m['floor:ignore'])}, pipe ${f(m['floor:pipe'])} (bare posix_spawn, empty env, waitpid: ${f(m['floor:bare'])}); ` +
          `forklab ÷ floor: ${floors.join(', ')}; addon alone ${f(m.addon)} µs ÷ floor ${fmtRatio(ratio(r, 'addon', r, 'floor:ignore'))}; ` +
          `event loop max gap over 100 spawns: cp ${f(r.maxGapMs.child_process, 1)} ms, forklab ${f(r.maxGapMs.forklab, 1)} ms, idle ${f(r.maxGapMs.idle, 1)} ms`,
      );
    }
    for (const kind of o.kinds) {
      const [small, large] = ends(results, env, kind, o);
      if (!small || !large || small === large) continue;
      const parts = FUNCTIONS.map(
        (fn) =>
          `${fn} cp ${fmtRatio(ratio(large, `${fn}:child_process`, small, `${fn}:child_process`))} forklab ${fmtRatio(ratio(large, `${fn}:forklab`, small, `${fn}:forklab`))}`,
      );
      const floor = ['floor:ignore', 'floor:pipe', 'addon'].map((k) => `${k} ${fmtRatio(ratio(large, k, small, k))}`);
      console.log(`${kind}: ${large.sizeMb} MB ÷ ${small.sizeMb} MB: ${parts.join('; ')}; ${floor.join('; ')}`);
    }
  }
}

function ends(results, env, kind, o) {
  const at = (mb) => results.find((r) => r.env.setting === env && r.kind === kind && r.sizeMb === mb);
  return [at(Math.min(...o.sizes)), at(Math.max(...o.sizes))];
}

/** Every target, per environment, kind and size where it applies: { target, env, kind, sizeMb, fn, value, low, high, met }. */
export function verdicts(results, o) {
  const out = [];
  const add = (target, env, kind, sizeMb, fn, r, met) => out.push({ target, env, kind, sizeMb, fn, ...r, met });
  for (const env of o.envs) {
    for (const kind of o.kinds) {
      const [small, large] = ends(results, env, kind, o);
      for (const cell of [...new Set([small, large])].filter(Boolean))
        for (const [fn, fl] of Object.entries(FLOOR_OF)) {
          const r = ratio(cell, `${fn}:forklab`, cell, fl);
          add('floor', env, kind, cell.sizeMb, fn, r, r.value <= TARGETS.floorRatio);
        }
      if (small && large && small !== large)
        for (const fn of FUNCTIONS) {
          const r = ratio(large, `${fn}:forklab`, small, `${fn}:forklab`);
          add('flat', env, kind, large.sizeMb, fn, r, r.value <= TARGETS.flatRatio);
        }
      for (const cell of results.filter((r) => r.env.setting === env && r.kind === kind))
        for (const fn of FUNCTIONS) {
          const r = ratio(cell, `${fn}:forklab`, cell, `${fn}:child_process`);
          add('not-slower', env, kind, cell.sizeMb, fn, r, r.value <= 1);
        }
    }
  }
  return out;
}

const TITLES = {
  floor: `forklab ÷ the C floor ≤ ${TARGETS.floorRatio} at the smallest and the largest size (spawn, spawnSync: floor 'ignore'; execFile: floor 'pipe')`,
  flat: `flat: forklab at the largest size ÷ at the smallest ≤ ${TARGETS.flatRatio}, every function`,
  'not-slower': 'never slower than child_process: forklab ÷ child_process ≤ 1, every function and size',
};

export function printVerdicts(vs) {
  console.log('\ntargets (issue 29), from the medians over passes [the passes’ range]:');
  for (const target of Object.keys(TITLES)) {
    const mine = vs.filter((v) => v.target === target);
    if (!mine.length) continue;
    const missed = mine.filter((v) => !v.met);
    console.log(`- ${TITLES[target]}: ${missed.length ? `NOT MET in ${missed.length} of ${mine.length}` : `met in all ${mine.length}`}`);
    for (const v of missed) console.log(`    not met: ${v.env} ${v.kind} ${v.sizeMb} MB ${v.fn}: ${fmtRatio(v)}`);
    if (target !== 'not-slower') {
      const worst = [...mine].sort((a, b) => b.value - a.value)[0];
      console.log(`    highest: ${worst.env} ${worst.kind} ${worst.sizeMb} MB ${worst.fn}: ${fmtRatio(worst)}`);
    }
  }
}
