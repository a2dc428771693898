// A one-line progress display on stderr: experiment, step, elapsed and remaining time. Silent when stderr
// is not a terminal (notes are still printed there, one a line).
import type { Progress } from '../experiments/types.js';

export function fmtDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

export function createProgress(experiment: string, stream: NodeJS.WriteStream = process.stderr): Progress & { end(): void } {
  const tty = Boolean(stream.isTTY) && !process.env.CI;
  const start = performance.now();
  let current = '';
  let last = { index: 0, total: 0, label: '' };
  let timer: NodeJS.Timeout | null = null;
  const draw = () => {
    const elapsed = performance.now() - start;
    const { index, total, label } = last;
    const done = total ? index / total : 0;
    const remaining = done > 0 ? (elapsed / done) * (1 - done) : NaN;
    const width = 20;
    const filled = Math.round(done * width);
    const bar = '█'.repeat(filled) + '░'.repeat(width - filled);
    const line = `${experiment} ${bar} ${index + 1}/${total} ${label}  ${fmtDuration(elapsed)}${Number.isFinite(remaining) ? `, ~${fmtDuration(remaining)} left` : ''}`;
    const cols = stream.columns ?? 100;
    current = line.length > cols - 1 ? line.slice(0, cols - 1) : line;
    stream.write(`\r\x1b[2K${current}`);
  };
  const clear = () => {
    if (tty && current) stream.write('\r\x1b[2K');
    current = '';
  };
  return {
    step(label, index, total) {
      last = { index, total, label };
      if (!tty) return;
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
