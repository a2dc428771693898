// Progress on stderr. On a terminal: one line redrawn in place (experiment, bar, step, elapsed and remaining
// time) that fits the terminal's width, also after a resize. Elsewhere (a pipe, a log file, CI): one short
// status line per step, so that a long run is never silent; it fits the output's width too (100 columns unless
// --wide), the step's label cut before its repeat number when it would not.
import type { Progress } from '../experiments/contract/types.js';
import { cut, outputColumns, visibleWidth } from '../text/fit.js';

export function fmtDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/** A step's label in at most `room` columns: cut with "…" before its repeat number ("#2"), which is kept. */
export function fitLabel(label: string, room: number): string {
  if (visibleWidth(label) <= room) return label;
  const repeat = / #\d+$/.exec(label)?.[0] ?? '';
  const head = label.slice(0, label.length - repeat.length);
  const keep = room - 1 - repeat.length;
  return keep < 1 ? `${cut(label, Math.max(1, room - 1))[0]}…` : `${cut(head, keep)[0].trimEnd()}…${repeat}`;
}

/** The status line of a step where standard error is not a terminal, at most `cols` columns (Infinity: whole). */
export function statusLine(experiment: string, label: string, index: number, total: number, elapsedMs: number, cols = outputColumns()): string {
  const head = `forklab ${experiment}: [${index + 1}/${total}] `;
  const tail = ` (${fmtDuration(elapsedMs)})`;
  return `${head}${fitLabel(label, cols - visibleWidth(head) - tail.length)}${tail}`;
}

/** The progress line for a terminal `cols` wide: the bar shrinks first, then the step label is cut. */
export function progressLine(p: { experiment: string; index: number; total: number; label: string; elapsedMs: number; cols: number }): string {
  const done = p.total ? p.index / p.total : 0;
  const remaining = done > 0 ? (p.elapsedMs / done) * (1 - done) : NaN;
  const tail = `${p.index + 1}/${p.total}  ${fmtDuration(p.elapsedMs)}${Number.isFinite(remaining) ? `, ~${fmtDuration(remaining)} left` : ''}`;
  const room = Math.max(0, p.cols - 1);
  const fixed = visibleWidth(p.experiment) + 1 + tail.length;
  const labelWidth = visibleWidth(p.label);
  const barWidth = Math.max(0, Math.min(20, room - fixed - 2 - Math.min(labelWidth, 24)));
  const filled = Math.round(done * barWidth);
  const bar = barWidth >= 5 ? `${'█'.repeat(filled)}${'░'.repeat(barWidth - filled)} ` : '';
  const labelRoom = room - fixed - bar.length - 1;
  const label = labelRoom < 8 ? '' : labelWidth <= labelRoom ? ` ${p.label}` : ` ${cut(p.label, labelRoom - 2)[0]}…`;
  const line = `${p.experiment} ${bar}${tail.replace('  ', `${label}  `)}`;
  return visibleWidth(line) <= room ? line : room > 0 ? cut(line, room)[0] : '';
}

export function createProgress(experiment: string, stream: NodeJS.WriteStream = process.stderr): Progress & { end(): void } {
  const tty = Boolean(stream.isTTY) && !process.env.CI;
  const start = performance.now();
  let current = '';
  let last = { index: 0, total: 0, label: '' };
  let timer: NodeJS.Timeout | null = null;
  const draw = () => {
    current = progressLine({ experiment, ...last, elapsedMs: performance.now() - start, cols: stream.columns || 80 });
    stream.write(`\r\x1b[2K${current}`);
  };
  const clear = () => {
    if (tty && current) stream.write('\r\x1b[2K');
    current = '';
  };
  return {
    step(label, index, total) {
      last = { index, total, label };
      if (!tty) {
        stream.write(`${statusLine(experiment, label, index, total, performance.now() - start)}\n`);
        return;
      }
      // Shown only once a run has gone on for a moment: short runs stay quiet.
      if (!timer) timer = setInterval(draw, 250).unref();
      if (performance.now() - start > 1500) draw();
    },
    note(message) {
      clear();
      stream.write(`forklab ${experiment}: ${message}\n`);
      if (tty && last.total) draw();
    },
    end() {
      if (timer) clearInterval(timer);
      clear();
    },
  };
}
