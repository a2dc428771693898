// Experiment "deadlock" (article 003, "fork 带来的死锁问题"): fork while another thread holds a pthread mutex.
// The child is a copy of the forking thread only, so the mutex stays locked in it for ever: without
// pthread_atfork the child cannot take it (it would deadlock); with pthread_atfork(prepare: lock, parent:
// unlock, child: unlock) it can, and fork itself waits for the other thread to release the lock.
import { constants as osConstants } from 'node:os';
import { experimentEntry } from '../command-lines.js';
import { fixedPlan } from '../../runner/plans.js';
import { sweep } from '../shared/sweep.js';
import { probeFailedWarnings } from '../shared/failures.js';
import { median } from '../../stats/descriptive.js';
import { finishRun, infoNumber, measurementsFrom } from '../shared/measure.js';
import { parseChoiceList, parseInteger, str } from '../../text/parse.js';
import { countOption, parseCount, type CountSpecs } from '../shared/counts.js';
import { heading, text, note, blank, table, conclusion, type Block } from '../contract/view.js';
import { MICROSECONDS_PER_CALL, type Experiment, type Measurement, type Scalar, type Warning } from '../contract/types.js';
import { measurementsOf } from '../contract/fields.js';
import { VARIANTS, type Variant, DEADLOCK_FIELDS, DEADLOCK_IDENTITY, type DeadlockFields, type DeadlockObserved } from './configuration.js';

export interface DeadlockParams {
  variants: Variant[];
  /** How long the worker thread holds the mutex each time, in ms. */
  holdMs: number;
  /** The child's pthread_mutex_timedlock timeout; for plain-lock, how long the parent waits before killing it. ms. */
  childTimeoutMs: number;
  /** Fresh probe processes per variant (one fork each), interleaved. */
  repeats: number;
}

export interface DeadlockVariantSummary {
  variant: Variant;
  /** Repeats whose probe finished (the rest failed; see warnings). */
  repeats: number;
  failedRepeats: number;
  acquired: number;
  /** Children that reported back through the pipe (a hung child never does). */
  reported: number;
  /** Children still alive at their deadline; each was killed with SIGKILL and reaped. */
  hung: number;
  killed: number;
  /** The child's wait for the lock (for a child that never reported: how long the parent watched it blocked). */
  medianChildWaitNs: number | null;
  /** The fork() call in the parent, atfork handlers included. */
  medianForkWaitNs: number | null;
  /** What pthread_mutex_timedlock returned in the children that reported, as errno names ("0" = success). */
  childResults: string[];
}

export interface DeadlockSummary {
  variants: DeadlockVariantSummary[];
  /** The article's finding on this machine: without atfork no child got the lock, with atfork every child did, plain-lock hung. Null when a variant is missing. */
  articleReproduced: boolean | null;
}

const DEFAULTS = { variants: VARIANTS.join(','), holdMs: '50', childTimeoutMs: '500', repeats: '3' };
const COUNTS: CountSpecs = {
  repeats: { description: 'fresh probe processes per variant (one fork each), interleaved', defaultValue: DEFAULTS.repeats, unit: 'processes', max: 1000 },
};
/** The probe gives a timedlock child this long past its own deadline to report (native/case_deadlock.c). */
const MARGIN_MS = 250;

const ERRNO_NAMES = new Map<number, string>(Object.entries(osConstants.errno).map(([k, v]) => [v, k]));
export function errnoName(n: number): string {
  return n === 0 ? '0' : (ERRNO_NAMES.get(n) ?? `errno ${n}`);
}

/** Per-probe timeout: the backstop if the probe's own bounded wait failed. */
function probeTimeoutMs(p: DeadlockParams): number {
  return 10_000 + p.holdMs * 4 + (p.childTimeoutMs + MARGIN_MS) * 2;
}

const col = (m: Measurement, name: string): number | null => m.columns[name]?.[0] ?? null;

function fieldsFor(variant: Variant, p: DeadlockParams, m: Measurement | null, probePid: Scalar): DeadlockFields {
  const ok = m !== null && m.state === 'ok';
  const flag = (name: string) => (ok ? col(m, name) === 1 : null);
  const errno = ok && col(m, 'reported') === 1 ? col(m, 'childErrno') : null;
  const identity = { variant, holdMs: p.holdMs, childTimeoutMs: p.childTimeoutMs };
  const observed: DeadlockObserved = {
    childAcquired: flag('acquired'),
    childHung: flag('hung'),
    childKilled: flag('killed'),
    childReported: flag('reported'),
    childResult: errno === null ? null : errnoName(errno),
    childWaitNs: ok ? (m.samplesNs[0] ?? null) : null,
    forkWaitNs: ok ? col(m, 'forkWaitNs') : null,
    childPid: ok ? col(m, 'childPid') : null,
    probePid,
  };
  return { identity, observed };
}

export function summarizeDeadlock(measurements: readonly Measurement[]): DeadlockSummary {
  const ms = measurementsOf(DEADLOCK_FIELDS, measurements);
  const variants: DeadlockVariantSummary[] = [];
  for (const variant of VARIANTS) {
    const mine = ms.filter((m) => m.identity.variant === variant);
    if (mine.length === 0) continue;
    const ok = mine.filter((m) => m.state === 'ok');
    const count = (f: keyof DeadlockObserved) => ok.filter((m) => m.observed[f] === true).length;
    const waits = ok.flatMap((m) => m.samplesNs);
    const forks = ok.flatMap((m) => m.columns.forkWaitNs ?? []);
    variants.push({
      variant,
      repeats: ok.length,
      failedRepeats: mine.length - ok.length,
      acquired: count('childAcquired'),
      reported: count('childReported'),
      hung: count('childHung'),
      killed: count('childKilled'),
      medianChildWaitNs: waits.length ? median(waits) : null,
      medianForkWaitNs: forks.length ? median(forks) : null,
      childResults: [...new Set(ok.map((m) => m.observed.childResult).filter((x): x is string => typeof x === 'string'))],
    });
  }
  const get = (v: Variant) => variants.find((x) => x.variant === v && x.repeats > 0);
  const without = get('without-atfork');
  const withAtfork = get('with-atfork');
  const plain = get('plain-lock');
  const articleReproduced = without && withAtfork ? without.acquired === 0 && withAtfork.acquired === withAtfork.repeats && (!plain || plain.hung === plain.repeats) : null;
  return { variants, articleReproduced };
}

function warningsFor(run: { measurements: Measurement[]; summary: DeadlockSummary }, p: DeadlockParams): Warning[] {
  const w: Warning[] = [];
  for (const v of run.summary.variants) {
    if (v.repeats === 0) continue;
    if (v.variant !== 'with-atfork' && v.acquired > 0)
      w.push({
        code: 'no-deadlock',
        message: `${v.variant}: in ${v.acquired} of ${v.repeats} repeats the child took a mutex that another thread held at fork. This C library hands the child an unlocked mutex (not glibc's behaviour); the article's deadlock does not happen here. Report it with the --json document.`,
      });
    if (v.variant === 'with-atfork' && v.acquired < v.repeats)
      w.push({
        code: 'atfork-did-not-help',
        message: `with-atfork: the child could not take the lock in ${v.repeats - v.acquired} of ${v.repeats} repeats (results: ${v.childResults.join(', ') || 'no report'}). On a loaded machine raise --child-timeout-ms (now ${p.childTimeoutMs} ms) and rerun.`,
      });
    if (v.variant !== 'plain-lock' && v.hung > 0)
      w.push({
        code: 'child-late',
        message: `${v.variant}: ${v.hung} of ${v.repeats} children did not report within --child-timeout-ms + ${MARGIN_MS} ms and were killed; the machine is heavily loaded. Rerun on a quieter machine or with a larger --child-timeout-ms.`,
      });
    if (v.variant === 'plain-lock' && v.hung < v.repeats)
      w.push({
        code: 'plain-lock-returned',
        message: `plain-lock: pthread_mutex_lock returned in the child in ${v.repeats - v.hung} of ${v.repeats} repeats; the lock was not inherited as held. Report it with the --json document.`,
      });
  }
  w.push(...probeFailedWarnings(run.measurements, (m) => `${m.series}, repeat ${m.repeat}`));
  return w;
}

/** "500 ms", "48.2 ms", "3.10 µs", "812 ns". */
export function fmtDuration(ns: number): string {
  if (ns >= 1e6) return ns >= 1e8 ? `${(ns / 1e6).toFixed(0)} ms` : `${(ns / 1e6).toFixed(1)} ms`;
  if (ns >= 1e3) return ns >= 1e5 ? `${(ns / 1e3).toFixed(0)} µs` : `${(ns / 1e3).toFixed(ns >= 1e4 ? 1 : 2)} µs`;
  return `${ns.toFixed(0)} ns`;
}

function verdict(v: DeadlockVariantSummary, p: DeadlockParams): string {
  const of = `${v.repeats}/${v.repeats} repeats`;
  const wait = v.medianChildWaitNs === null ? '?' : fmtDuration(v.medianChildWaitNs);
  const fork = v.medianForkWaitNs === null ? '?' : fmtDuration(v.medianForkWaitNs);
  if (v.variant === 'without-atfork' && v.acquired === 0)
    return `${of}: the child could NOT take the lock (pthread_mutex_timedlock → ${v.childResults.join('/') || 'no answer'} after ${wait}) — it would deadlock`;
  if (v.variant === 'with-atfork' && v.acquired === v.repeats)
    return `${of}: the child took the lock in ${wait}; fork() waited ${fork} for the worker to release it (prepare handler)`;
  if (v.variant === 'plain-lock' && v.hung === v.repeats)
    return `${of}: the child blocked in pthread_mutex_lock for good; killed (SIGKILL) after ${p.childTimeoutMs} ms and reaped (${v.killed}/${v.repeats})`;
  return `${v.acquired}/${v.repeats} repeats: the child took the lock; ${v.hung} hung and were killed (see warnings)`;
}

export const deadlockExperiment: Experiment<DeadlockParams, DeadlockSummary, DeadlockFields> = {
  ...experimentEntry('deadlock'),
  // Its samples are how long a child took to end (or time out), not a cost to compare: no noise figures.
  figureKeys: null,
  cases: ['deadlock'],
  identity: DEADLOCK_IDENTITY,
  series: VARIANTS,
  valueOrder: { variant: VARIANTS },
  unit: MICROSECONDS_PER_CALL,
  figures: 'outcomes',
  chart: null,
  presets: {
    full: { variants: 'without-atfork,with-atfork,plain-lock', holdMs: '50', childTimeoutMs: '500', repeats: '3' },
    quick: { variants: 'without-atfork,with-atfork', holdMs: '50', childTimeoutMs: '300', repeats: '1' },
    note: 'article 003: fork while another thread holds a mutex, with and without pthread_atfork',
  },
  options: [
    { flags: '--variants <list>', description: `variants, comma-separated: ${VARIANTS.join(', ')}`, defaultValue: DEFAULTS.variants },
    { flags: '--hold-ms <ms>', description: 'how long the worker thread holds the mutex each time, in ms', defaultValue: DEFAULTS.holdMs, unit: 'ms' },
    {
      flags: '--child-timeout-ms <ms>',
      description: "the child's pthread_mutex_timedlock timeout in ms; for plain-lock, how long the parent waits before killing the child",
      defaultValue: DEFAULTS.childTimeoutMs,
      unit: 'ms',
    },
    countOption('repeats', COUNTS),
  ],

  parse(raw) {
    return {
      variants: parseChoiceList('--variants', str(raw, 'variants', DEFAULTS.variants), VARIANTS),
      holdMs: parseInteger('--hold-ms', str(raw, 'holdMs', DEFAULTS.holdMs), 1, 60_000),
      childTimeoutMs: parseInteger('--child-timeout-ms', str(raw, 'childTimeoutMs', DEFAULTS.childTimeoutMs), 1, 600_000),
      repeats: parseCount('repeats', raw, COUNTS),
    };
  },

  preflight(p) {
    // One small probe with one thread and one child at a time: nothing to size against memory.
    const perRepeatMs = p.variants.reduce((s, v) => s + (v === 'with-atfork' ? p.holdMs : p.holdMs + p.childTimeoutMs), 0);
    const totalS = (perRepeatMs * p.repeats) / 1000;
    if (totalS > 120)
      return [
        {
          code: 'long-run',
          message: `this run takes about ${Math.round(totalS)} s (each child waits --child-timeout-ms ${p.childTimeoutMs} ms); lower --child-timeout-ms or --repeats for a quicker answer.`,
        },
      ];
    return [];
  },

  summarize: (ms) => summarizeDeadlock(ms),

  async run(p, ctx) {
    const { measurements, complete } = await sweep({
      configs: p.variants,
      repeats: p.repeats,
      ctx,
      label: (variant) => variant,
      job: (variant) => ({
        caseName: 'deadlock',
        args: { variant, 'hold-ms': p.holdMs, 'child-timeout-ms': p.childTimeoutMs },
        plan: fixedPlan(0, 1),
        timeoutMs: probeTimeoutMs(p),
      }),
      measure: (variant, result, repeat) => {
        const probePid = infoNumber(result.info, 'probePid');
        // The fields of a measurement are read off it (the child's columns): written again once it exists.
        const unread = fieldsFor(variant, p, null, probePid);
        const got = measurementsFrom(DEADLOCK_FIELDS, result, unread.identity, unread.observed, repeat, [variant], ctx.seed);
        for (const m of got) Object.assign(m, fieldsFor(variant, p, m, probePid));
        return got;
      },
    });
    const summary = summarizeDeadlock(measurements);
    return finishRun<DeadlockSummary, DeadlockParams>({ experiment: 'deadlock', params: { ...p }, measurements, summary, complete }, (run) => warningsFor(run, p));
  },

  view(run) {
    const p = run.params;
    const out: Block[] = [];
    {
      const said = run.summary.variants.filter((v) => v.repeats > 0).map((v) => `${v.variant}: ${v.acquired} of ${v.repeats} children got the lock, ${v.hung} hung`);
      const r = run.summary.articleReproduced;
      const verdictWords =
        r === null ? 'run without-atfork and with-atfork to compare with article 003' : r ? 'as article 003 found' : 'not as article 003 found (see the warnings)';
      out.push(conclusion(said.length ? [`${said.join('; ')}: ${verdictWords}.`] : ['No repeat finished: nothing to conclude.']), blank);
    }
    out.push(heading(`fork while another thread holds a mutex (worker holds it ${p.holdMs} ms at a time; the child waits at most ${p.childTimeoutMs} ms)`));
    const rows = run.summary.variants.map((v) => [
      v.variant,
      `${v.acquired}/${v.repeats}`,
      `${v.hung}/${v.repeats}`,
      v.medianChildWaitNs === null ? '—' : fmtDuration(v.medianChildWaitNs),
      v.medianForkWaitNs === null ? '—' : fmtDuration(v.medianForkWaitNs),
      v.childResults.join(', ') || '—',
      v.failedRepeats ? String(v.failedRepeats) : '',
    ]);
    const header = ['variant', 'child got lock', 'child hung (killed)', "child's wait (median)", 'fork() time (median)', 'child result', 'failed'];
    out.push(rows.length ? table(header, rows, { leftAlign: [0, 5] }) : text('no repeat finished.'));
    out.push(blank);
    for (const v of run.summary.variants) if (v.repeats > 0) out.push(text(`${v.variant}: ${verdict(v, p)}`));
    out.push(blank);
    out.push(
      note(
        'article 003: without pthread_atfork the child deadlocks — its printf("未死锁!") ("no deadlock!") never prints; ' +
          'pthread_atfork(prepare: lock, parent: unlock, child: unlock) avoids it.',
      ),
    );
    const r = run.summary.articleReproduced;
    out.push(
      note(r === null ? 'run without-atfork and with-atfork to compare with the article.' : r ? 'this machine: reproduced.' : 'this machine: NOT reproduced (see warnings).'),
    );
    return out;
  },
};
