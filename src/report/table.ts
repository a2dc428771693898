// Plain-text tables for the terminal: right-aligned numbers, a header rule, optional colour.
export interface TableOptions {
  /** Columns aligned left (by index); all others right. */
  leftAlign?: number[];
}

const ANSI = /\x1b\[[0-9;]*m/g;
const width = (s: string) => [...s.replace(ANSI, '')].length;

export function renderTable(header: string[], rows: string[][], opts: TableOptions = {}): string {
  const left = new Set(opts.leftAlign ?? [0]);
  const widths = header.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ''))));
  const pad = (s: string, i: number) => {
    const fill = ' '.repeat(Math.max(0, widths[i]! - width(s)));
    return left.has(i) ? s + fill : fill + s;
  };
  const line = (cells: string[]) => cells.map((c, i) => pad(c, i)).join('  ').trimEnd();
  return [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** Microseconds from nanoseconds with sensible precision: 3.85 ms → "3850", 154.2 µs → "154", 9.53 µs → "9.53". */
export function fmtUs(ns: number): string {
  const us = ns / 1000;
  if (us >= 100) return us.toFixed(0);
  if (us >= 10) return us.toFixed(1);
  return us.toFixed(2);
}

export function fmtNs(ns: number): string {
  if (ns >= 100) return ns.toFixed(0);
  if (ns >= 10) return ns.toFixed(1);
  return ns.toFixed(2);
}

/** "412 µs [405–420]" style: a median with its interval. */
export function fmtUsCi(medianNs: number, lowNs: number, highNs: number): string {
  return `${fmtUs(medianNs)} [${fmtUs(lowNs)}–${fmtUs(highNs)}]`;
}

export function fmtPct(fraction: number): string {
  return `${(fraction * 100).toFixed(fraction < 0.1 ? 1 : 0)} %`;
}

export function fmtRatio(x: number): string {
  return x >= 10 ? `${x.toFixed(0)}×` : `${x.toFixed(2)}×`;
}
