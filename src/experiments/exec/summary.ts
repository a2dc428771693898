// exec's summary (article 004): each series' figures, execve alone (each exec series minus fork-exit) with its
// paired interval, dynamic ÷ static, the file sizes and ld.so's own accounting; with --target, the user's program
// in the dynamic target's place.
import { summarizeLdStatistics, type LdStatistics, type LdSummary } from './ldstats.js';
import { pairedExecBootstrap, pairedSamples } from './paired-bootstrap.js';
import { summarizeSeries, type SeriesSummary } from '../shared/series.js';
import type { Measurement } from '../contract/types.js';

export const EXEC_SERIES = ['fork-exit', 'exec-dynamic', 'exec-static'] as const;
export type ExecSeries = (typeof EXEC_SERIES)[number];

/** execve alone: an exec series minus fork-exit. */
export interface ExecveAlone {
  /** median(exec) − median(fork-exit). */
  medianNs: number;
  /** Percentile interval of that difference from a paired bootstrap over probe processes, then iterations. */
  ciLowNs: number;
  ciHighNs: number;
  /** min(exec) − min(fork-exit). */
  minNs: number;
}

export interface ExecSummary {
  series: Record<ExecSeries, SeriesSummary | null>;
  execveAlone: { dynamic: ExecveAlone | null; static: ExecveAlone | null };
  /** execve alone, dynamic ÷ static; interval from the same paired bootstrap (null if a resample had static ≤ 0). */
  dynamicOverStatic: { ratio: number; low: number | null; high: number | null; confidence: number } | null;
  fileBytes: { dynamic: number; static: number };
  ld: LdSummary | null;
  ldFailures: string[];
  /** --target: the user's program in the dynamic target's place (series exec-target); absent for the built-in targets. */
  target?: ExecTargetSummary;
  /** The loader's cycles per µs when it is the x86 TSC and /proc/cpuinfo gives its rate; else null. */
  cyclesPerUs: number | null;
  /** One plain system call (getppid), timed in the same iterations: the yardstick of "hundreds of system calls". */
  syscall: SeriesSummary | null;
}

export interface ExecTargetSummary {
  path: string;
  args: string[];
  fileBytes: number;
  /** fork + execve + run to exit + waitpid of the program. */
  series: SeriesSummary | null;
  /** That minus fork-exit: what execve and the program's own run add to a fork. */
  execveAlone: ExecveAlone | null;
  /** The program's execve alone ÷ the static `return 0` program's. */
  overStatic: ExecSummary['dynamicOverStatic'];
}

/** execve alone of `middle` and of the static target (each minus fork-exit), and middle ÷ static, with paired intervals. */
function execveAloneOf(ms: readonly Measurement[], middle: string, base: SeriesSummary | null, mid: SeriesSummary | null, stat: SeriesSummary | null, seed: number) {
  const paired = pairedSamples(ms, middle);
  if (paired[0].length === 0 || !base || !mid || !stat) return null;
  const b = pairedExecBootstrap(paired[0], paired[1], paired[2], seed);
  const sAlone = stat.medianNs - base.medianNs;
  return {
    middle: { medianNs: mid.medianNs - base.medianNs, ciLowNs: b.dynamic[0], ciHighNs: b.dynamic[1], minNs: mid.minNs - base.minNs } as ExecveAlone,
    static: { medianNs: sAlone, ciLowNs: b.static[0], ciHighNs: b.static[1], minNs: stat.minNs - base.minNs } as ExecveAlone,
    ratio: sAlone > 0 ? { ratio: (mid.medianNs - base.medianNs) / sAlone, low: b.ratio?.[0] ?? null, high: b.ratio?.[1] ?? null, confidence: b.confidence } : null,
  };
}

export function summarizeExec(
  ms: readonly Measurement[],
  seed: number,
  fileBytes: { dynamic: number; static: number },
  ldRuns: readonly LdStatistics[],
  ldFailures: string[],
  cyclesPerUs: number | null,
  userTarget?: { path: string; args: string[]; fileBytes: number },
): ExecSummary {
  const series = Object.fromEntries(EXEC_SERIES.map((s) => [s, summarizeSeries(ms, s, seed)])) as Record<ExecSeries, SeriesSummary | null>;
  const base = series['fork-exit'];
  const stat = series['exec-static'];
  const dyn = execveAloneOf(ms, 'exec-dynamic', base, series['exec-dynamic'], stat, seed);
  const summary: ExecSummary = {
    series,
    execveAlone: { dynamic: dyn?.middle ?? null, static: dyn?.static ?? null },
    dynamicOverStatic: dyn?.ratio ?? null,
    fileBytes,
    ld: summarizeLdStatistics(ldRuns),
    ldFailures,
    cyclesPerUs,
    syscall: summarizeSeries(ms, 'getppid', seed),
  };
  if (userTarget) {
    const mine = summarizeSeries(ms, 'exec-target', seed);
    const t = execveAloneOf(ms, 'exec-target', base, mine, stat, seed);
    summary.execveAlone.static = t?.static ?? null;
    summary.target = { ...userTarget, series: mine, execveAlone: t?.middle ?? null, overStatic: t?.ratio ?? null };
  }
  return summary;
}
