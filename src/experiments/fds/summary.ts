// fds's parameters, configurations, summary and tables: each way × open descriptors × RLIMIT_NOFILE cell with its
// pooled median and interval, the two axes the configurations lie on (the limit at the fewest descriptors, the
// descriptors at the largest limit) with the least-squares cost per descriptor along each, and the tables a run shows
// after its conclusion.
import { linearFit } from '../../stats/regression.js';
import { fmtNs, fmtUsCi } from '../../text/format.js';
import { cellFigure, type CellFigure } from '../shared/measure.js';
import { blank, heading, note, table, type Block } from '../contract/view.js';
import type { ShownRun, Measurement } from '../contract/types.js';
import { measurementsOf } from '../contract/fields.js';
import { FDS_FIELDS, WAYS, type Way } from './configuration.js';

/** Descriptors kept free under the limit besides the opened ones: 0–2, /dev/null, the /proc/self/fd directory and spare. */
export const FD_MARGIN = 16;

export interface FdsParams {
  ways: Way[];
  /** Descriptors the parent holds open, ascending, at most the largest limit less FD_MARGIN (preflight caps them). */
  fds: number[];
  /** What --fds asked for, before any cap. */
  requestedFds: number[];
  /** Soft RLIMIT_NOFILE values the probe sets, ascending (--nofile's `hard` resolved). */
  nofile: number[];
  iterations: number;
  warmup: number;
  repeats: number;
}

export interface FdsConfig {
  fds: number;
  nofile: number;
}

/**
 * The configurations: every limit at the fewest descriptors (the limit axis), and every descriptor count at the
 * largest limit (the descriptor axis); the corner they share once.
 */
export function configsOf(p: Pick<FdsParams, 'fds' | 'nofile'>): FdsConfig[] {
  const fewest = Math.min(...p.fds);
  const largest = Math.max(...p.nofile);
  const out: FdsConfig[] = p.nofile.filter((nofile) => fewest + FD_MARGIN <= nofile).map((nofile) => ({ fds: fewest, nofile }));
  for (const fds of p.fds) if (!out.some((c) => c.fds === fds && c.nofile === largest)) out.push({ fds, nofile: largest });
  return out;
}

export interface FdsCell extends CellFigure {
  way: Way;
  fds: number;
  nofile: number;
  failedRepeats: number;
}

/** A way's cost along one axis: least squares through each value's pooled median. */
export interface FdsAxisFit {
  way: Way;
  /** 'nofile': against the limit, at `at` open descriptors; 'fds': against open descriptors, at the limit `at`. */
  axis: 'nofile' | 'fds';
  at: number;
  /** ns per descriptor of the limit, or per open descriptor. */
  nsPerFd: number;
  r2: number;
  points: number;
  /** The smallest and largest value along the axis, and the medians there. */
  from: number;
  to: number;
  fromMedianNs: number;
  toMedianNs: number;
}

export interface FdsSummary {
  cells: FdsCell[];
  fits: FdsAxisFit[];
  /** Ways the probe could not take on this system, and why (its info `unavailable`). */
  unavailable: { way: string; why: string }[];
}

/** The axis of the cells: the limit at the fewest descriptors, or the descriptors at the largest limit; null: fewer than two values. */
export function axisOf<C extends { fds: number; nofile: number }>(cells: readonly C[], axis: 'nofile' | 'fds'): { at: number; values: number[] } | null {
  if (cells.length === 0) return null;
  const at = axis === 'nofile' ? Math.min(...cells.map((c) => c.fds)) : Math.max(...cells.map((c) => c.nofile));
  const on = cells.filter((c) => (axis === 'nofile' ? c.fds : c.nofile) === at);
  const values = [...new Set(on.map((c) => c[axis]))].sort((a, b) => a - b);
  return values.length >= 2 ? { at, values } : null;
}

/** "fork-close-range: close_range: ENOSYS (…); …" as the probe reports it, per way. */
export function parseUnavailable(info: unknown): { way: string; why: string }[] {
  if (typeof info !== 'string' || info === '') return [];
  return info.split('; ').map((part) => {
    const i = part.indexOf(': ');
    return i < 0 ? { way: part, why: '' } : { way: part.slice(0, i), why: part.slice(i + 2) };
  });
}

export function summarizeFds(measurements: readonly Measurement[], seed: number): FdsSummary {
  const ms = measurementsOf(FDS_FIELDS, measurements);
  const cells: FdsCell[] = [];
  const keys = [...new Set(ms.map((m) => `${m.identity.fds}|${m.identity.nofile}`))];
  for (const way of WAYS)
    for (const k of keys) {
      const [fds, nofile] = k.split('|').map(Number) as [number, number];
      const mine = ms.filter((m) => m.identity.way === way && m.identity.fds === fds && m.identity.nofile === nofile);
      const fig = cellFigure(
        mine.filter((m) => m.state === 'ok' && m.stats),
        seed,
      );
      if (fig) cells.push({ way, fds, nofile, ...fig, failedRepeats: mine.filter((m) => m.state !== 'ok').length });
    }
  cells.sort((a, b) => WAYS.indexOf(a.way) - WAYS.indexOf(b.way) || a.fds - b.fds || a.nofile - b.nofile);
  const fits: FdsAxisFit[] = [];
  for (const axis of ['nofile', 'fds'] as const) {
    const ax = axisOf(cells, axis);
    if (!ax) continue;
    for (const way of WAYS) {
      const on = cells.filter((c) => c.way === way && (axis === 'nofile' ? c.fds : c.nofile) === ax.at).sort((a, b) => a[axis] - b[axis]);
      if (new Set(on.map((c) => c[axis])).size < 2) continue;
      const fit = linearFit(
        on.map((c) => c[axis]),
        on.map((c) => c.medianNs),
      );
      const first = on[0]!;
      const last = on.at(-1)!;
      fits.push({
        way,
        axis,
        at: ax.at,
        nsPerFd: fit.slope,
        r2: fit.r2,
        points: fit.n,
        from: first[axis],
        to: last[axis],
        fromMedianNs: first.medianNs,
        toMedianNs: last.medianNs,
      });
    }
  }
  const unavailable = new Map<string, string>();
  for (const m of ms) for (const u of parseUnavailable(m.info.unavailable)) unavailable.set(u.way, u.why);
  return { cells, fits, unavailable: [...unavailable].map(([way, why]) => ({ way, why })) };
}

/** A slope in ns, its sign before the digits fmtNs gives its size ("-90.9", not "-90.94"). */
const fmtSlopeNs = (ns: number) => `${ns < 0 ? '-' : ''}${fmtNs(Math.abs(ns))}`;

/** The table of one axis: a row per way, a column per value, and the cost per descriptor. */
function axisTable(s: FdsSummary, axis: 'nofile' | 'fds'): Block[] {
  const ax = axisOf(s.cells, axis);
  if (!ax) return [];
  const ways = WAYS.filter((w) => s.cells.some((c) => c.way === w));
  const cell = (way: Way, v: number) => s.cells.find((c) => c.way === way && c[axis] === v && (axis === 'nofile' ? c.fds : c.nofile) === ax.at);
  const rows = ways.map((way) => {
    const fit = s.fits.find((f) => f.way === way && f.axis === axis);
    return [
      way,
      ...ax.values.map((v) => {
        const c = cell(way, v);
        return c ? fmtUsCi(c.medianNs, c.ciLowNs, c.ciHighNs) : '—';
      }),
      fit ? fmtSlopeNs(fit.nsPerFd) : '—',
    ];
  });
  const title =
    axis === 'nofile'
      ? `Against RLIMIT_NOFILE, ${ax.at.toLocaleString('en-US')} descriptors open: median µs per start+wait [95 % CI]`
      : `Against descriptors open, RLIMIT_NOFILE ${ax.at.toLocaleString('en-US')}: median µs per start+wait [95 % CI]`;
  const header = ['way', ...ax.values.map((v) => (axis === 'nofile' ? `limit ${v}` : `${v} open`)), axis === 'nofile' ? 'ns per fd of limit' : 'ns per open fd'];
  return [heading(title), table(header, rows), blank];
}

/** What a run shows after its conclusion: the two axes, then how each figure was taken and what was left out. */
export function fdsTables(run: ShownRun<FdsSummary, FdsParams>): Block[] {
  const s = run.summary;
  const out: Block[] = [...axisTable(s, 'nofile'), ...axisTable(s, 'fds')];
  out.push(
    note(
      'Each figure: from fork() or posix_spawn() until waitpid() returned, the child exec’ing a static `return 0`. Every descriptor is opened O_CLOEXEC; ' +
        'fork-exec and posix-spawn leave them to exec (close-on-exec alone), the other ways close them in the child first. ' +
        '“ns per fd”: least-squares slope through the medians along the axis.',
    ),
  );
  for (const u of s.unavailable) out.push(note(`${u.way}: not measured on this system (${u.why}).`));
  return out;
}
