// Experiment "fds": what starting a child costs against the descriptors the parent holds open and against its
// RLIMIT_NOFILE, for fork+exec and posix_spawn, by the way the child is kept from inheriting them: close-on-exec
// alone, a loop over the limit (close, or fcntl as Bun did: issue #25839), /proc/self/fd, close_range, and
// posix_spawn's close actions and addclosefrom_np. A loop pays for the limit, not for what is open.
import { fixedPlan } from '../../runner/plans.js';
import { experimentEntry } from '../command-lines.js';
import { readOpenFilesLimit } from '../../env/limits.js';
import { sweep } from '../shared/sweep.js';
import { probeFailedWarnings } from '../shared/failures.js';
import { finishRun, measurementsFrom } from '../shared/measure.js';
import { parseChoiceList, parseInteger, parseIntegerList, str } from '../../text/parse.js';
import { countOptions, parseCounts, type CountSpecs } from '../shared/counts.js';
import { MICROSECONDS_PER_CALL, type Experiment, type Measurement, type Warning } from '../contract/types.js';
import { UsageError } from '../../errors.js';
import type { SelfcheckPair } from '../contract/selfcheck.js';
import { blank, conclusion } from '../contract/view.js';
import { FDS_FIELDS, FDS_IDENTITY, WAYS, type FdsFields, type Way } from './configuration.js';
import { configsOf, fdsTables, FD_MARGIN, parseUnavailable, summarizeFds, type FdsParams, type FdsSummary } from './summary.js';
import { fdsConclusion } from './conclusion.js';

/** What --nofile's `hard` stands for at most: Bun issue #25839's limit, so that a run stays short where the hard limit is a million. */
export const HARD_CAP = 65_536;

const DEFAULTS = { ways: WAYS.join(','), fds: '0,1000,10000', nofile: '1024,4096,hard', iterations: '30', warmup: '3', repeats: '2' };
const COUNTS: CountSpecs = {
  iterations: {
    description: 'timed rounds per probe process (a round starts a child by each way once, in a shuffled order)',
    defaultValue: DEFAULTS.iterations,
    unit: 'rounds',
    max: 100_000,
  },
  warmup: { description: 'warm-up rounds per probe process (not recorded)', defaultValue: DEFAULTS.warmup, unit: 'rounds', max: 10_000 },
  repeats: {
    description: 'fresh probe processes per descriptors × limit (each opens its descriptors once and times every way), interleaved',
    defaultValue: DEFAULTS.repeats,
    unit: 'processes',
    max: 1000,
  },
};

/** --nofile's `hard`: the hard RLIMIT_NOFILE (what `ulimit -Hn` says), at most HARD_CAP; null where it cannot be read. */
export function hardNofile(limit = readOpenFilesLimit()): number | null {
  if (!limit) return null;
  return limit.hard === null ? HARD_CAP : Math.min(limit.hard, HARD_CAP);
}

/** --nofile: numbers, or `hard`. */
export function parseNofile(raw: string, hard: () => number | null): number[] {
  const out = raw.split(',').map((part) => {
    if (part.trim() !== 'hard') return parseInteger('--nofile', part, 64, 1 << 30);
    const h = hard();
    if (h === null) throw new UsageError('--nofile', "'hard' needs the hard limit from /proc/self/limits, which cannot be read here: give numbers");
    return h;
  });
  return [...new Set(out)].sort((a, b) => a - b);
}

/** Caps --fds to what the largest limit leaves (less FD_MARGIN); says so in a warning. */
export function capFds(requested: readonly number[], largestNofile: number): { fds: number[]; warning: Warning | null } {
  const cap = largestNofile - FD_MARGIN;
  const over = requested.filter((v) => v > cap);
  if (over.length === 0) return { fds: [...requested], warning: null };
  return {
    fds: [...new Set(requested.map((v) => Math.min(v, cap)))].sort((a, b) => a - b),
    warning: {
      code: 'fds-capped',
      message: `--fds ${over.join(',')}: the largest --nofile (${largestNofile}) leaves room for ${cap} descriptors besides the probe's own: measuring ${cap} instead. Give a larger --nofile (up to the hard limit) to open more.`,
    },
  };
}

function warningsFor(run: { measurements: Measurement[]; summary: FdsSummary }): Warning[] {
  const w: Warning[] = run.summary.unavailable.map((u) => ({ code: 'way-unavailable', message: `${u.way} was not measured: ${u.why}` }));
  w.push(...probeFailedWarnings(run.measurements, (m) => `${m.series} with ${m.identity.fds} descriptors open, RLIMIT_NOFILE ${m.identity.nofile}, repeat ${m.repeat}`));
  return w;
}

/** The selfcheck's limit: `hard` (at most HARD_CAP), or 1024 where it cannot be read. */
const selfcheckNofile = () => hardNofile() ?? 1024;

export const fdsExperiment: Experiment<FdsParams, FdsSummary, FdsFields> = {
  ...experimentEntry('fds'),
  cases: ['fds'],
  identity: FDS_IDENTITY,
  series: WAYS,
  valueOrder: { way: WAYS },
  unit: MICROSECONDS_PER_CALL,
  figures: 'timings',
  chart: {
    kind: 'points',
    id: 'fds-limit',
    title: 'Start+wait against RLIMIT_NOFILE',
    caption:
      'Median µs per start+wait with its 95 % interval against the soft RLIMIT_NOFILE (log scales), one panel per number of descriptors open: a loop over the limit grows with it, the other ways do not.',
    x: { field: 'nofile', title: 'RLIMIT_NOFILE (log scale)', scale: 'log' },
    y: { title: 'median µs per start+wait', scale: 'log' },
    colour: { field: 'way', title: 'way', ordered: true },
    facet: { field: 'fds', title: 'descriptors open' },
    line: true,
    positiveX: true,
    width: 300,
    height: 230,
  },
  fieldLabels: { fds: { suffix: 'open', unit: 'descriptor' }, nofile: { prefix: 'RLIMIT_NOFILE' } },
  // A probe fixes the descriptors and the limit and times every way in the same rounds.
  probeKeys: () => ['fds', 'nofile'],
  paired: true,
  seriesField: 'way',
  presets: {
    // Bun's case is the limit at 1,024 and 65,536; `hard` is this machine's hard limit (at most 65,536).
    full: { fds: '0,1000,4000,16000', nofile: '1024,4096,hard', iterations: '30', warmup: '3', repeats: '3' },
    // Both ends of both axes and a third limit (a claim that a loop grows linearly needs three), two probes each (a
    // ratio's interval needs two): 8 probes of 12 rounds.
    quick: { fds: '0,10000', nofile: '1024,4096,hard', iterations: '10', warmup: '2', repeats: '2' },
    note: 'no article: Bun issue #25839 (2026), RLIMIT_NOFILE from 1,024 to the hard limit (at most 65,536) and up to 16,000 descriptors open',
    // In a full reproduction, the ends of the descriptors' axis only: every claim reads the limit's axis with none
    // open, which keeps its three limits and three probes (half the probes: 47 s of a 5 min 13 s reproduction here).
    reproduce: {
      full: { fds: '0,16000', nofile: '1024,4096,hard', iterations: '30', warmup: '3', repeats: '3' },
      quick: { fds: '0,10000', nofile: '1024,4096,hard', iterations: '10', warmup: '2', repeats: '2' },
    },
  },
  selfcheck: () => {
    const nofile = selfcheckNofile();
    const open = Math.min(10_000, nofile - FD_MARGIN);
    return (
      [
        ['fork-fcntl-loop', 0],
        ['posix-spawn', open],
      ] as const
    ).map(
      ([way, fds]): SelfcheckPair => ({
        label: `fds ${way}, ${fds} open, RLIMIT_NOFILE ${nofile}`,
        regionMb: 0,
        memoryMb: 0,
        probe: (n) => ({ caseName: 'fds', args: { fds, nofile, ways: way, target: n.targetStatic }, series: way }),
        loop: (n, it) => [`fds:${way}:${fds}:${nofile}`, '0', 'default', String(it), n.targetStatic],
        // A loop over a limit of tens of thousands costs milliseconds a call: fewer calls than --iterations.
        calls: (it) => Math.max(20, Math.ceil(it / 4)),
      }),
    );
  },
  options: [
    { flags: '--ways <list>', description: `ways to keep the child from inheriting the descriptors, comma-separated: ${WAYS.join(', ')}`, defaultValue: DEFAULTS.ways },
    {
      flags: '--fds <list>',
      description: 'descriptors the parent holds open (dups of /dev/null, O_CLOEXEC), comma-separated; timed at the largest --nofile',
      defaultValue: DEFAULTS.fds,
      unit: 'descriptors',
    },
    {
      flags: '--nofile <list>',
      description: `soft RLIMIT_NOFILE values the probe sets, comma-separated, each at most the hard limit; hard: the hard limit (at most ${HARD_CAP}); timed with the fewest --fds open`,
      defaultValue: DEFAULTS.nofile,
      unit: 'descriptors',
    },
    ...countOptions(COUNTS),
  ],

  parse(raw) {
    const fds = parseIntegerList('--fds', str(raw, 'fds', DEFAULTS.fds), 0, 1 << 24).sort((a, b) => a - b);
    return {
      ways: parseChoiceList('--ways', str(raw, 'ways', DEFAULTS.ways), WAYS) as Way[],
      fds,
      requestedFds: [...fds],
      nofile: parseNofile(str(raw, 'nofile', DEFAULTS.nofile), () => hardNofile()),
      ...parseCounts(raw, COUNTS),
    };
  },

  preflight(p) {
    const hard = readOpenFilesLimit()?.hard ?? null;
    const largest = Math.max(...p.nofile);
    if (hard !== null && largest > hard)
      throw new UsageError(
        '--nofile',
        `${largest} is above this machine's hard RLIMIT_NOFILE, ${hard} (ulimit -Hn): forklab raises the soft limit only. Use at most ${hard}, or hard; a higher hard limit needs root (ulimit -Hn, /etc/security/limits.conf, systemd's LimitNOFILE=).`,
      );
    const fewest = Math.min(...p.requestedFds);
    const smallest = Math.min(...p.nofile);
    if (fewest + FD_MARGIN > smallest)
      throw new UsageError(
        '--nofile',
        `${smallest} leaves no room for the fewest --fds, ${fewest}, and the probe's own ${FD_MARGIN}: give --nofile values of at least ${fewest + FD_MARGIN}.`,
      );
    const capped = capFds(p.requestedFds, largest);
    p.fds = capped.fds;
    // Memory: a descriptor is an 8-byte slot of the table (every dup shares one open file), a close action 32 bytes: nothing to check.
    return capped.warning ? [capped.warning] : [];
  },

  summarize: (ms, _p, seed) => summarizeFds(ms, seed),

  async run(p, ctx) {
    // One probe per descriptors × limit (and repeat): the limit set and the descriptors opened once, every way timed round by round.
    const { measurements, complete } = await sweep({
      configs: configsOf(p),
      repeats: p.repeats,
      ctx,
      label: (c) => `fds=${c.fds} nofile=${c.nofile} (${p.ways.length} ways)`,
      job: (c, repeat) => ({
        caseName: 'fds',
        args: { fds: c.fds, nofile: c.nofile, ways: p.ways.join(','), 'order-seed': ctx.seed * 1000 + repeat, target: ctx.native.targetStatic },
        plan: fixedPlan(p.warmup, p.iterations),
        // Generous: a call of a loop way costs well under 50 µs per descriptor of the limit even on a busy VM.
        timeoutMs: 30_000 + (p.iterations + p.warmup + 2) * p.ways.length * (50 + (c.nofile + c.fds) * 0.05),
      }),
      measure: (c, result, repeat) => {
        const left = new Set(parseUnavailable(result.info.unavailable).map((u) => u.way));
        const num = (k: string) => (typeof result.info[k] === 'number' && (result.info[k] as number) >= 0 ? (result.info[k] as number) : null);
        const observed = { highestFd: num('highestFd'), nofileHard: num('nofileHard') };
        return p.ways
          .filter((way) => !left.has(way))
          .flatMap((way) =>
            measurementsFrom(
              FDS_FIELDS,
              { ...result, series: result.series.filter((x) => x.series === way) },
              { way, fds: c.fds, nofile: c.nofile },
              observed,
              repeat,
              [way],
              ctx.seed,
            ),
          );
      },
    });
    const summary = summarizeFds(measurements, ctx.seed);
    return finishRun<FdsSummary, FdsParams>({ experiment: 'fds', params: { ...p }, measurements, summary, complete }, warningsFor);
  },

  // the conclusion first, then the tables
  view: (run) => [conclusion(fdsConclusion(run)), blank, ...fdsTables(run)],
};
