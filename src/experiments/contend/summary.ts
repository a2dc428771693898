// contend's summary and view: per configuration (method × kind of creator × creators × RSS) the throughput of all creators
// together and the per-call latency, and how both move from one creator to the most.
import { pooled, pooledSeriesStats } from '../shared/measure.js';
import { fmtTime, fmtTimes } from '../shared/conclude.js';
import { fmtUs } from '../../text/format.js';
import { blank, conclusion, heading, note, table, type Block } from '../contract/view.js';
import type { ShownRun, Measurement } from '../contract/types.js';
import { measurementsOf } from '../contract/fields.js';
import { CONTEND_FIELDS, CONTEND_METHODS, CONTEND_MODES, type ContendMethod, type ContendMode } from './configuration.js';

export interface ContendParams {
  methods: ContendMethod[];
  creatorKinds: ContendMode[];
  creators: number[];
  rssMb: number[];
  /** Sibling threads beside one creator (0: the stall is not measured), the parent sizes for it, and its iterations. */
  siblings: number[];
  stallRssMb: number[];
  stallIterations: number;
  /** Launches each creator makes per probe process (timed), and before them (not recorded). */
  iterations: number;
  warmup: number;
  repeats: number;
}

export interface ContendCell {
  method: ContendMethod;
  creator: ContendMode;
  creators: number;
  rssMb: number;
  /** Creations per second of all creators together: launches ÷ the wall time they took, repeats pooled. */
  creationsPerS: number;
  /** Each launch's own time, from the call until waitpid returned (every creator's, repeats pooled). */
  latencyMedianNs: number;
  latencyP90Ns: number;
  latencyN: number;
  /** The CPUs the creators could run on. */
  cpusUsable: number | null;
  failedRepeats: number;
}

/** The siblings' stall of one method, sibling count and RSS: the longest gap overlapping a launch, against a spin of the same length. */
export interface StallCell {
  method: ContendMethod;
  siblings: number;
  rssMb: number;
  n: number;
  stallMedianNs: number;
  stallP90Ns: number;
  stallMaxNs: number;
  baselineMedianNs: number;
  baselineP90Ns: number;
  baselineMaxNs: number;
  /** How long the launch took (the fork window), median. */
  windowMedianNs: number;
}

export interface ContendSummary {
  cells: ContendCell[];
  stall: StallCell[];
}

function summarizeStall(ms: readonly Measurement[], seed: number): StallCell[] {
  const keys = new Map<string, { method: ContendMethod; siblings: number; rssMb: number }>();
  for (const m of ms) {
    const id = m.identity as { method: ContendMethod; siblings?: number; rssMb: number };
    if ((m.series === 'stall' || m.series === 'baseline') && typeof id.siblings === 'number')
      keys.set(`${id.method}|${id.siblings}|${id.rssMb}`, { method: id.method, siblings: id.siblings, rssMb: id.rssMb });
  }
  const out: StallCell[] = [];
  for (const id of keys.values()) {
    const mine = (m: Measurement) => m.identity.method === id.method && m.identity.siblings === id.siblings && m.identity.rssMb === id.rssMb;
    const st = pooledSeriesStats(ms, (m) => mine(m) && m.series === 'stall', seed);
    const bl = pooledSeriesStats(ms, (m) => mine(m) && m.series === 'baseline', seed);
    if (!st || !bl) continue;
    const windows = ms.filter((m) => mine(m) && m.series === 'stall' && m.state === 'ok').flatMap((m) => m.columns.windowNs ?? []);
    const sorted = [...windows].sort((a, b) => a - b);
    out.push({
      ...id,
      n: st.n,
      stallMedianNs: st.medianNs,
      stallP90Ns: st.p90Ns,
      stallMaxNs: st.maxNs,
      baselineMedianNs: bl.medianNs,
      baselineP90Ns: bl.p90Ns,
      baselineMaxNs: bl.maxNs,
      windowMedianNs: sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)]! : 0,
    });
  }
  return out.sort((a, b) => a.rssMb - b.rssMb || a.siblings - b.siblings || CONTEND_METHODS.indexOf(a.method) - CONTEND_METHODS.indexOf(b.method));
}

type ContendCreatorsIdentity = { method: ContendMethod; creator: ContendMode; creators: number; rssMb: number };
const keyOf = (c: { method: string; creator: string; creators: number; rssMb: number }) => `${c.method}|${c.creator}|${c.creators}|${c.rssMb}`;

export function summarizeContend(ms: readonly Measurement[], seed: number): ContendSummary {
  const typed = measurementsOf(
    CONTEND_FIELDS,
    ms.filter((m) => m.series === 'aggregate' || m.series === 'latency'),
  );
  const keys = new Map<string, ContendCreatorsIdentity>();
  for (const m of typed) keys.set(keyOf(m.identity as ContendCreatorsIdentity), m.identity as ContendCreatorsIdentity);
  const cells: ContendCell[] = [];
  for (const [key, id] of keys) {
    const mine = typed.filter((m) => keyOf(m.identity as ContendCreatorsIdentity) === key);
    const agg = pooled(mine, (m) => m.series === 'aggregate');
    const lat = pooledSeriesStats(mine, (m) => m.series === 'latency', seed);
    if (agg.length === 0 || !lat) continue;
    const wallNs = agg.reduce((a, b) => a + b, 0); // per creator: the samples are wall time ÷ creators
    const cpus = mine.map((m) => m.observed.cpusUsable).find((v) => typeof v === 'number');
    cells.push({
      ...id,
      creationsPerS: wallNs > 0 ? (agg.length * 1e9) / wallNs : 0,
      latencyMedianNs: lat.medianNs,
      latencyP90Ns: lat.p90Ns,
      latencyN: lat.n,
      cpusUsable: cpus ?? null,
      failedRepeats: new Set(mine.filter((m) => m.state === 'failed').map((m) => m.repeat)).size,
    });
  }
  const order = (c: ContendCell) => [CONTEND_MODES.indexOf(c.creator), c.rssMb, CONTEND_METHODS.indexOf(c.method), c.creators];
  cells.sort((a, b) => {
    const x = order(a);
    const y = order(b);
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
    return 0;
  });
  return { cells, stall: summarizeStall(ms, seed) };
}

const perS = (x: number) => (x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(1));
const creatorsWord = (n: number, creator: ContendMode) => `${n} ${creator === 'process' ? (n === 1 ? 'process' : 'processes') : n === 1 ? 'thread' : 'threads'}`;

/** The groups of one method, kind of creator and RSS, their cells by creators (one creator first). */
function groups(cells: readonly ContendCell[]): ContendCell[][] {
  const by = new Map<string, ContendCell[]>();
  for (const c of cells) {
    const k = `${c.creator}|${c.rssMb}|${c.method}`;
    by.set(k, [...(by.get(k) ?? []), c]);
  }
  return [...by.values()].map((g) => [...g].sort((a, b) => a.creators - b.creators));
}

/** One line per method, kind of creator and RSS: throughput and per-call median from the fewest creators to the most. */
function conclusionLines(cells: readonly ContendCell[]): string[] {
  const lines: string[] = [];
  for (const g of groups(cells)) {
    const lo = g[0]!;
    const hi = g.at(-1)!;
    if (lo === hi) {
      lines.push(
        `${lo.method}, ${creatorsWord(lo.creators, lo.creator)} at ${lo.rssMb} MB: ${perS(lo.creationsPerS)} creations/s, per-call median ${fmtTime(lo.latencyMedianNs)}.`,
      );
      continue;
    }
    lines.push(
      `${lo.method} at ${lo.rssMb} MB, ${lo.creator === 'process' ? 'creator processes' : 'threads of one parent'} ${lo.creators} → ${hi.creators}: ` +
        `${perS(lo.creationsPerS)} → ${perS(hi.creationsPerS)} creations/s (${fmtTimes(hi.creationsPerS / lo.creationsPerS)}), ` +
        `per-call median ${fmtTime(lo.latencyMedianNs)} → ${fmtTime(hi.latencyMedianNs)}.`,
    );
  }
  return lines;
}

export const STALL_NOT_MEASURED = 'Not measured in this run: what a launch costs the parent’s other threads (--siblings 0).';

function stallLines(cells: readonly StallCell[]): string[] {
  return cells.map(
    (c) =>
      `${c.method} from ${c.rssMb} MB, ${c.siblings} sibling thread${c.siblings === 1 ? '' : 's'} touching memory: longest stall median ${fmtTime(c.stallMedianNs)} ` +
      `(p90 ${fmtTime(c.stallP90Ns)}) against ${fmtTime(c.baselineMedianNs)} (p90 ${fmtTime(c.baselineP90Ns)}) with no launch in the window.`,
  );
}

function stallBlocks(cells: readonly StallCell[]): Block[] {
  if (cells.length === 0) return [note(STALL_NOT_MEASURED)];
  return [
    blank,
    heading('What one launch costs the parent’s other threads: their longest gap in progress overlapping it'),
    table(
      ['method', 'RSS MB', 'siblings', 'launch µs', 'stall median µs', 'p90', 'max', 'baseline median µs', 'p90', 'max', 'n'],
      cells.map((c) => [
        c.method,
        String(c.rssMb),
        String(c.siblings),
        fmtUs(c.windowMedianNs),
        fmtUs(c.stallMedianNs),
        fmtUs(c.stallP90Ns),
        fmtUs(c.stallMaxNs),
        fmtUs(c.baselineMedianNs),
        fmtUs(c.baselineP90Ns),
        fmtUs(c.baselineMaxNs),
        String(c.n),
      ]),
      { leftAlign: [0] },
    ),
    blank,
    note(
      'stall: the longest gap between two consecutive units of work (16 page writes) of any sibling that overlaps the launch; baseline: the same siblings, the same probe, the main thread spinning as long as the launch took instead. Copy-on-write faults the siblings take after the launch ends are not in either figure.',
    ),
  ];
}

export function contendView(run: ShownRun<ContendSummary, ContendParams>): Block[] {
  const s = run.summary;
  const p = run.params;
  const out: Block[] = [];
  const stall = s.stall ?? [];
  if (s.cells.length === 0 && stall.length === 0) {
    out.push(conclusion(['Not measured: every probe failed (the failures are below).']));
    return out;
  }
  out.push(conclusion([...conclusionLines(s.cells), ...stallLines(stall)]), blank);
  if (s.cells.length === 0) return [...out, ...stallBlocks(stall)];
  out.push(heading(`N creators at once, each ${p.iterations} launches per probe process (${p.repeats} probe process${p.repeats === 1 ? '' : 'es'} per configuration)`));
  const rows = s.cells.map((c) => {
    const one = s.cells.find((o) => o.method === c.method && o.creator === c.creator && o.rssMb === c.rssMb && o.creators === 1);
    return [
      c.method,
      c.creator,
      String(c.rssMb),
      String(c.creators),
      perS(c.creationsPerS),
      one && one !== c ? fmtTimes(c.creationsPerS / one.creationsPerS) : '—',
      fmtUs(c.latencyMedianNs),
      fmtUs(c.latencyP90Ns),
      String(c.latencyN),
    ];
  });
  out.push(table(['method', 'creators are', 'RSS MB', 'N', 'creations/s', '÷ N=1', 'median µs/call', 'p90 µs/call', 'calls'], rows, { leftAlign: [0, 1] }));
  out.push(blank);
  const cpus = s.cells.map((c) => c.cpusUsable).find((v) => v !== null);
  if (cpus !== undefined && cpus !== null)
    out.push(note(`The creators could run on ${cpus} CPU${cpus === 1 ? '' : 's'}; beyond that many, more creators share CPUs and the throughput can only hold or fall.`));
  out.push(
    note(
      'creations/s: every creator’s launches ÷ the wall time from the common start until the last creator finished; a launch is timed from the call until waitpid returned (the child exec’d a static target that returns 0).',
    ),
  );
  out.push(...stallBlocks(stall));
  return out;
}
