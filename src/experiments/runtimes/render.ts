// What a `forklab runtimes` run shows, as data (src/report renders it): what was found, the median per spawn
// at each heap size, and per variant the growth with the heap, the observed mechanism and article 000's claim.
import { fmtUs, fmtUsCi } from '../../text/format.js';
import type { ShownRun } from '../contract/types.js';
import { blank, heading, note, table, type Block } from '../contract/view.js';
import type { RuntimeEntry } from './discover.js';
import { FAMILIES } from './registry.js';
import { viewAnswer } from './answer.js';
import { libuvLabel } from './libuv.js';
import type { RuntimeLine, RuntimesSummary } from './summary.js';

const familyRank = (f: string) => FAMILIES.findIndex((x) => x.family === f);

/** The table of runtimes; interpreters found but not run are summed up in one note below it. */
function runtimeRows(entries: readonly RuntimeEntry[], measured: ReadonlySet<string>): string[][] {
  const rows: string[][] = [];
  const sorted = [...entries].sort((a, b) => familyRank(a.family) - familyRank(b.family));
  for (const e of sorted) {
    switch (e.state) {
      case 'found':
        if (measured.has(e.name)) rows.push([e.name, e.version, 'measured', e.path]);
        else if (e.selected || e.origin === 'flag') rows.push([e.name, e.version, 'found, not run (left out by --runtimes, --node or --variants)', e.path]);
        break;
      case 'absent':
        rows.push([e.family, '—', 'absent', `install: ${e.install}`]);
        break;
      case 'no-driver':
        rows.push([e.family, '—', 'found, no driver yet', e.path]);
        break;
      case 'broken':
        rows.push([e.name, '—', `does not run: ${e.why}`, e.path]);
        break;
    }
  }
  return rows;
}

function slopeText(l: RuntimeLine): string {
  if (!l.slope) return '—';
  const s = l.slope;
  const ci = s.lowUsPerMb !== null && s.highUsPerMb !== null ? ` [${s.lowUsPerMb.toFixed(2)}–${s.highUsPerMb.toFixed(2)}]` : '';
  return `${s.slopeUsPerMb.toFixed(2)}${ci}`;
}

function claimText(l: RuntimeLine): string {
  return l.claimHolds === null ? '—' : l.claimHolds ? `holds (${l.expected})` : `differs (expected ${l.expected})`;
}

export function viewRuntimes(run: ShownRun<RuntimesSummary>): Block[] {
  const s = run.summary;
  // The answer first (answer.ts), then what was found, the full tables and the claim per variant.
  const out: Block[] = [...viewAnswer(run), heading('Runtimes')];
  const measured = new Set(s.cells.map((x) => x.runtime));
  out.push(table(['runtime', 'version', 'state', 'where / how to add'], runtimeRows(s.runtimes, measured), { leftAlign: [0, 1, 2, 3] }));
  const others = s.runtimes.filter((e) => e.state === 'found' && !e.selected && e.origin !== 'flag' && !measured.has(e.name));
  if (others.length)
    out.push(note(`also found, not run by default: ${others.map((e) => (e.state === 'found' ? `${e.name} (${e.version})` : '')).join(', ')}; add one with --runtimes NAME`));
  for (const a of s.absentVariants) out.push(note(`${a.runtime} ${a.variant}: absent (${a.why})`));
  out.push(blank);

  const heaps = [...new Set(s.cells.map((x) => x.heapMb))].sort((a, b) => a - b);
  if (s.cells.length) {
    out.push(heading("Median µs per spawn-to-reap of the static target [95 % CI], by the parent's heap"));
    const rows = s.lines.map((l) => [
      l.runtime,
      l.variant,
      l.heapKind,
      ...heaps.map((h) => {
        const x = s.cells.find((y) => y.runtime === l.runtime && y.variant === l.variant && y.heapKind === l.heapKind && y.heapMb === h);
        return x ? fmtUsCi(x.medianNs, x.ciLowNs, x.ciHighNs) : '—';
      }),
    ]);
    out.push(table(['runtime', 'variant', 'heap', ...heaps.map((h) => `${h} MB`)], rows, { leftAlign: [0, 1, 2] }), blank);
  }

  if (s.lines.length) {
    out.push(heading("Growth with the heap, the system call observed, and article 000's claim for it"));
    const mech = (l: RuntimeLine) => {
      const seen = s.mechanisms.find((m) => m.runtime === l.runtime && m.variant === l.variant)?.text ?? s.mechanismsSkipped ?? 'unknown';
      const uv = l.variant.startsWith('node/') ? libuvLabel(l.libuv) : '';
      return uv ? `${seen} · ${uv}` : seen;
    };
    const rows = s.lines.map((l) => [l.runtime, l.variant, l.heapKind, slopeText(l), l.verdict, mech(l), claimText(l)]);
    out.push(table(['runtime', 'variant', 'heap', 'µs per MB [95 % CI]', 'verdict', 'mechanism (strace)', 'claim'], rows, { leftAlign: [0, 1, 2, 4, 5, 6] }));
    out.push(
      note(
        'verdict: grows when the whole interval adds more than 25 % to the cost at the smallest heap over the range, flat when none of it does, unclear when it reaches both sides.',
      ),
    );
    const top = heaps[heaps.length - 1]!;
    const rss = new Map<string, number>();
    for (const x of s.cells) if (x.rssMb !== null && x.heapMb === top) rss.set(`${x.runtime} ${x.heapKind}`, Math.max(rss.get(`${x.runtime} ${x.heapKind}`) ?? 0, x.rssMb));
    if (rss.size) out.push(note(`resident memory with ${top} MB of heap: ${[...rss].map(([k, v]) => `${k} ${v} MB`).join(', ')}`));
    const fastest = s.cells.reduce<number | null>((a, x) => (a === null || x.medianNs < a ? x.medianNs : a), null);
    if (fastest !== null) out.push(note(`fastest cell: ${fmtUs(fastest)} µs; times are taken inside each runtime, from the call to the child's reaping.`));
  }
  return out;
}
