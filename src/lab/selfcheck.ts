// The life of `forklab selfcheck` (npm run bench:fidelity): does the harness distort the figure? Runs the articles'
// own method — a minimal stand-alone C loop, mean per call — beside forklab's probe in the same conditions,
// interleaved, and judges forklab's figure ÷ the loop's for each pair. Checked up front like an experiment
// (memory, every --thp value asked for); src/claims/selfcheck.ts judges the pairs, src/report/selfcheck.ts says why
// when one does not pass.
import { runProbe, describeFailure } from '../runner/probe.js';
import { describeOrigin, locateNative, requireNative, type NativePaths } from '../runner/paths.js';
import { killAllGroups } from '../runner/processes.js';
import { fixedPlan } from '../runner/plans.js';
import { runCommand } from '../runner/command.js';
import { interleave } from '../runner/schedule.js';
import { readMemoryBudget } from '../env/memory.js';
import { addProbeUsage, emptyUsageTotals, witnessOfLoad, type NoiseWitness, type ProbeUsageTotals } from '../env/witness.js';
import { sampleLoad } from '../env/machine.js';
import { HEADROOM_BYTES, requireMemory } from '../experiments/shared/preflight.js';
import { findSweep } from '../experiments/index.js';
import { BLOCK, blockMeans, type Cell, type Pair, type SelfcheckParams } from '../claims/selfcheck.js';

/** Untimed launches before the timed ones, the same on both sides. */
const WARMUP = 5;
const MIB = 2 ** 20;

/** The memory preflight every experiment makes: the largest region, THP alignment and 64 MB headroom must fit. */
export function preflightSelfcheck(p: SelfcheckParams, fitBytes: number | null = readMemoryBudget().fitBytes): void {
  const sizes = selfcheckPairs(p).map((x) => x.memoryMb);
  if (sizes.length === 0) return;
  const biggest = Math.max(...sizes);
  requireMemory(
    '--rss',
    biggest * MIB + 2 * MIB + HEADROOM_BYTES,
    (mb) => `${biggest} MB does not fit: this machine can give about ${mb} MB more, and forklab keeps 64 MB of headroom. Use a smaller --rss.`,
    fitBytes,
  );
}

/** Every pair of the suites chosen, suite by suite in the order --suites names them. */
export function selfcheckPairs(p: SelfcheckParams): Pair[] {
  return p.suites.flatMap((name) => (findSweep(name)?.selfcheck?.(p) ?? []).map((pair) => ({ ...pair, suite: name })));
}

async function runSide(side: 'probe' | 'loop', c: Cell, p: SelfcheckParams, native: NativePaths, signal: AbortSignal, usage: ProbeUsageTotals): Promise<void> {
  const calls = c.pair.calls ? c.pair.calls(p.iterations) : p.iterations;
  if (side === 'probe') {
    const job = c.pair.probe(native);
    const args = p.pinCpu === null ? job.args : { ...job.args, cpu: p.pinCpu };
    const r = await runProbe({ probePath: native.probe, caseName: job.caseName, args, plan: fixedPlan(WARMUP, calls), timeoutMs: 120_000 + c.pair.regionMb * 100, signal });
    addProbeUsage(usage, r.usage, r.durationMs);
    const s = r.series.find((x) => x.series === job.series);
    const blocks = s ? (job.blocks ? job.blocks(s, r.info) : blockMeans(s.samplesNs, BLOCK)) : null;
    if (r.state === 'failed' || !blocks?.length) c.failures.push(`probe: ${r.state === 'failed' ? describeFailure(r.reason) : `no ${job.series} figure`}`);
    else c.probeRoundsNs.push(blocks);
    return;
  }
  const argv = [...c.pair.loop(native, calls), String(WARMUP), String(BLOCK)];
  const file = p.pinCpu === null ? native.loop : 'taskset';
  const args = p.pinCpu === null ? argv : ['-c', String(p.pinCpu), native.loop, ...argv];
  const r = await runCommand(file, args, { timeoutMs: 120_000 + c.pair.regionMb * 100, signal });
  if (r.state === 'failed') c.failures.push(`loop: ${r.why}`);
  else {
    const out = JSON.parse(r.stdout) as { meanNs: number; blockMeansNs?: number[] };
    c.loopRoundsNs.push(out.blockMeansNs?.length ? out.blockMeansNs : [out.meanNs]);
  }
}

/** The probe and its loop this process would run, and where they come from in words; a ForklabError when they are not built. */
export function selfcheckProbe(): { native: NativePaths; origin: string } {
  const located = locateNative();
  return { native: requireNative(located.paths), origin: describeOrigin(located.origin) };
}

/** The pairs measured, and the noise witness of the load while they ran. */
export interface SelfcheckOutcome {
  cells: Cell[];
  witness: NoiseWitness | null;
}

/** Runs every pair (runCells), every probe killed at the end whatever happens, with the machine's load before and after. */
export async function runSelfcheck(p: SelfcheckParams, native: NativePaths, signal: AbortSignal): Promise<SelfcheckOutcome> {
  const usage = emptyUsageTotals();
  const before = sampleLoad();
  const t0 = Date.now();
  let cells: Cell[];
  try {
    cells = await runCells(p, native, signal, usage);
  } finally {
    killAllGroups();
  }
  return { cells, witness: witnessOfLoad({ before, after: { ...sampleLoad(), probes: usage } }, Date.now() - t0, p.pinCpu) };
}

/** Rounds × pairs in a seeded interleaved order; in each item probe and loop run back to back, alternating which goes first. */
async function runCells(p: SelfcheckParams, native: NativePaths, signal: AbortSignal, usage: ProbeUsageTotals): Promise<Cell[]> {
  const cells: Cell[] = selfcheckPairs(p).map((pair) => ({ pair, probeRoundsNs: [], loopRoundsNs: [], failures: [] }));
  const order = interleave(cells, p.rounds, 7);
  for (const [i, { config: c, repeat }] of order.entries()) {
    if (signal.aborted) break;
    if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2Kselfcheck ${i + 1}/${order.length} ${c.pair.label}`);
    const sides = (i + repeat) % 2 === 0 ? (['probe', 'loop'] as const) : (['loop', 'probe'] as const);
    for (const side of sides) if (!signal.aborted) await runSide(side, c, p, native, signal, usage);
  }
  if (process.stderr.isTTY) process.stderr.write('\r\x1b[2K');
  return cells;
}
