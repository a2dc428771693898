// Progress on stderr. On a terminal: one line redrawn in place (experiment, bar, step, elapsed and remaining
// time) that fits the terminal's width, also after a resize. Elsewhere (a pipe, a log file, CI): one short
// status line per step, so that a long run is never silent.
import type { Progress } from '../experiments/types.js';

export function fmtDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/** The progress line for a terminal `cols` wide: the bar shrinks first, then the step label is cut. */
export function progressLine(p: { experiment: string; index: number; total: number; label: string; elapsedMs: number; cols: number }): string {
  const done = p.total ? p.index / p.total : 0;
  const remaining = done > 0 ? (p.elapsedMs / done) * (1 - done) : NaN;
  const tail = `${p.index + 1}/${p.total}  ${fmtDuration(p.elapsedMs)}${Number.isFinite(remaining) ? `, ~${fmtDuration(remaining)} left` : ''}`;
  const room = Math.max(0, p.cols - 1);
  const fixed = p.experiment.length + 1 + tail.length;
  const barWidth = Math.max(0, Math.min(20, room - fixed - 2 - Math.min(p.label.length, 24)));
  const filled = Math.round(done * barWidth);
  const bar = barWidth >= 5 ? `${'█'.repeat(filled)}${'░'.repeat(barWidth - filled)} ` : '';
  const labelRoom = room - fixed - bar.length - 1;
  const label = labelRoom < 8 ? '' : p.label.length <= labelRoom ? ` ${p.label}` : ` ${p.label.slice(0, labelRoom - 2)}…`;
  const line = `${p.experiment} ${bar}${tail.replace('  ', `${label}  `)}`;
  return line.length > room ? line.slice(0, room) : line;
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
        stream.write(`forklab ${experiment}: [${index + 1}/${total}] ${label} (${fmtDuration(performance.now() - start)})\n`);
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
