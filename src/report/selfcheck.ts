// What `forklab selfcheck` prints: each pair's figures and ratio with its interval, the worst deviation, the
// witness, and why it did not pass with what to change (src/lab/selfcheck.ts measures the pairs,
// src/claims/selfcheck.ts judges them).
import { renderTable } from '../text/table.js';
import { fmtUs } from '../text/format.js';
import { formatWitness, type NoiseWitness } from '../env/witness.js';
import { SUITES } from '../experiments/index.js';
import { BLOCK, TOLERANCE, pairResult, type Cell, type PairResult, type PairVerdict, type SelfcheckParams } from '../claims/selfcheck.js';

const pct = (f: number) => `${(f * 100).toFixed(0)} %`;

/** Why it did not pass, and what to change: from the pairs outside or undecided, the rounds' swing and the witness. */
function selfcheckAdvice(results: readonly { cell: Cell; r: PairResult }[], failed: readonly Cell[], witness: NoiseWitness | null, p: SelfcheckParams): string[] {
  const lines: string[] = [];
  for (const c of failed) lines.push(`${c.pair.label}: ${c.failures[0]}`);
  const names = (v: PairVerdict) =>
    results
      .filter((x) => x.r.verdict === v)
      .map((x) => x.cell.pair.label)
      .join(', ');
  const busy = witness?.contention.length ? `, while the machine was busy (${witness.contention.join('; ')})` : '';
  if (names('out')) {
    lines.push(
      `not passed: ${names('out')}: the whole 95 % interval of forklab ÷ loop lies outside ±${TOLERANCE * 100} %${busy}. ` +
        (busy
          ? `Rerun when \`forklab doctor\` shows no load to look at; if it stays, report it with the output above and \`forklab doctor --json\`.`
          : `forklab's harness changes this figure: report it with the output above and \`forklab doctor --json\`.`),
    );
  }
  const undecided = results.filter((x) => x.r.verdict === 'undecided');
  if (undecided.length) {
    const swing = Math.max(...undecided.map((x) => x.r.roundSwing));
    const pin = p.pinCpu === null ? ', or with --pin CPU' : '';
    lines.push(
      `undecided: ${names('undecided')}: the interval reaches past ±${TOLERANCE * 100} %${busy}. Fresh processes of the same side differ by up to ${pct(swing)} ` +
        `here (the machine's swing, which both harnesses see), too much to decide ±${TOLERANCE * 100} % from ${p.rounds} rounds. ` +
        `Rerun with --rounds ${p.rounds * 4} (the interval narrows about as 1/√rounds), when \`forklab doctor\` shows nothing to look at${pin}.`,
    );
  }
  return lines;
}

export function renderSelfcheck(cells: readonly Cell[], p: SelfcheckParams, witness: NoiseWitness | null): { text: string; pass: boolean; worst: number } {
  let worst = 0;
  const results: { cell: Cell; r: PairResult }[] = [];
  const failed: Cell[] = [];
  const mark: Record<PairVerdict, string> = { ok: 'ok', out: 'OUT', undecided: '?' };
  const rows = cells.map((c) => {
    const r = pairResult(c);
    if (r === null) {
      failed.push(c);
      return [c.pair.label, '—', '—', '—', 'no data'];
    }
    results.push({ cell: c, r });
    worst = Math.max(worst, Math.abs(r.ratio - 1));
    return [c.pair.label, fmtUs(r.probeNs), fmtUs(r.loopNs), `${r.ratio.toFixed(3)} [${r.low.toFixed(3)}–${r.high.toFixed(3)}]`, mark[r.verdict]];
  });
  const pass = failed.length === 0 && cells.length > 0 && results.every((x) => x.r.verdict === 'ok');
  const text = [
    `forklab selfcheck: ${p.iterations} calls × ${p.rounds} rounds per side, fresh processes, interleaved; each side's figure is the median of its ${BLOCK}-call blocks' means per call`,
    renderTable(['pair', 'forklab µs', 'C loop µs', 'ratio [95 % CI]', `±${TOLERANCE * 100} %`], rows, { leftAlign: [0] }),
    '',
    `worst deviation: ${(worst * 100).toFixed(1)} % (ok: the whole interval within ±${TOLERANCE * 100} %; OUT: entirely outside; ?: across an edge)`,
    `witness: ${witness ? formatWitness(witness) : 'not recorded'}`,
    ...(p.suites.length < SUITES.length ? [`not checked: ${SUITES.filter((s) => !p.suites.includes(s)).join(', ')} (--suites)`] : []),
    ...selfcheckAdvice(results, failed, witness, p),
    pass ? 'passed' : '',
  ].filter((l) => l !== '');
  return { text: `${text.join('\n')}\n`, pass, worst };
}
