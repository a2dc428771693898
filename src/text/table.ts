// Plain-text tables: right-aligned numbers, a header rule; cells may carry ANSI colour (not counted in widths).
// A text primitive every layer may use (the terminal views of src/report/, the reproduce summary of src/claims/).
export interface TableOptions {
  /** Columns aligned left (by index); all others right. */
  leftAlign?: number[];
}

/** An ANSI colour sequence (ESC [ ... m): not counted in a cell's width. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const width = (s: string) => [...s.replace(ANSI, '')].length;

export function renderTable(header: string[], rows: string[][], opts: TableOptions = {}): string {
  const left = new Set(opts.leftAlign ?? [0]);
  const widths = header.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ''))));
  const pad = (s: string, i: number) => {
    const fill = ' '.repeat(Math.max(0, widths[i]! - width(s)));
    return left.has(i) ? s + fill : fill + s;
  };
  const line = (cells: string[]) =>
    cells
      .map((c, i) => pad(c, i))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
