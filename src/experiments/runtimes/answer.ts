// The first thing a `forklab runtimes` run shows: the user's question answered — for every runtime, version and
// call, the mechanism strace saw, the cost at the smallest and largest heap and whether it grows — cheapest at
// the largest heap first; then the variants grouped by mechanism, when each runtime changed mechanism (with
// its source), and a chart per mechanism.
import { fmtUs } from '../../text/format.js';
import type { ShownRun } from '../contract/types.js';
import { blank, heading, note, table, type Block } from '../contract/view.js';
import { node } from './families/node.js';
import { ruby } from './families/ruby.js';
import { historyOf } from './history.js';
import { libuvLabel, libuvNote } from './libuv.js';
import type { SpawnMechanism } from './mechanism.js';
import { ALL_VARIANTS, familySpec, type Family } from './registry.js';
import type { RuntimeCell, RuntimeLine, RuntimesSummary } from './summary.js';

/** "0 MB", "256 MB", "1 GiB". */
function heapLabel(mb: number): string {
  return mb >= 1024 && mb % 1024 === 0 ? `${mb / 1024} GiB` : `${mb} MB`;
}

const MEANING: Record<SpawnMechanism | 'unknown', string> = {
  fork: 'fork: the parent’s page tables are copied, so the cost grows with its memory',
  vfork: 'vfork: the parent is suspended and its memory shared until the child execs',
  posix_spawn: 'clone CLONE_VM|CLONE_VFORK (glibc’s posix_spawn, Go’s forkExec): memory shared, parent suspended until exec',
  'clone-vm': 'clone CLONE_VM without CLONE_VFORK: memory shared, parent not suspended',
  unknown: 'not observed (no strace, --no-strace, or the trace did not show the spawn)',
};
const ORDER: (SpawnMechanism | 'unknown')[] = ['fork', 'vfork', 'posix_spawn', 'clone-vm', 'unknown'];

export interface AnswerRow {
  line: RuntimeLine;
  family: Family | null;
  call: string;
  mechanism: SpawnMechanism | 'unknown';
  mechanismText: string;
  first: RuntimeCell | null;
  last: RuntimeCell | null;
}

function familyOfVariant(id: string): Family | null {
  return ALL_VARIANTS.find((v) => v.id === id)?.family ?? null;
}

/** One row per runtime × call × heap kind, cheapest at the largest heap first (rows without it last). */
function answerRows(s: RuntimesSummary): { rows: AnswerRow[]; smallest: number; largest: number } {
  const heaps = [...new Set(s.cells.map((c) => c.heapMb))].sort((a, b) => a - b);
  const smallest = heaps[0] ?? 0;
  const largest = heaps[heaps.length - 1] ?? 0;
  const cell = (l: RuntimeLine, mb: number) => s.cells.find((c) => c.runtime === l.runtime && c.variant === l.variant && c.heapKind === l.heapKind && c.heapMb === mb) ?? null;
  const rows = s.lines.map((line): AnswerRow => {
    const family = familyOfVariant(line.variant);
    const variant = ALL_VARIANTS.find((v) => v.id === line.variant);
    const kinds = family ? familySpec(family).heapKinds.length : 1;
    const m = s.mechanisms.find((x) => x.runtime === line.runtime && x.variant === line.variant);
    const mechanism = m?.result.state === 'observed' ? m.result.mechanism : 'unknown';
    const helpers = m?.result.state === 'observed' && m.result.helpers.length ? ` → ${m.result.helpers.join(' → ')}` : '';
    // A Node's libuv decides how child_process starts a child: shown beside what strace saw.
    const uv = family === node.family ? libuvLabel(line.libuv) : '';
    return {
      line,
      family,
      call: `${variant?.call ?? line.variant}${kinds > 1 ? ` (${line.heapKind})` : ''}`,
      mechanism,
      mechanismText: `${mechanism === 'unknown' ? '?' : `${mechanism}${helpers}`}${uv ? ` · ${uv}` : ''}`,
      first: cell(line, smallest),
      last: cell(line, largest),
    };
  });
  const cost = (r: AnswerRow) => r.last?.medianNs ?? Number.POSITIVE_INFINITY;
  rows.sort((a, b) => cost(a) - cost(b) || a.line.runtime.localeCompare(b.line.runtime));
  return { rows, smallest, largest };
}

const grows = (l: RuntimeLine) => (l.verdict === 'one-heap' ? 'one heap' : l.verdict === 'grows' ? 'grows' : l.verdict === 'flat' ? 'no' : 'unclear');

export function viewAnswer(run: ShownRun<RuntimesSummary>): Block[] {
  const s = run.summary;
  if (s.lines.length === 0) return [];
  const { rows, smallest, largest } = answerRows(s);
  const out: Block[] = [heading(`Does it fork? Median µs per spawn-to-reap of the static target, cheapest at ${heapLabel(largest)} first`)];
  out.push(
    table(
      ['runtime', 'version', 'call', 'mechanism', `µs at ${heapLabel(smallest)}`, `µs at ${heapLabel(largest)}`, 'grows?'],
      rows.map((r) => [
        r.line.runtime,
        r.line.runtimeVersion,
        r.call,
        r.mechanismText,
        r.first ? fmtUs(r.first.medianNs) : '—',
        r.last ? fmtUs(r.last.medianNs) : '—',
        grows(r.line),
      ]),
      { leftAlign: [0, 1, 2, 3, 6] },
    ),
  );
  out.push(note('grows?: the verdict from the 95 % interval of the slope against the heap (the growth table below); each call is one variant (docs/experiments/runtimes.md).'));
  const uvNote = libuvNote(rows.filter((r) => r.family === node.family).map((r) => r.line.libuv));
  if (uvNote) out.push(note(uvNote));
  out.push(blank);

  // Grouped by what strace saw.
  out.push(heading('By mechanism'));
  const groups = ORDER.map((m) => ({ m, rows: rows.filter((r) => r.mechanism === m) })).filter((g) => g.rows.length > 0);
  out.push(
    table(
      ['mechanism', 'variants', `µs at ${heapLabel(largest)}`, 'runtimes (×calls)'],
      groups.map((g) => {
        const costs = g.rows.map((r) => r.last?.medianNs).filter((x): x is number => x !== undefined);
        const range = costs.length ? `${fmtUs(Math.min(...costs))}–${fmtUs(Math.max(...costs))}` : '—';
        // Runtimes with how many of their calls, so that the row stays one line: "node20 ×3, perl5.36".
        const calls = new Map<string, Set<string>>();
        for (const r of g.rows) calls.set(r.line.runtime, (calls.get(r.line.runtime) ?? new Set()).add(r.line.variant));
        return [g.m, String(g.rows.length), range, [...calls].map(([rt, vs]) => (vs.size > 1 ? `${rt} ×${vs.size}` : rt)).join(', ')];
      }),
      { leftAlign: [0, 3] },
    ),
  );
  for (const g of groups) out.push(note(MEANING[g.m]));
  const rubyForked = rows.find((r) => r.family === ruby.family && r.mechanism === 'fork');
  if (rubyForked && typeof process.getuid === 'function' && process.getuid() === 0)
    out.push(note('Ruby forked because this run is root: Ruby uses vfork only in an unprivileged process (an ordinary user gets vfork).'));
  out.push(blank);

  // What the projects document, for the runtimes of this run.
  const families = new Set(rows.map((r) => r.family).filter((f): f is Family => f !== null));
  const history = historyOf(families);
  if (history.length) {
    out.push(heading('When each runtime changed how it starts a child (documented; the mechanism column above is observed)'));
    out.push(
      table(
        ['runtime', 'since', 'what', 'source'],
        history.map((h) => [h.family, h.since, h.what, h.source]),
        { leftAlign: [0, 1, 2, 3] },
      ),
    );
    out.push(blank);
  }

  // One line per mechanism: the median over its variants at each heap size.
  const heaps = [...new Set(s.cells.map((c) => c.heapMb))].sort((a, b) => a - b);
  if (heaps.length > 1) {
    const points = groups.flatMap((g) =>
      heaps.flatMap((mb) => {
        const xs = g.rows
          .map((r) => s.cells.find((c) => c.runtime === r.line.runtime && c.variant === r.line.variant && c.heapKind === r.line.heapKind && c.heapMb === mb)?.medianNs)
          .filter((x): x is number => x !== undefined)
          .sort((a, b) => a - b);
        if (!xs.length) return [];
        const mid = Math.floor(xs.length / 2);
        const medianNs = xs.length % 2 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2;
        return [{ method: g.m, rssMb: mb, medianNs }];
      }),
    );
    out.push(heading("The median variant of each mechanism, µs per spawn against the parent's heap"));
    out.push({ kind: 'latency-chart', points, order: groups.map((g) => g.m), width: 56, height: 8 });
    out.push(blank);
  }
  return out;
}
