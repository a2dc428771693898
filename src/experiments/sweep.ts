// The loop every experiment shares: configurations × repeats in interleaved order, one fresh probe each,
// progress, cancellation, failures noted and kept, measurements collected.
import { runProbe, type ProbeResult, type SamplingPlan } from '../runner/probe.js';
import { interleave } from '../runner/schedule.js';
import type { Measurement, RunContext } from './types.js';

export interface ProbeJob {
  /** A driver that speaks the probe protocol instead of the C probe (see ProbeRequest.command). */
  command?: readonly string[];
  caseName: string;
  args: Record<string, string | number>;
  plan: SamplingPlan;
  timeoutMs: number;
}

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
}

export interface SweepResult {
  measurements: Measurement[];
  /** False when cancelled or when any probe failed. */
  complete: boolean;
}

export async function sweep<C>(o: SweepOptions<C>): Promise<SweepResult> {
  const order = interleave(o.configs, o.repeats, o.ctx.seed);
  const measurements: Measurement[] = [];
  let complete = true;
  for (const [i, { config, repeat }] of order.entries()) {
    if (o.ctx.signal.aborted) {
      complete = false;
      break;
    }
    const label = o.label(config);
    o.ctx.progress.step(`${label} #${repeat}`, i, order.length);
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
      plan: job.plan,
      timeoutMs: job.timeoutMs,
      signal: o.ctx.signal,
    });
    o.ctx.probeFinished?.(result.usage, result.durationMs);
    if (result.state === 'failed' && result.reason.kind === 'cancelled') {
      complete = false;
      break;
    }
    const got = o.measure(config, result, repeat, job);
    o.ctx.record?.(got);
    const failed = got.find((m) => m.state === 'failed');
    if (failed) o.ctx.progress.note(`${label} #${repeat}: ${failed.failure}`);
    measurements.push(...got);
  }
  if (measurements.some((m) => m.state === 'failed')) complete = false;
  return { measurements, complete };
}
