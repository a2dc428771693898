// A small terminal chart of spawn latency against parent RSS: one symbol (and colour) per method, lines between
// a method's points, axes labelled in µs and MB, a legend. Plain characters; colour only when asked.
import { createColors } from 'picocolors';

export interface AsciiCell {
  method: string;
  rssMb: number;
  medianNs: number;
}

export interface AsciiChartOptions {
  /** Total width in characters, axis labels included (at least 30). */
  width: number;
  /** Most rows of the plot area, axes excluded: the chart uses the largest 4k+1 rows that fit (at least 5). */
  height: number;
  color: boolean;
  /** The methods in the order the legend lists them (others follow in the order first seen). */
  order?: readonly string[];
}

const SYMBOLS = ['o', '*', '+', 'x', '@', '%', '&', '$'];
/** Where points of several methods fall on one character. */
const SHARED = '#';

/** The smallest of 1, 1.2, 1.6, 2, 3, 4, 6, 8 times a power of ten that is at least x (its quarters are round). */
function niceCeil(x: number): number {
  if (x <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(x));
  for (const m of [1, 1.2, 1.6, 2, 3, 4, 6, 8, 10]) if (m * p >= x) return m * p;
  return 10 * p;
}

const SHARED_CELL = 1e9;

const fmtAxis = (v: number) => (v >= 100 || Number.isInteger(v) ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

type Cell = number | null;

/**
 * The plot area: grid[r][c] = index of the method drawn there, negative for a line (−1 − index), null for empty,
 * SHARED_CELL where points of several methods fall. Points are drawn over lines.
 */
function plotGrid(
  pts: readonly AsciiCell[],
  methods: readonly string[],
  at: { col: (x: number) => number; row: (us: number) => number },
  height: number,
  plotWidth: number,
): Cell[][] {
  const grid: Cell[][] = Array.from({ length: height }, () => Array<Cell>(plotWidth).fill(null));
  methods.forEach((m, mi) => {
    const mine = pts.filter((c) => c.method === m).sort((a, b) => a.rssMb - b.rssMb);
    for (let i = 1; i < mine.length; i++) {
      const [c0, r0, c1, r1] = [at.col(mine[i - 1]!.rssMb), at.row(mine[i - 1]!.medianNs / 1000), at.col(mine[i]!.rssMb), at.row(mine[i]!.medianNs / 1000)];
      const steps = Math.max(Math.abs(c1 - c0), Math.abs(r1 - r0), 1);
      for (let s = 1; s < steps; s++) {
        const r = Math.round(r0 + ((r1 - r0) * s) / steps);
        const c = Math.round(c0 + ((c1 - c0) * s) / steps);
        if (grid[r]![c] === null) grid[r]![c] = -1 - mi;
      }
    }
  });
  methods.forEach((m, mi) => {
    for (const c of pts.filter((p) => p.method === m)) {
      const line = grid[at.row(c.medianNs / 1000)]!;
      const here = line[at.col(c.rssMb)]!;
      line[at.col(c.rssMb)] = here !== null && here >= 0 && here !== mi ? SHARED_CELL : mi;
    }
  });
  return grid;
}

/** The x axis: a tick under every RSS value whose label fits beside its neighbours; the first and last always show. */
function xAxisLines(xs: readonly number[], col: (x: number) => number, plotWidth: number, labelWidth: number): string[] {
  const axis = Array<string>(plotWidth).fill('─');
  const labels = Array<string>(plotWidth).fill(' ');
  const place = (x: number) => {
    const text = String(x);
    const start = Math.max(0, Math.min(col(x) - Math.floor(text.length / 2), labels.length - text.length));
    return { x, text, start, end: start + text.length - 1 };
  };
  const last = place(xs[xs.length - 1]!);
  const shown = [last];
  let end = -2;
  for (const x of xs.slice(0, -1)) {
    const p = place(x);
    if (p.start > end + 1 && p.end < last.start - 1) {
      shown.push(p);
      end = p.end;
    }
  }
  for (const p of shown) {
    axis[col(p.x)] = '┬';
    for (let k = 0; k < p.text.length; k++) labels[p.start + k] = p.text[k]!;
  }
  const indent = ' '.repeat(labelWidth + 2);
  return [`${' '.repeat(labelWidth)} └${axis.join('')}`, `${indent}${labels.join('').trimEnd()}`, `${indent}${'parent RSS, MB'.padStart(plotWidth)}`];
}

/** The legend, wrapped to the plot's width. */
function legendLines(entries: readonly { shown: string; len: number }[], plotWidth: number, indent: string): string[] {
  const lines: string[] = [];
  let line = '';
  let len = 0;
  for (const e of entries) {
    if (len > 0 && len + 3 + e.len > plotWidth) {
      lines.push(indent + line);
      line = '';
      len = 0;
    }
    line += (len ? '   ' : '') + e.shown;
    len += (len ? 3 : 0) + e.len;
  }
  if (len) lines.push(indent + line);
  return lines;
}

/**
 * Median latency (µs, linear from 0) against parent RSS (MB, linear) per method, e.g. for the cells of one THP mode.
 * Points are drawn over lines; where points of two methods share a character it shows '#'.
 */
export function asciiChart(cells: readonly AsciiCell[], opts: AsciiChartOptions): string {
  const pts = cells.filter((c) => Number.isFinite(c.rssMb) && Number.isFinite(c.medianNs) && c.medianNs >= 0);
  if (pts.length === 0) return '(no data to chart)';
  const paint = createColors(opts.color);
  const palette = [paint.red, paint.green, paint.blue, paint.magenta, paint.cyan, paint.yellow, paint.white, paint.gray];
  const seen = [...new Set(pts.map((c) => c.method))];
  const order = opts.order ?? [];
  const methods = [...order.filter((m) => seen.includes(m)), ...seen.filter((m) => !order.includes(m))];
  const height = Math.max(5, 4 * Math.floor((Math.floor(opts.height) - 1) / 4) + 1);

  const yMax = niceCeil(Math.max(...pts.map((c) => c.medianNs / 1000)));
  const yTicks = [0, 1, 2, 3, 4].map((k) => ({ row: ((4 - k) * (height - 1)) / 4, label: fmtAxis((yMax * k) / 4) }));
  const labelWidth = Math.max(...yTicks.map((t) => t.label.length), 2);
  const plotWidth = Math.max(20, Math.floor(opts.width) - labelWidth - 2);

  const xs = [...new Set(pts.map((c) => c.rssMb))].sort((a, b) => a - b);
  const xMin = xs[0]!;
  const xMax = xs[xs.length - 1]!;
  const col = (x: number) => (xMax === xMin ? Math.floor(plotWidth / 2) : Math.round(((x - xMin) / (xMax - xMin)) * (plotWidth - 1)));
  const row = (us: number) => Math.min(height - 1, Math.max(0, Math.round((1 - us / yMax) * (height - 1))));
  const grid = plotGrid(pts, methods, { col, row }, height, plotWidth);

  const glyph = (v: Cell) => {
    if (v === null) return ' ';
    if (v === SHARED_CELL) return paint.bold(SHARED);
    const mi = v >= 0 ? v : -1 - v;
    const colour = palette[mi % palette.length]!;
    return v >= 0 ? colour(SYMBOLS[mi % SYMBOLS.length]!) : paint.dim(colour('·'));
  };
  const lines: string[] = [`${' '.repeat(labelWidth - 2)}µs`];
  for (let r = 0; r < height; r++) {
    const tick = yTicks.find((t) => t.row === r);
    const label = tick ? tick.label.padStart(labelWidth) : ' '.repeat(labelWidth);
    lines.push(`${label} ${tick ? '┤' : '│'}${grid[r]!.map(glyph).join('')}`);
  }
  lines.push(...xAxisLines(xs, col, plotWidth, labelWidth));
  const entries = methods.map((m, mi) => ({ shown: `${glyph(mi)} ${m}`, len: m.length + 2 }));
  if (grid.some((r) => r.includes(SHARED_CELL))) entries.push({ shown: `${glyph(SHARED_CELL)} several`, len: 9 });
  lines.push(...legendLines(entries, plotWidth, ' '.repeat(labelWidth + 2)));
  return lines.join('\n');
}
