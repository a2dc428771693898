// A bar-chart block (src/experiments/contract/view.ts) drawn two ways: in characters for a terminal and Markdown, and as an
// inline SVG for the HTML report (no script; every label escaped). Bars are drawn to scale from 0, in the order given.
import type { BarChart } from '../experiments/contract/view.js';
import { endColumns, padColumns, visibleWidth } from '../text/fit.js';

/** The widest a label may be, in terminal columns (a longer one keeps its end). */
const LABEL_COLUMNS = 48;

/** One line per bar: its label, a bar of █ (▏ for a value above 0 too small to draw), its value. */
export function textBars(c: BarChart): string {
  const max = Math.max(0, ...c.bars.map((b) => b.value));
  const labels = c.bars.map((b) => endColumns(b.label, LABEL_COLUMNS));
  const pad = Math.max(0, ...labels.map(visibleWidth));
  return c.bars
    .map((b, i) => {
      const n = max > 0 ? Math.round((b.value / max) * c.width) : 0;
      const bar = n > 0 ? '█'.repeat(n) : b.value > 0 ? '▏' : '';
      return `${padColumns(labels[i]!, pad)}  ${bar}${bar ? ' ' : ''}${b.text}`;
    })
    .join('\n');
}

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => ESC[ch]!);

/** The same bars as an SVG: labels on the left, bars to scale, each value at its bar's end. */
export function svgBars(c: BarChart): string {
  const row = 22;
  const labelW = 360;
  const barW = 420;
  const width = labelW + barW + 90;
  const height = c.bars.length * row + 28;
  const max = Math.max(0, ...c.bars.map((b) => b.value));
  const rows = c.bars.map((b, i) => {
    const y = 8 + i * row;
    const w = max > 0 ? Math.max(b.value > 0 ? 1 : 0, (b.value / max) * barW) : 0;
    return (
      `<text x="${labelW - 8}" y="${y + 14}" text-anchor="end">${esc(endColumns(b.label, 60))}</text>` +
      `<rect x="${labelW}" y="${y + 3}" width="${w.toFixed(1)}" height="${row - 8}" fill="#4c78a8"><title>${esc(`${b.label}: ${b.text}`)}</title></rect>` +
      `<text x="${(labelW + w + 6).toFixed(1)}" y="${y + 14}">${esc(b.text)}</text>`
    );
  });
  const axis = `<text x="${labelW}" y="${height - 6}" fill="#59636e">0</text><text x="${labelW + barW}" y="${height - 6}" text-anchor="end" fill="#59636e">${esc(c.unit)}</text>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui,sans-serif" font-size="12">${rows.join('')}${axis}</svg>`;
}
