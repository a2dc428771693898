// Two short measurements a trace makes on the spot, with the C probe: the tracer's own cost per traced creation
// (the same fork+exec loop under strace, with the trace's own flags, and without), and, when the history has no
// `spawn` run of this machine, fork+exec and posix_spawn against the parent's RSS for the cost model.
import { runProbe, describeFailure, type ProbeResult } from '../../runner/probe.js';
import { fixedPlan } from '../../runner/plans.js';
import type { NativePaths } from '../../runner/paths.js';
import { median } from '../../stats/descriptive.js';
import { readMemoryBudget } from '../../env/memory.js';
import { fitModel, type ModelPoint, type SpawnModel } from './cost.js';
import { straceArgs, type Tracer } from './observe.js';

export type Overhead =
  | {
      state: 'measured';
      /** Median ns per fork+exec+wait of a small parent under the tracer and without it, and the difference. */
      tracedNs: number;
      plainNs: number;
      perCreationNs: number;
      iterations: number;
      rounds: number;
    }
  | { state: 'not-measured'; reason: string };

const PROBE_LIMIT_MS = 60_000;

function medianOf(r: ProbeResult, series: string): number | null {
  if (r.state !== 'ok') return null;
  const s = r.series.find((x) => x.series === series);
  return s?.samplesNs.length ? median(s.samplesNs) : null;
}

/** The tracer's cost per traced creation: fork+exec of a `return 0` program, traced and not, rounds interleaved. */
export async function measureOverhead(o: {
  native: NativePaths;
  tracer: Tracer;
  /** The mode the trace ran in: strace takes other flags when it attaches. */
  attach: boolean;
  /** The trace ran with strace -k (native stacks). */
  stacks: boolean;
  iterations: number;
  rounds: number;
  signal?: AbortSignal;
}): Promise<Overhead> {
  if (o.iterations === 0) return { state: 'not-measured', reason: '--overhead-iterations 0' };
  const traced: number[] = [];
  const plain: number[] = [];
  const args = { method: 'fork-exec', 'rss-mb': 0, target: o.native.targetStatic };
  // strace's own arguments up to the command; in attach mode its flags without --seccomp-bpf.
  const flags = straceArgs('/dev/null', { command: [] }, { stacks: o.stacks }).slice(0, -1);
  const command = [o.tracer.path, ...(o.attach ? flags.filter((f) => f !== '--seccomp-bpf') : flags), o.native.probe];
  for (let r = 0; r < o.rounds; r++)
    for (const underTracer of r % 2 === 0 ? [false, true] : [true, false]) {
      const res = await runProbe({
        probePath: o.native.probe,
        ...(underTracer ? { command } : {}),
        caseName: 'spawn',
        args,
        plan: fixedPlan(5, o.iterations),
        timeoutMs: PROBE_LIMIT_MS,
        ...(o.signal ? { signal: o.signal } : {}),
      });
      const m = medianOf(res, 'fork-exec');
      if (m === null) return { state: 'not-measured', reason: res.state === 'failed' ? describeFailure(res.reason) : 'the probe reported no samples' };
      (underTracer ? traced : plain).push(m);
    }
  const tracedNs = median(traced);
  const plainNs = median(plain);
  return { state: 'measured', tracedNs, plainNs, perCreationNs: Math.max(0, tracedNs - plainNs), iterations: o.iterations, rounds: o.rounds };
}

/** The RSS sizes a model made on the spot measures: 0, the largest forking process's RSS (within memory), and half of it. */
export function modelSizesMb(largestRssMb: number | null): number[] {
  const want = Math.min(1024, Math.max(64, Math.ceil((largestRssMb ?? 0) / 64) * 64));
  const fit = readMemoryBudget().fitBytes;
  const room = fit === null ? want : Math.floor(fit / (1024 * 1024) / 2);
  const top = Math.max(16, Math.min(want, room));
  // A middle size too when the top is large: three points keep one noisy probe from tilting the line.
  return top >= 128 ? [0, Math.round(top / 2), top] : [0, top];
}

/** fork+exec and posix_spawn from a parent of each size (THP as the system has it): this machine's model. */
export async function measureModel(o: { native: NativePaths; sizesMb: number[]; iterations: number; signal?: AbortSignal }): Promise<SpawnModel | string> {
  const points: ModelPoint[] = [];
  for (const rssMb of o.sizesMb)
    for (const method of ['fork-exec', 'posix-spawn'] as const) {
      const res = await runProbe({
        probePath: o.native.probe,
        caseName: 'spawn',
        args: { method, 'rss-mb': rssMb, thp: 'default', target: o.native.targetStatic },
        plan: fixedPlan(3, o.iterations),
        timeoutMs: PROBE_LIMIT_MS,
        ...(o.signal ? { signal: o.signal } : {}),
      });
      const m = medianOf(res, method);
      if (m === null) return res.state === 'failed' ? describeFailure(res.reason) : 'the probe reported no samples';
      points.push({ method, rssMb, medianNs: m });
    }
  return fitModel({ kind: 'measured' }, 'default', points) ?? 'too few sizes measured';
}
