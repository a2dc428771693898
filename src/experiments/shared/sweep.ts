// The loop every experiment shares: configurations × repeats in interleaved order, one fresh probe each,
// progress, cancellation, failures noted and kept, measurements collected.
import { runProbe, type ProbeRequest, type ProbeResult } from '../../runner/probe.js';
import { interleave } from '../../runner/schedule.js';
import { rankCiHalfWidthFraction } from '../../runner/plans.js';
import type { Measurement, RepeatsStop, RunContext } from '../contract/types.js';

/** One probe to start: a ProbeRequest without what the sweep adds itself (the probe's path and the run's signal). */
export type ProbeJob = Omit<ProbeRequest, 'probePath' | 'signal'>;

export interface SweepOptions<C> {
  configs: readonly C[];
  repeats: number;
  ctx: RunContext;
  /** Short label for progress and failure notes, e.g. "fork-exec rss=512 MB thp=on". */
  label(config: C): string;
  /** The probe to start for one configuration (the CPU pin is added here). */
  job(config: C, repeat: number): ProbeJob;
  /** From the probe's result to measurements (failed ones included). */
  measure(config: C, result: ProbeResult, repeat: number, job: ProbeJob): Measurement[];
  /** Stop early or run more repeats as the figures' intervals demand; absent: exactly `repeats`. */
  adaptive?: AdaptiveRepeats;
}

/**
 * Adaptive repeats: after `minRepeats` rounds, stop as soon as every figure's 95 % interval (each series of
 * each configuration, repeats pooled) is within ±targetCiFraction of its median; otherwise run more rounds of
 * the configurations that are not, up to maxRepeats and while the extra time stays within budgetMs.
 */
export interface AdaptiveRepeats {
  minRepeats: number;
  maxRepeats: number;
  targetCiFraction: number;
  /** Wall time allowed for the rounds beyond `repeats`, in ms. */
  budgetMs: number;
}

export interface SweepResult {
  measurements: Measurement[];
  /** False when cancelled or when any probe failed. */
  complete: boolean;
  repeatsStop: RepeatsStop;
}

/** Half-width ÷ median of the widest series among these measurements (ok ones, repeats pooled); null when too few samples. */
export function widestCiFraction(ms: readonly Measurement[]): number | null {
  const bySeries = new Map<string, number[]>();
  for (const m of ms) if (m.state === 'ok') bySeries.set(m.series, [...(bySeries.get(m.series) ?? []), ...m.samplesNs]);
  let worst: number | null = null;
  for (const samples of bySeries.values()) {
    if (samples.length < 10) continue;
    const f = rankCiHalfWidthFraction(samples);
    if (Number.isFinite(f)) worst = Math.max(worst ?? 0, f);
  }
  return worst;
}

export async function sweep<C>(o: SweepOptions<C>): Promise<SweepResult> {
  const a = o.adaptive;
  const planned = interleave(o.configs, o.repeats, o.ctx.seed);
  const byConfig = new Map<C, Measurement[]>(o.configs.map((c) => [c, []]));
  const measurements: Measurement[] = [];
  let complete = true;
  let step = 0;
  const total = () => (a ? Math.max(planned.length, step) : planned.length);
  const runOne = async (config: C, repeat: number): Promise<boolean> => {
    if (o.ctx.signal.aborted) return false;
    const label = o.label(config);
    o.ctx.progress.step(`${label} #${repeat}`, step, total());
    step++;
    const job = o.job(config, repeat);
    // The C probe pins itself (cpu=N); a driver is started pinned by taskset.
    const pin = o.ctx.pinCpu;
    const args = pin === null || job.command ? job.args : { ...job.args, cpu: pin };
    const command = job.command && pin !== null ? ['taskset', '--cpu-list', String(pin), ...job.command] : job.command;
    const result = await runProbe({
      probePath: o.ctx.native.probe,
      ...(command ? { command } : {}),
      caseName: job.caseName,
      args,
      ...(job.restArgs ? { restArgs: job.restArgs } : {}),
      plan: job.plan,
      timeoutMs: job.timeoutMs,
      signal: o.ctx.signal,
    });
    o.ctx.probeFinished?.(result.usage, result.durationMs);
    if (result.state === 'failed' && result.reason.kind === 'cancelled') return false;
    const got = o.measure(config, result, repeat, job);
    o.ctx.record?.(got);
    const failed = got.find((m) => m.state === 'failed');
    if (failed) o.ctx.progress.note(`${label} #${repeat}: ${failed.failure}`);
    measurements.push(...got);
    byConfig.get(config)!.push(...got);
    return true;
  };
  const wide = (c: C) => (widestCiFraction(byConfig.get(c)!) ?? 0) > a!.targetCiFraction;
  const widest = () =>
    o.configs.reduce<number | null>((w, c) => {
      const f = widestCiFraction(byConfig.get(c)!);
      return f === null ? w : Math.max(w ?? 0, f);
    }, null);
  const stop = (reason: RepeatsStop['reason'], rounds: number): SweepResult => {
    if (reason === 'cancelled' || measurements.some((m) => m.state === 'failed')) complete = false;
    return { measurements, complete, repeatsStop: { reason, rounds, widestCiFraction: widest() } };
  };
  // The planned rounds (stopping early once every figure is tight enough, after minRepeats).
  for (const { config, repeat } of planned) {
    const lastOfRound = planned.filter((x) => x.repeat === repeat).at(-1)!.config === config;
    if (!(await runOne(config, repeat))) return stop('cancelled', repeat);
    if (a && lastOfRound && repeat >= a.minRepeats && repeat < o.repeats && !o.configs.some(wide)) return stop('ci-reached', repeat);
  }
  if (!a) return stop('planned', o.repeats);
  // Extra rounds for the configurations still too wide.
  const t0 = performance.now();
  for (let round = o.repeats + 1; round <= a.maxRepeats; round++) {
    const pending = o.configs.filter(wide);
    if (pending.length === 0) return stop('ci-reached', round - 1);
    if (performance.now() - t0 >= a.budgetMs) return stop('budget', round - 1);
    for (const { config } of interleave(pending, 1, o.ctx.seed + round)) if (!(await runOne(config, round))) return stop('cancelled', round);
  }
  return stop(o.configs.some(wide) ? 'max-repeats' : 'ci-reached', Math.max(a.maxRepeats, o.repeats));
}
