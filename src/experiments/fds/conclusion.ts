// fds's conclusion, said before any table: which ways grow with RLIMIT_NOFILE (a loop over the limit pays for the
// limit, not for what is open) and by how much per descriptor of the limit, how the descriptors actually open cost
// every way, and which way that closes in the child is cheapest where both are largest; never more than the
// intervals establish.
import { median } from '../../stats/descriptive.js';
import { fmtNs } from '../../text/format.js';
import { cellRatio, fmtRatioCi, fmtTime, fmtTimes, poolOfCells, ratioSays, runCells, type CellRatio, type RunCell } from '../shared/conclude.js';
import type { ShownRun } from '../contract/types.js';
import { WAYS, type Way } from './configuration.js';
import { axisOf, type FdsParams, type FdsSummary } from './summary.js';

/** How the ways are said in words. */
export const WAY_WORDS: Readonly<Record<Way, string>> = {
  'fork-exec': 'fork+exec with close-on-exec alone',
  'fork-close-loop': 'the close() loop',
  'fork-fcntl-loop': 'the fcntl loop',
  'fork-proc-fd': 'the /proc/self/fd walk',
  'fork-close-range': 'close_range',
  'posix-spawn': 'posix_spawn with close-on-exec alone',
  'posix-spawn-addclose': "posix_spawn's close action per descriptor",
  'posix-spawn-closefrom': 'posix_spawn with addclosefrom_np',
};

/** The ways that leave the closing to exec: every descriptor O_CLOEXEC, nothing done in the child. */
const EXEC_CLOSES: readonly Way[] = ['fork-exec', 'posix-spawn'];

const list = (ws: readonly string[]) => (ws.length <= 1 ? (ws[0] ?? '') : `${ws.slice(0, -1).join(', ')} and ${ws.at(-1)}`);
const n = (x: number) => x.toLocaleString('en-US');

/** One to three lines: the limit, the descriptors open, the cheapest way to close where both are largest. */
export function fdsConclusion(run: ShownRun<FdsSummary, FdsParams>, seed = 1): string[] {
  const cells = runCells(
    run.measurements,
    (m) => `${m.series}|${String(m.identity.fds)}|${String(m.identity.nofile)}`,
    (m) => `${String(m.identity.fds)}|${String(m.identity.nofile)}`,
  );
  if (cells.size === 0) return ['No configuration was measured: nothing to conclude.'];
  const pool = poolOfCells(cells.values());
  const cell = (w: Way, fds: number, nofile: number): RunCell | undefined => cells.get(`${w}|${fds}|${nofile}`);
  const med = (c: RunCell) => median(c.repeats.flat());
  const ways = WAYS.filter((w) => run.summary.cells.some((c) => c.way === w));
  const lines: string[] = [];

  // 1. against the limit, at the fewest descriptors open
  const lim = axisOf(run.summary.cells, 'nofile');
  if (lim) {
    const lo = lim.values[0]!;
    const hi = lim.values.at(-1)!;
    const along = ways.flatMap((w) => {
      const a = cell(w, lim.at, lo);
      const b = cell(w, lim.at, hi);
      return a && b ? [{ w, a, b, r: cellRatio(b, a, pool, seed), fit: run.summary.fits.find((f) => f.way === w && f.axis === 'nofile') }] : [];
    });
    const grows = along.filter((x) => ratioSays(x.r) === 'above' && (x.fit?.nsPerFd ?? 0) > 0).sort((x, y) => y.r.ratio - x.r.ratio);
    const rest = along.filter((x) => !grows.includes(x));
    const head = `Raising RLIMIT_NOFILE from ${n(lo)} to ${n(hi)} (${n(lim.at)} descriptors open)`;
    // the dearest with its span and cost per descriptor of the limit, the others with their factor
    const growing = grows.map((x, i) =>
      i === 0
        ? `${WAY_WORDS[x.w]} ${fmtTime(med(x.a))} → ${fmtTime(med(x.b))} (${fmtTimes(x.r.ratio)}${fmtRatioCi(x.r)}, ${fmtNs(x.fit!.nsPerFd)} ns per descriptor of the limit)`
        : `${WAY_WORDS[x.w]} ${fmtTimes(x.r.ratio)}${fmtRatioCi(x.r)}`,
    );
    const others = rest.length > 2 && grows.length ? `the other ${rest.length} ways` : list(rest.map((x) => WAY_WORDS[x.w]));
    const level = rest.length ? ` ${others} show no established growth (${range(rest.flatMap((x) => [med(x.a), med(x.b)]))}).` : '';
    lines.push(grows.length ? `${head} makes ${list(growing)} dearer;${level}` : `${head}:${level || ' nothing measured at both limits.'}`);
  }

  // 2. against the descriptors open, at the largest limit
  const open = axisOf(run.summary.cells, 'fds');
  if (open) {
    const lo = open.values[0]!;
    const hi = open.values.at(-1)!;
    const along = ways.flatMap((w) => {
      const a = cell(w, lo, open.at);
      const b = cell(w, hi, open.at);
      return a && b ? [{ w, r: cellRatio(b, a, pool, seed), fit: run.summary.fits.find((f) => f.way === w && f.axis === 'fds') }] : [];
    });
    const grows = along.filter((x) => ratioSays(x.r) === 'above').sort((x, y) => x.r.ratio - y.r.ratio);
    const rest = along.filter((x) => !grows.includes(x));
    const head = `From ${n(lo)} to ${n(hi)} descriptors open (RLIMIT_NOFILE ${n(open.at)})`;
    const say = (x: { w: Way; r: CellRatio }) => `${WAY_WORDS[x.w]} ${fmtTimes(x.r.ratio)}${fmtRatioCi(x.r)}`;
    const perFd = grows.map((x) => x.fit?.nsPerFd ?? 0).filter((v) => v > 0);
    const lowest = Math.min(...perFd);
    const highest = Math.max(...perFd);
    const cost = perFd.length ? ` (${lowest === highest ? fmtNs(lowest) : `${fmtNs(lowest)}–${fmtNs(highest)}`} ns per open descriptor)` : '';
    let text: string;
    if (grows.length === 0) text = `${head} no way's growth is established.`;
    else if (grows.length === 1) text = `${head} ${WAY_WORDS[grows[0]!.w]} grows ${fmtTimes(grows[0]!.r.ratio)}${fmtRatioCi(grows[0]!.r)}${cost}`;
    else text = `${head} ${grows.length === along.length ? 'every way' : `${grows.length} of ${along.length} ways`} grow${cost}: from ${say(grows[0]!)} to ${say(grows.at(-1)!)}`;
    if (rest.length && grows.length) text += `; ${rest.length > 2 ? `the other ${rest.length} ways` : list(rest.map((x) => WAY_WORDS[x.w]))}: growth not established`;
    if (grows.length) text += '.';
    lines.push(text);
  }

  // 3. where both are largest: the cheapest and the dearest way that closes in the child
  const fds = Math.max(...run.summary.cells.map((c) => c.fds));
  const nofile = Math.max(...run.summary.cells.map((c) => c.nofile));
  const closing = ways
    .filter((w) => !EXEC_CLOSES.includes(w))
    .flatMap((w) => {
      const c = cell(w, fds, nofile);
      return c ? [{ w, c }] : [];
    });
  if (closing.length >= 2) {
    const best = closing.reduce((a, b) => (med(b.c) < med(a.c) ? b : a));
    const worst = closing.reduce((a, b) => (med(b.c) > med(a.c) ? b : a));
    const r = cellRatio(worst.c, best.c, pool, seed);
    const alone = EXEC_CLOSES.flatMap((w) => {
      const c = cell(w, fds, nofile);
      return c ? [`${w === 'fork-exec' ? 'fork+exec' : 'posix_spawn'} ${fmtTime(med(c))}`] : [];
    });
    const at = `At ${n(fds)} descriptors open and RLIMIT_NOFILE ${n(nofile)}`;
    const ratio = ratioSays(r) === 'above' ? `${fmtTimes(r.ratio)}${fmtRatioCi(r)} as dear` : `${fmtTimes(r.ratio)}${fmtRatioCi(r)}, a difference not established`;
    lines.push(
      `${at} the cheapest way to close in the child is ${WAY_WORDS[best.w]} (${fmtTime(med(best.c))}), the dearest ${WAY_WORDS[worst.w]}: ${ratio}` +
        `${alone.length ? `; close-on-exec alone: ${alone.join(', ')}` : ''}.`,
    );
  }
  return lines.slice(0, 3);
}

function range(ns: readonly number[]): string {
  return `${fmtTime(Math.min(...ns))}–${fmtTime(Math.max(...ns))}`;
}
