// The dynamic loader's own accounting: what ld.so prints on stderr when a program runs with
// LD_DEBUG=statistics. glibc 2.36 writes two blocks, each line prefixed with the pid and a tab:
//
//      13372:	runtime linker statistics:
//      13372:	  total startup time in dynamic loader: 183783 cycles
//      13372:	            time needed for relocation: 11058 cycles (6.0%)
//      13372:	                 number of relocations: 83
//      13372:	      number of relocations from cache: 7
//      13372:	        number of relative relocations: 3
//      13372:	           time needed to load objects: 36379 cycles (19.7%)
//      13372:
//      13372:	runtime linker statistics:
//      13372:	           final number of relocations: 84
//      13372:	final number of relocations from cache: 7
//
// The first block is written before main, the second at exit. "cycles" are the loader's timer ticks
// (rdtsc on x86-64), older glibc says "clock cycles". Pure functions, no I/O.
import { readFileSync } from 'node:fs';
import { seriesStats } from '../shared/measure.js';
import type { Measurement } from '../contract/types.js';

export interface LdStatistics {
  /** From ld.so's entry to the hand-over to the program, in the loader's timer cycles. */
  totalStartupCycles: number;
  relocationCycles: number;
  /** Cycles spent mapping the shared objects; null when this glibc does not print it. */
  loadObjectsCycles: number | null;
  relocations: number;
  relocationsFromCache: number | null;
  relativeRelocations: number | null;
  /** From the block printed at exit (includes relocations done lazily after startup); null when absent. */
  finalRelocations: number | null;
}

export type LdParse = { ok: true; stats: LdStatistics } | { ok: false; reason: string };

const HEADER = /runtime linker statistics:\s*$/;
// "label: 123 cycles (6.0%)", "label: 123 clock cycles", "label: 83"
const ENTRY = /^\s*([a-z][a-z ]*?):\s+(\S+)(?:\s+(?:clock\s+)?cycles)?(?:\s+\(\s*[\d.]+%\))?\s*$/;

const LABELS: Record<string, keyof LdStatistics> = {
  'total startup time in dynamic loader': 'totalStartupCycles',
  'time needed for relocation': 'relocationCycles',
  'time needed to load objects': 'loadObjectsCycles',
  'number of relocations': 'relocations',
  'number of relocations from cache': 'relocationsFromCache',
  'number of relative relocations': 'relativeRelocations',
  'final number of relocations': 'finalRelocations',
};

const REQUIRED: (keyof LdStatistics)[] = ['totalStartupCycles', 'relocationCycles', 'relocations'];

/** Strips the "   PID:\t" prefix ld.so puts before every debug line. */
function stripPid(line: string): string {
  const m = /^\s*\d+:\t?(.*)$/.exec(line);
  return m ? m[1]! : line;
}

/**
 * Parses LD_DEBUG=statistics output (the program's whole stderr; other lines are ignored).
 * Fails when there is no statistics block, when a known entry does not hold a whole number, or when one of
 * the three entries every glibc prints (total startup time, relocation time, number of relocations) is missing.
 */
export function parseLdStatistics(stderr: string): LdParse {
  const found: Partial<Record<keyof LdStatistics, number>> = {};
  let inBlock = false;
  let blocks = 0;
  for (const raw of stderr.split('\n')) {
    const line = stripPid(raw.replace(/\r$/, ''));
    if (HEADER.test(line)) {
      inBlock = true;
      blocks++;
      continue;
    }
    if (!inBlock) continue;
    if (line.trim() === '') {
      inBlock = false;
      continue;
    }
    const m = ENTRY.exec(line);
    if (!m) continue; // a line this parser does not know (newer glibc); not an error
    const key = LABELS[m[1]!.trim()];
    if (!key) continue;
    if (!/^\d+$/.test(m[2]!)) return { ok: false, reason: `"${m[1]!.trim()}" is not a whole number: ${JSON.stringify(m[2])}` };
    if (found[key] === undefined) found[key] = Number(m[2]);
  }
  if (blocks === 0) return { ok: false, reason: 'no "runtime linker statistics" block (is the program dynamically linked, and LD_DEBUG=statistics set?)' };
  for (const [label, key] of Object.entries(LABELS))
    if (REQUIRED.includes(key) && found[key] === undefined) return { ok: false, reason: `the statistics block has no "${label}" line` };
  return {
    ok: true,
    stats: {
      totalStartupCycles: found.totalStartupCycles!,
      relocationCycles: found.relocationCycles!,
      loadObjectsCycles: found.loadObjectsCycles ?? null,
      relocations: found.relocations!,
      relocationsFromCache: found.relocationsFromCache ?? null,
      relativeRelocations: found.relativeRelocations ?? null,
      finalRelocations: found.finalRelocations ?? null,
    },
  };
}

/** Several runs of the same program summarised: medians of the cycle counts, the counts as one run saw them. */
export interface LdSummary {
  runs: number;
  totalStartupCyclesMedian: number;
  relocationCyclesMedian: number;
  loadObjectsCyclesMedian: number | null;
  /** Counts of the first run; `countsVaried` says whether another run saw different counts. */
  relocations: number;
  relocationsFromCache: number | null;
  relativeRelocations: number | null;
  finalRelocations: number | null;
  countsVaried: boolean;
}

function mid(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const h = Math.floor(s.length / 2);
  return s.length % 2 ? s[h]! : (s[h - 1]! + s[h]!) / 2;
}

export function summarizeLdStatistics(runs: readonly LdStatistics[]): LdSummary | null {
  if (runs.length === 0) return null;
  const first = runs[0]!;
  const loads = runs.map((r) => r.loadObjectsCycles).filter((x): x is number => x !== null);
  const counts = (r: LdStatistics) => `${r.relocations}|${r.relocationsFromCache}|${r.relativeRelocations}|${r.finalRelocations}`;
  return {
    runs: runs.length,
    totalStartupCyclesMedian: mid(runs.map((r) => r.totalStartupCycles)),
    relocationCyclesMedian: mid(runs.map((r) => r.relocationCycles)),
    loadObjectsCyclesMedian: loads.length ? mid(loads) : null,
    relocations: first.relocations,
    relocationsFromCache: first.relocationsFromCache,
    relativeRelocations: first.relativeRelocations,
    finalRelocations: first.finalRelocations,
    countsVaried: runs.some((r) => counts(r) !== counts(first)),
  };
}

/**
 * ld.so's own start-up time, one sample per LD_DEBUG=statistics run, as a measurement (series "ld-startup") so
 * that claims and reports read it like any other: its cycles converted with the TSC rate; without a known
 * rate the measurement fails and says why (the cycles stay in the summary).
 */
export function ldMeasurement(runs: readonly LdStatistics[], cyclesPerUs: number | null, seed: number): Measurement {
  const samplesNs = cyclesPerUs ? runs.map((r) => Math.round((r.totalStartupCycles / cyclesPerUs) * 1000)) : [];
  const ok = samplesNs.length > 0 && samplesNs.every((x) => x > 0);
  return {
    series: 'ld-startup',
    identity: { method: 'ld-debug' },
    observed: {},
    repeat: 1,
    state: ok ? 'ok' : 'failed',
    failure: ok ? null : 'ld.so counts its start-up in timer cycles and this machine gives no constant TSC rate to convert them',
    info: { cyclesPerUs: cyclesPerUs ?? 0 },
    samplesNs: ok ? samplesNs : [],
    columns: ok ? { startupCycles: runs.map((r) => r.totalStartupCycles), relocationCycles: runs.map((r) => r.relocationCycles) } : {},
    stats: ok ? seriesStats(samplesNs, seed) : null,
  };
}

/** On x86-64 ld.so counts rdtsc ticks; with constant_tsc their rate is the nominal clock /proc/cpuinfo reports. */
export function tscCyclesPerUs(cpuinfo: string, arch: string): number | null {
  if (arch !== 'x64' || !/^flags\s*:.*\bconstant_tsc\b/m.test(cpuinfo)) return null;
  const m = /^cpu MHz\s*:\s*([\d.]+)/m.exec(cpuinfo);
  const mhz = m ? Number(m[1]) : NaN;
  return Number.isFinite(mhz) && mhz > 0 ? mhz : null;
}

export function readCyclesPerUs(): number | null {
  try {
    return tscCyclesPerUs(readFileSync('/proc/cpuinfo', 'utf8'), process.arch);
  } catch {
    return null;
  }
}
