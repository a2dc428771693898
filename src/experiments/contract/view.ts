// What an experiment shows of a run, as data: headings, tables, lines of text, notes, the latency chart and bars.
// The experiment decides what to show; src/report/ decides how (terminal, Markdown, HTML), so every view of
// a run is built from the same tables.

/** A chart of median latency against parent RSS, one line per method (the terminal draws it in characters). */
export interface LatencyChart {
  kind: 'latency-chart';
  points: { method: string; rssMb: number; medianNs: number }[];
  /** The methods in the order the legend lists them. */
  order: readonly string[];
  width: number;
  height: number;
}

/** Horizontal bars, one labelled value each (a trace's saving by call site), largest first as given. */
export interface BarChart {
  kind: 'bar-chart';
  /** value: in `unit`, drawn to scale; text: the value as a table would print it ("1.2 s"). */
  bars: { label: string; value: number; text: string }[];
  unit: string;
  /** Characters of the longest bar in a terminal. */
  width: number;
}

/**
 * What a run found, said first: one to three lines a person can repeat ("fork+exec grows 25.6 µs per MB …"), in
 * words and numbers, never more than the data says. Every output puts it before any table or chart.
 */
export interface Conclusion {
  kind: 'conclusion';
  lines: string[];
}

export type Block =
  | Conclusion
  /** A title line (bold in the terminal). */
  | { kind: 'heading'; text: string }
  /** A line of plain text; '' is an empty line. */
  | { kind: 'text'; text: string }
  /** A side remark: method, source of a figure, what the article found (dim in the terminal). */
  | { kind: 'note'; text: string }
  /** A table of formatted cells; columns in leftAlign are aligned left, the others right. */
  | { kind: 'table'; header: string[]; rows: string[][]; leftAlign: number[] }
  | LatencyChart
  | BarChart;

export const conclusion = (lines: string[]): Block => ({ kind: 'conclusion', lines });
export const heading = (text: string): Block => ({ kind: 'heading', text });
export const text = (line: string): Block => ({ kind: 'text', text: line });
export const note = (line: string): Block => ({ kind: 'note', text: line });
export const blank: Block = { kind: 'text', text: '' };
export const table = (header: string[], rows: string[][], opts: { leftAlign?: number[] } = {}): Block => ({
  kind: 'table',
  header,
  rows,
  leftAlign: opts.leftAlign ?? [0],
});
