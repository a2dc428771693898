// An experiment's view of a run (src/experiments/contract/view.ts) as terminal text: headings bold, notes dim, tables
// aligned, the latency chart and bars drawn in characters. Colour only when asked.
import pc from 'picocolors';
import type { Block } from '../experiments/contract/view.js';
import { renderTable } from '../text/table.js';
import { asciiChart } from './ascii-chart.js';
import { textBars } from './bar-chart.js';

const plain = (s: string) => s;

function renderBlock(b: Block, color: boolean): string {
  switch (b.kind) {
    case 'conclusion':
      return b.lines.map((l) => (color ? pc.bold(l) : l)).join('\n');
    case 'heading':
      return color ? pc.bold(b.text) : b.text;
    case 'note':
      return color ? pc.dim(b.text) : plain(b.text);
    case 'text':
      return b.text;
    case 'table':
      return renderTable(b.header, b.rows, { leftAlign: b.leftAlign });
    case 'latency-chart':
      return asciiChart(b.points, { width: b.width, height: b.height, color, order: b.order });
    case 'bar-chart':
      return textBars(b);
  }
}

/** The whole view, one block after another. */
export function renderView(blocks: readonly Block[], opts: { color: boolean }): string {
  return blocks.map((b) => renderBlock(b, opts.color)).join('\n');
}
