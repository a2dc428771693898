// A trace's summary (the document's `summary`, version TRACE_SUMMARY_VERSION) and its measurements: one per
// creating process and mechanism, the raw in-call times as samples, RSS/VmPTE/time-to-exec per call as columns.
import { seriesStats } from '../shared/measure.js';
import type { Measurement } from '../contract/types.js';
import { adviceFor, estimate, type Advice, type Estimate, type SpawnModel } from './cost.js';
import type { Overhead } from './calibrate.js';
import type { ProcessFigures } from './figures.js';
import { MECHANISMS, type Mechanism } from './model.js';
import type { EndedBy } from './observe.js';
import type { CallSiteSummary } from './coverage.js';
import type { TraceFields } from './configuration.js';

/** 2: call sites (callSites, packages), the recorders (recording), processes without a call site (uncovered), nativeStacks. */
const TRACE_SUMMARY_VERSION = 2;
/** The versions this forklab reads (a version-1 trace has no call sites). */
export const READABLE_TRACE_VERSIONS: readonly number[] = [1, 2];

export interface ProcessSummary extends Omit<ProcessFigures, 'calls'> {
  estimate: Estimate | null;
  advice: Advice | null;
}

export type ModelState = SpawnModel | { state: 'none'; reason: string };

export interface TraceSummary extends Partial<CallSiteSummary> {
  traceVersion: 1 | typeof TRACE_SUMMARY_VERSION;
  mode: 'command' | 'attach';
  command: string[] | null;
  pid: number | null;
  tracer: { name: string; path: string; version: string | null; args: string[] };
  /** Wall time of the traced command (or of the attachment), under the tracer. */
  wallNs: number;
  exit: { code: number | null; signal: string | null };
  endedBy: EndedBy;
  /** Processes the command left running after an interrupt, which forklab ended. */
  leftEnded: number;
  /** Attached: strace did not detach when asked and was killed (the process ran on). */
  tracerKilled?: boolean;
  processes: ProcessSummary[];
  totals: { creations: number; forks: number; inCallNs: number; savingNs: number; processes: number };
  model: ModelState;
  overhead: Overhead;
  /** /proc readings kept (equal readings of a process in a row count once), and strace lines that could not be read. */
  procSamples: number;
  unreadLines: number;
}

export const hasModel = (m: ModelState): m is SpawnModel => !('state' in m);

export function summarize(o: {
  figures: ProcessFigures[];
  model: ModelState;
  overhead: Overhead;
  sites: CallSiteSummary;
  base: Omit<TraceSummary, 'traceVersion' | 'processes' | 'totals' | 'model' | 'overhead' | keyof CallSiteSummary>;
}): TraceSummary {
  const processes: ProcessSummary[] = o.figures.map(({ calls: _calls, ...p }) => {
    const full = o.figures.find((f) => f.pid === p.pid && f.program === p.program)!;
    return { ...p, estimate: hasModel(o.model) ? estimate(full, o.model, o.base.wallNs) : null, advice: adviceFor(full) };
  });
  return {
    traceVersion: TRACE_SUMMARY_VERSION,
    ...o.base,
    processes,
    totals: {
      creations: processes.reduce((a, p) => a + p.children, 0),
      forks: processes.reduce((a, p) => a + p.byMechanism.fork, 0),
      inCallNs: processes.reduce((a, p) => a + (p.inCall?.sumNs ?? 0), 0),
      savingNs: processes.reduce((a, p) => a + (p.estimate?.savingNs ?? 0), 0),
      processes: processes.length,
    },
    model: o.model,
    overhead: o.overhead,
    ...o.sites,
  };
}

/** What a trace's measurements record beside their identity: the creator's runtime, and per call its size and time to exec. */
export const TRACE_OBSERVED = ['runtime'] as const;
export const TRACE_COLUMNS = ['rssKb', 'pteKb', 'toExecNs'] as const;

/** One measurement per process and mechanism: in-call ns as samples; rssKb, pteKb, toExecNs per call (-1: unknown). */
export function traceMeasurements(figures: readonly ProcessFigures[], seed: number): Measurement[] {
  const out: Measurement[] = [];
  for (const p of figures)
    for (const mech of MECHANISMS) {
      const calls = p.calls.filter((c) => c.mechanism === mech && c.durationNs !== null);
      if (!calls.length) continue;
      const samplesNs = calls.map((c) => c.durationNs!);
      out.push({
        series: mech,
        // What tells one creating process from another (a trace chooses nothing); rssMb places it in the report's chart.
        identity: { pid: p.pid, program: p.program, rssMb: p.rssMb ? Math.round(p.rssMb.median) : null } satisfies TraceFields['identity'],
        observed: { [TRACE_OBSERVED[0]]: p.runtime } satisfies TraceFields['observed'],
        repeat: 0,
        state: 'ok',
        failure: null,
        info: {},
        samplesNs,
        columns: {
          [TRACE_COLUMNS[0]]: calls.map((c) => c.rssKb ?? -1),
          [TRACE_COLUMNS[1]]: calls.map((c) => c.pteKb ?? -1),
          [TRACE_COLUMNS[2]]: calls.map((c) => c.toExecNs ?? -1),
        },
        stats: seriesStats(samplesNs, seed),
      });
    }
  return out;
}

export const MECHANISM_WORDS: Record<Mechanism, string> = {
  fork: 'fork',
  vfork: 'vfork',
  'clone-vm-vfork': 'clone(CLONE_VM|CLONE_VFORK), as posix_spawn',
  'clone-vm': 'clone(CLONE_VM)',
};
