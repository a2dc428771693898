// `forklab selfcheck` (npm run bench:fidelity): does the harness distort the figure? Runs the articles'
// own method — a minimal stand-alone C loop, mean per call — beside forklab's probe in the same conditions,
// interleaved, and prints forklab's figure ÷ the loop's for each pair. Checked up front like an experiment
// (memory, --pin among the allowed CPUs, every --thp value asked for); says why when it does not pass.
import { Option, type Command } from 'commander';
import { defaultText, pinOption } from './options.js';
import { describeOrigin, locateNative, requireNative, type NativePaths } from '../runner/paths.js';
import { runProbe, describeFailure } from '../runner/probe.js';
import { fixedPlan } from '../runner/plans.js';
import { runCommand } from '../runner/command.js';
import { interleave } from '../runner/schedule.js';
import { killAllGroups } from '../runner/processes.js';
import { mean, median } from '../stats/descriptive.js';
import { ratioOfMedians } from '../stats/pool.js';
import { readMemoryBudget } from '../env/memory.js';
import { HEADROOM_BYTES, requireMemory } from '../experiments/preflight.js';
import { sampleLoad } from '../env/machine.js';
import { addProbeUsage, emptyUsageTotals, formatWitness, witnessOfLoad, type NoiseWitness, type ProbeUsageTotals } from '../env/witness.js';
import { parseChoiceList, parseCpu, parseInteger, parseIntegerList } from '../experiments/parse.js';
import { EXPERIMENTS, findExperiment } from '../experiments/index.js';
import type { SelfcheckPair } from '../experiments/selfcheck.js';
import { METHODS, THP_MODES, type Method, type ThpMode } from '../experiments/spawn.js';
import { renderTable } from '../text/table.js';
import { fmtUs } from '../text/format.js';
import { cpusAllowed, onInterrupt } from './run.js';
import { doctorSummaryLine } from './doctor.js';

export const TOLERANCE = 0.1;
/** Untimed launches before the timed ones, the same on both sides. */
const WARMUP = 5;
/**
 * Calls per block. Each side's figure is the median of its blocks' means per call over all rounds: still a mean per
 * call, as the articles measure, but a VM preemption or a page-fault storm spoils one block instead of a round.
 */
export const BLOCK = 10;
/** Seed of the intervals (the same rounds give the same verdict). */
const SEED = 1;

/** Means of consecutive blocks of `block` samples (a trailing partial block is left out unless it is the only one). */
export function blockMeans(samples: readonly number[], block: number): number[] {
  const out: number[] = [];
  for (let i = 0; i + block <= samples.length; i += block) out.push(mean(samples.slice(i, i + block)));
  return out.length ? out : samples.length ? [mean(samples)] : [];
}
/** The experiments with selfcheck pairs, in the registry's order: what --suites chooses from (the first is the default). */
export const SUITES: readonly string[] = EXPERIMENTS.filter((e) => e.selfcheck).map((e) => e.name);
const MIB = 2 ** 20;

export interface SelfcheckParams {
  suites: string[];
  methods: Method[];
  rssMb: number[];
  thp: ThpMode[];
  iterations: number;
  rounds: number;
  pinCpu: number | null;
}

/** One comparison of a suite (an experiment's selfcheck pair, src/experiments/selfcheck.ts). */
export interface Pair extends SelfcheckPair {
  suite: string;
}

export function parseSelfcheck(o: Record<string, string | undefined>, allowed: readonly number[] | null): SelfcheckParams {
  return {
    suites: parseChoiceList('--suites', o.suites === 'all' ? SUITES.join(',') : o.suites!, SUITES),
    methods: parseChoiceList('--methods', o.methods!, METHODS),
    rssMb: parseIntegerList('--rss', o.rss!, 0, 1 << 22),
    thp: parseChoiceList('--thp', o.thp === 'all' ? THP_MODES.join(',') : o.thp!, THP_MODES),
    iterations: parseInteger('--iterations', o.iterations!, 1, 1_000_000),
    rounds: parseInteger('--rounds', o.rounds!, 1, 1000),
    pinCpu: parseCpu('--pin', o.pin, allowed),
  };
}

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
  return p.suites.flatMap((name) => (findExperiment(name)?.selfcheck?.(p) ?? []).map((pair) => ({ ...pair, suite: name })));
}

export interface Cell {
  pair: Pair;
  /** Each round's blocks per side: means per call (per page for cow) in ns, one array per fresh process. */
  probeRoundsNs: number[][];
  loopRoundsNs: number[][];
  failures: string[];
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

/** Rounds × pairs in a seeded interleaved order; in each item probe and loop run back to back, alternating which goes first. */
export async function runSelfcheck(p: SelfcheckParams, native: NativePaths, signal: AbortSignal, usage: ProbeUsageTotals): Promise<Cell[]> {
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

export type PairVerdict = 'ok' | 'out' | 'undecided';

export interface PairResult {
  probeNs: number;
  loopNs: number;
  /** forklab ÷ loop, with its 95 % interval from resampling rounds, then blocks within each round (paired by round). */
  ratio: number;
  low: number;
  high: number;
  /** ok: the whole interval within ±TOLERANCE; out: entirely outside; undecided: across an edge. */
  verdict: PairVerdict;
  /** How far apart the rounds of one side are (max ÷ min of their medians − 1), the larger of the two sides. */
  roundSwing: number;
}

/**
 * Each side's figure is the median of its blocks over every round; the ratio's interval resamples rounds (the
 * probe's and the loop's of one round together: they ran back to back), then blocks, so that swings between fresh
 * processes widen it instead of deciding the verdict by chance.
 */
export function pairResult(c: Cell): PairResult | null {
  if (!c.probeRoundsNs.length || !c.loopRoundsNs.length) return null;
  const probeNs = median(c.probeRoundsNs.flat());
  const loopNs = median(c.loopRoundsNs.flat());
  if (!(loopNs > 0)) return null;
  const ci = ratioOfMedians(c.loopRoundsNs, c.probeRoundsNs, SEED, { paired: true });
  const ratio = probeNs / loopNs;
  const low = ci?.low ?? ratio;
  const high = ci?.high ?? ratio;
  const verdict: PairVerdict = low >= 1 - TOLERANCE && high <= 1 + TOLERANCE ? 'ok' : high < 1 - TOLERANCE || low > 1 + TOLERANCE ? 'out' : 'undecided';
  const swing = (rounds: number[][]) => {
    const m = rounds.filter((r) => r.length).map((r) => median(r));
    return m.length > 1 ? Math.max(...m) / Math.min(...m) - 1 : 0;
  };
  return { probeNs, loopNs, ratio, low, high, verdict, roundSwing: Math.max(swing(c.probeRoundsNs), swing(c.loopRoundsNs)) };
}

const pct = (f: number) => `${(f * 100).toFixed(0)} %`;

/** Why it did not pass, and what to change: from the pairs outside or undecided, the rounds' swing and the witness. */
export function selfcheckAdvice(results: readonly { cell: Cell; r: PairResult }[], failed: readonly Cell[], witness: NoiseWitness | null, p: SelfcheckParams): string[] {
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

export function registerSelfcheck(program: Command): void {
  program
    .command('selfcheck')
    .description("fidelity benchmark: forklab's per-call figure ÷ a bare C loop's, interleaved (must stay within ±10 %)")
    .addOption(new Option('--suites <list>', `what to check: ${SUITES.join(', ')}, or all`).default(SUITES[0], SUITES[0]))
    .addOption(new Option('--methods <list>', `spawn methods: ${METHODS.join(', ')}`).default('fork-exec,vfork-exec,posix-spawn', defaultText('fork-exec,vfork-exec,posix-spawn')))
    .addOption(new Option('--rss <list>', 'spawn: parent RSS sizes in MB').default('0,512', defaultText('0,512', 'MB')))
    .addOption(new Option('--thp <list>', 'spawn: on, off, default (a list), or all').default('off', 'off'))
    .addOption(new Option('--iterations <n>', 'calls per process, both sides').default('200', defaultText('200', 'calls')))
    .addOption(new Option('--rounds <n>', 'interleaved rounds (fresh processes each)').default('5', defaultText('5', 'rounds')))
    .addOption(pinOption())
    .exitOverride()
    .action(async (o: Record<string, string | undefined>) => {
      const p = parseSelfcheck(o, cpusAllowed());
      preflightSelfcheck(p);
      const located = locateNative();
      const native = requireNative(located.paths);
      process.stderr.write(`${await doctorSummaryLine()}\nselfcheck: the probe and its loop: ${describeOrigin(located.origin)}\n`);
      const controller = new AbortController();
      const stopSignals = onInterrupt(controller);
      const usage = emptyUsageTotals();
      const before = sampleLoad();
      const t0 = Date.now();
      let cells: Cell[];
      try {
        cells = await runSelfcheck(p, native, controller.signal, usage);
      } finally {
        stopSignals();
        killAllGroups();
      }
      const witness = witnessOfLoad({ before, after: { ...sampleLoad(), probes: usage } }, Date.now() - t0, p.pinCpu);
      const r = renderSelfcheck(cells, p, witness);
      process.stdout.write(r.text);
      process.exitCode = controller.signal.aborted ? 130 : r.pass ? 0 : 1;
    });
}
