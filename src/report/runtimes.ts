// The runtimes section of a report (HTML and Markdown): what was found, the median per spawn at each heap
// size, and per variant the growth, the system call seen and article 000's claim for it — from the summary
// `forklab runtimes` stored with the run.
import type { RunDocument } from './document.js';
import type { ReportTable } from './markdown.js';
import type { RuntimesSummary } from '../experiments/runtimes/summary.js';
import { fmtUs } from '../text/format.js';

function isRuntimesSummary(s: unknown): s is RuntimesSummary {
  const x = s as Partial<RuntimesSummary> | null;
  return !!x && Array.isArray(x.cells) && Array.isArray(x.lines) && Array.isArray(x.runtimes) && Array.isArray(x.mechanisms);
}

export function runtimesTables(doc: RunDocument): ReportTable[] | null {
  const s = doc.summary;
  if (!isRuntimesSummary(s)) return null;
  const out: ReportTable[] = [];
  const rows: string[][] = [];
  for (const e of s.runtimes) {
    if (e.state === 'found' && (e.selected || e.origin === 'flag')) rows.push([e.name, e.version, e.path]);
    else if (e.state === 'absent') rows.push([e.family, 'absent', `install: ${e.install}`]);
    else if (e.state === 'no-driver') rows.push([e.family, 'found, no driver yet', e.path]);
    else if (e.state === 'broken') rows.push([e.name, 'does not run', e.why]);
  }
  for (const a of s.absentVariants ?? []) rows.push([`${a.runtime} ${a.variant}`, 'absent', a.why]);
  out.push({ title: 'Runtimes', header: ['runtime', 'version', 'where'], rows, leftAlign: [0, 1, 2] });

  const heaps = [...new Set(s.cells.map((c) => c.heapMb))].sort((a, b) => a - b);
  const cell = (runtime: string, variant: string, heapKind: string, heapMb: number) => {
    const c = s.cells.find((x) => x.runtime === runtime && x.variant === variant && x.heapKind === heapKind && x.heapMb === heapMb);
    return c ? `${fmtUs(c.medianNs)} [${fmtUs(c.ciLowNs)}–${fmtUs(c.ciHighNs)}]` : '—';
  };
  const mech = (runtime: string, variant: string) => s.mechanisms.find((m) => m.runtime === runtime && m.variant === variant)?.text ?? s.mechanismsSkipped ?? 'unknown';
  out.push({
    title: "Median µs per spawn-to-reap [95 % CI] by the parent's heap",
    header: ['runtime', 'variant', 'heap', ...heaps.map((h) => `${h} MB`)],
    rows: s.lines.map((l) => [l.runtime, l.variant, l.heapKind, ...heaps.map((h) => cell(l.runtime, l.variant, l.heapKind, h))]),
    leftAlign: [0, 1, 2],
  });
  out.push({
    title: 'Growth with the heap, the system call observed, and the claim (forking grows; vfork and posix_spawn stay flat)',
    header: ['runtime', 'variant', 'heap', 'µs per MB [95 % CI]', 'verdict', 'mechanism (strace)', 'claim'],
    rows: s.lines.map((l) => [
      l.runtime,
      l.variant,
      l.heapKind,
      l.slope ? `${l.slope.slopeUsPerMb.toFixed(2)}${l.slope.lowUsPerMb !== null && l.slope.highUsPerMb !== null ? ` [${l.slope.lowUsPerMb.toFixed(2)}–${l.slope.highUsPerMb.toFixed(2)}]` : ''}` : '—',
      l.verdict,
      mech(l.runtime, l.variant),
      l.claimHolds === null ? '—' : l.claimHolds ? `holds (${l.expected})` : `differs (expected ${l.expected})`,
    ]),
    leftAlign: [0, 1, 2, 4, 5, 6],
    note: 'verdict: grows when the whole 95 % interval of the slope adds more than 25 % to the cost at the smallest heap over the range; flat when none of it does; unclear otherwise.',
  });
  return out;
}
