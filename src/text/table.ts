// Plain-text tables: right-aligned numbers, a header rule; cells may carry ANSI colour (not counted in widths).
// A text primitive every layer may use (the terminal views of src/report/, the reproduce summary of src/claims/).
// A table wider than the output (src/text/fit.ts: 100 columns unless --wide) first wraps its widest cells at
// spaces (a cell's further lines hang by two spaces), and when even that does not fit, folds: one block per row,
// its first cell, then one "header: value" line per other cell.
import { outputColumns, visibleWidth, wrapLine } from './fit.js';

export interface TableOptions {
  /** Columns aligned left (by index); all others right. */
  leftAlign?: number[];
  /** The widest the table may be; default: outputColumns(). */
  maxWidth?: number;
}

const GAP = 2;
/** Narrower than this, a column is not wrapped further. */
const MIN_COLUMN = 6;

/** The longest word of a cell: narrower than that, the cell would have to be cut. */
const longestWord = (s: string) => Math.max(0, ...s.split(/ +/).map(visibleWidth));

function wrapCell(s: string, w: number, left: boolean): string[] {
  if (visibleWidth(s) <= w) return [s];
  return wrapLine(s, w, left ? 2 : 0);
}

function folded(header: string[], rows: string[][], max: number): string {
  const out: string[] = [];
  for (const r of rows) {
    out.push(...wrapLine(r[0] ?? '', max));
    for (let i = 1; i < header.length; i++) {
      const h = header[i]!.trim();
      const v = r[i] ?? '';
      if (v.trim() === '') continue;
      out.push(...wrapLine(`  ${h ? `${h}: ` : ''}${v.trim()}`, max));
    }
  }
  return out.join('\n');
}

export function renderTable(header: string[], rows: string[][], opts: TableOptions = {}): string {
  const left = new Set(opts.leftAlign ?? [0]);
  const max = opts.maxWidth ?? outputColumns();
  const widths = header.map((h, i) => Math.max(visibleWidth(h), ...rows.map((r) => visibleWidth(r[i] ?? ''))));
  const total = () => widths.reduce((a, b) => a + b, 0) + GAP * (widths.length - 1);
  if (total() > max) {
    // Narrow the widest column that can still wrap without cutting a word, one column at a time.
    const floor = header.map((h, i) => Math.max(MIN_COLUMN, longestWord(h), ...rows.map((r) => longestWord(r[i] ?? ''))));
    while (total() > max) {
      let widest = -1;
      for (let i = 0; i < widths.length; i++) if (widths[i]! > floor[i]! && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
      if (widest < 0) return folded(header, rows, max);
      widths[widest]!--;
    }
  }
  const pad = (s: string, i: number) => {
    const fill = ' '.repeat(Math.max(0, widths[i]! - visibleWidth(s)));
    return left.has(i) ? s + fill : fill + s;
  };
  const lines = (cells: string[]): string[] => {
    const wrapped = widths.map((w, i) => wrapCell(cells[i] ?? '', w, left.has(i)));
    const height = Math.max(...wrapped.map((c) => c.length));
    return Array.from({ length: height }, (_, k) =>
      wrapped
        .map((c, i) => pad(c[k] ?? '', i))
        .join(' '.repeat(GAP))
        .trimEnd(),
    );
  };
  return [...lines(header), widths.map((w) => '─'.repeat(w)).join(' '.repeat(GAP)), ...rows.flatMap(lines)].join('\n');
}
