// Experiment "create" (article 002): pthread_create+pthread_join of an empty thread against fork+waitpid
// of a child that _exit(0)s. The probe times them in alternating blocks of 50 calls of one kind (each kind
// runs as a plain loop of its own would, while drift still hits both alike); fresh probe processes repeat
// the whole thing.
import { sweep } from '../shared/sweep.js';
import { experimentEntry } from '../command-lines.js';
import { publishedValue } from '../../reference/published.js';
import { adaptiveRepeats, describeRepeatsStop, parseRepeatOptions, repeatOptions, type RepeatParams } from '../shared/repeats.js';
import type { RatioInterval } from '../../stats/bootstrap.js';
import { ratioOfMedians } from '../../stats/pool.js';
import { finishRun, infoNumber, measurementsPerSeries, repeatsOf } from '../shared/measure.js';
import { countOptions, parseCount, type CountSpecs } from '../shared/counts.js';
import { batchedPlan, checkSamplesFit, seriesWarnings, summarizeSeries, type SeriesSummary } from '../shared/series.js';
import { fmtRatio, fmtUs, fmtUsCi } from '../../text/format.js';
import { blank, conclusion, heading, note, table, text, type Block } from '../contract/view.js';
import { fmtTime, ratioSentence } from '../shared/conclude.js';
import { MICROSECONDS_PER_CALL, type Experiment, type Measurement } from '../contract/types.js';
import type { SelfcheckPair } from '../contract/selfcheck.js';
import { CREATE_FIELDS, CREATE_SERIES_IDENTITY, CREATE_IDENTITY, type CreateFields } from './configuration.js';

export interface CreateParams extends RepeatParams {
  /** Timed iterations per probe process; each iteration times one thread and one fork. */
  iterations: number;
  warmup: number;
  repeats: number;
}

export interface CreateSummary {
  thread: SeriesSummary | null;
  fork: SeriesSummary | null;
  /** median(fork) / median(thread) over the pooled samples, with a paired hierarchical bootstrap interval. */
  forkOverThreadMedian: RatioInterval | null;
  /** min(fork) / min(thread): the floors, least touched by scheduling noise. */
  forkOverThreadMin: number | null;
  /** The default thread stack size of the probe (what each pthread_create maps or reuses). */
  threadStackKb: number | null;
}

export { CREATE_SERIES_IDENTITY };

/** Article 002's figures (µs), from data/published.json. */
function article002() {
  return {
    thread: { minUs: publishedValue('002.thread.min'), medianUs: publishedValue('002.thread.median') },
    fork: { minUs: publishedValue('002.fork.min'), medianUs: publishedValue('002.fork.median') },
    forkOverThreadMedian: publishedValue('002.fork-over-thread.median'),
  };
}

const DEFAULTS = { iterations: '2000', warmup: '50', repeats: '3', extraRepeats: 0, repeatsCi: '5', repeatsBudgetS: '20' };
const COUNTS: CountSpecs = {
  iterations: { description: 'timed iterations per probe process; each times one thread and one fork', defaultValue: DEFAULTS.iterations, unit: 'iterations', max: 1_000_000 },
  warmup: { description: 'warm-up iterations per probe process (not recorded)', defaultValue: DEFAULTS.warmup, unit: 'iterations', max: 100_000 },
  repeats: { description: 'fresh probe processes, one after another; samples are pooled', defaultValue: DEFAULTS.repeats, unit: 'processes', max: 1000 },
};

function summarizeCreate(ms: readonly Measurement[], seed: number): CreateSummary {
  const thread = summarizeSeries(ms, 'thread', seed);
  const fork = summarizeSeries(ms, 'fork', seed);
  let ratio: RatioInterval | null = null;
  // Sample i of thread and of fork come from the same pair of blocks: a paired interval, repeats resampled first.
  if (thread && fork)
    ratio = ratioOfMedians(
      repeatsOf(ms, (m) => m.series === 'thread'),
      repeatsOf(ms, (m) => m.series === 'fork'),
      seed,
      { paired: true },
    );
  const stack = ms.map((m) => m.info.threadStackKb).find((v) => typeof v === 'number');
  return {
    thread,
    fork,
    forkOverThreadMedian: ratio,
    forkOverThreadMin: thread && fork ? fork.minNs / thread.minNs : null,
    threadStackKb: typeof stack === 'number' ? stack : null,
  };
}

export const createExperiment: Experiment<CreateParams, CreateSummary, CreateFields> = {
  ...experimentEntry('create'),
  cases: ['create'],
  identity: CREATE_IDENTITY,
  series: ['thread', 'fork'],
  valueOrder: {},
  unit: MICROSECONDS_PER_CALL,
  figures: 'timings',
  chart: {
    kind: 'bars',
    id: 'create-thread-vs-process',
    title: 'Thread against process creation',
    caption: 'Median and minimum µs to create and join a thread, and to fork and reap a process.',
    y: { title: 'µs' },
    statistics: ['min', 'median'],
    width: 320,
    height: 220,
    published: { unit: 'us', colour: 'dark', caption: 'Hollow diamonds: article 002’s published minimum and median.' },
  },
  paired: true,
  seriesField: 'method',
  presets: {
    // 002: 2000 runs of each. Many fresh probes: a probe costs well under a second, and the fork ÷ thread ratio
    // and the minimums move from probe to probe by more than within one (over three probes, the widened interval
    // of that ratio reached from 5× to 9× and back between consecutive quick runs).
    full: { iterations: '2000', warmup: '50', repeats: '10' },
    quick: { iterations: '300', warmup: '20', repeats: '10' },
    note: 'article 002: 2000 runs of thread create+join and of fork+waitpid',
  },
  selfcheck: () =>
    (
      [
        ['thread', 'thread'],
        // The probe's forks run in a process that has made threads: the loop's make one first (docs/experiments/create.md).
        ['fork', 'threaded-fork-exit'],
      ] as const
    ).map(
      ([series, operation]): SelfcheckPair => ({
        label: `create ${series}`,
        regionMb: 0,
        memoryMb: 0,
        probe: () => ({ caseName: 'create', args: {}, series }),
        loop: (n, it) => [operation, '0', 'default', String(it), n.targetStatic],
      }),
    ),
  options: [...countOptions(COUNTS), ...repeatOptions(DEFAULTS)],

  parse(raw) {
    const repeats = parseCount('repeats', raw, COUNTS);
    return {
      iterations: parseCount('iterations', raw, COUNTS),
      warmup: parseCount('warmup', raw, COUNTS),
      repeats,
      ...parseRepeatOptions(raw, repeats, DEFAULTS),
    };
  },

  preflight(p) {
    checkSamplesFit(p.iterations * p.maxRepeats * 2, '--iterations');
    return [];
  },

  summarize: (ms, _p, seed) => summarizeCreate(ms, seed),

  async run(p, ctx) {
    const { measurements, complete, repeatsStop } = await sweep({
      configs: [{}],
      repeats: p.repeats,
      ...(adaptiveRepeats(p.repeats, p) ? { adaptive: adaptiveRepeats(p.repeats, p)! } : {}),
      ctx,
      label: () => 'thread and fork',
      job: () => ({ caseName: 'create', args: {}, plan: batchedPlan(p.warmup, p.iterations), timeoutMs: 30_000 + (p.iterations + p.warmup) * 10 }),
      measure: (_c, result, repeat) => {
        const stackKb = infoNumber(result.info, 'threadStackKb');
        return measurementsPerSeries(
          CREATE_FIELDS,
          result,
          { thread: { identity: CREATE_SERIES_IDENTITY.thread, observed: { threadStackKb: stackKb } }, fork: { identity: CREATE_SERIES_IDENTITY.fork, observed: {} } },
          repeat,
          ctx.seed,
        );
      },
    });
    const summary = summarizeCreate(measurements, ctx.seed);
    return finishRun<CreateSummary, CreateParams>(
      { experiment: 'create', params: { ...p, repeatsStop }, measurements, summary, complete: complete && measurements.length > 0 },
      () => seriesWarnings(measurements),
    );
  },

  view(run) {
    const ARTICLE_002 = article002();
    const s = run.summary;
    const p = run.params;
    const out: Block[] = [];
    if (s.thread && s.fork)
      out.push(
        conclusion([
          `${ratioSentence('fork+waitpid', 'pthread_create+join', s.forkOverThreadMedian, `article 002: ${ARTICLE_002.forkOverThreadMedian}×`)}: medians ${fmtTime(s.fork.medianNs)} against ${fmtTime(s.thread.medianNs)}.`,
        ]),
        blank,
      );
    else out.push(conclusion([`Not measured: ${s.thread ? 'fork' : 'thread'} creation failed (its probes' failures are below).`]), blank);
    const row = (label: string, what: string, x: SeriesSummary | null, a: { minUs: number; medianUs: number }) =>
      x
        ? [label, what, String(x.n), fmtUs(x.minNs), fmtUsCi(x.medianNs, x.ciLowNs, x.ciHighNs), fmtUs(x.p90Ns), `${a.minUs} / ${a.medianUs}`]
        : [label, what, '0', '—', 'failed', '—', `${a.minUs} / ${a.medianUs}`];
    out.push(
      heading(
        `Create one execution unit and wait for it to end: µs per call (${p.iterations} iterations × ${(run.params.repeatsStop as { rounds?: number } | undefined)?.rounds ?? p.repeats} probe processes)`,
      ),
    );
    out.push(
      table(
        ['series', 'what', 'n', 'min', 'median [95 % CI]', 'p90', 'article 002 min / median'],
        [row('thread', 'pthread_create + pthread_join', s.thread, ARTICLE_002.thread), row('fork', 'fork + waitpid (child _exit(0))', s.fork, ARTICLE_002.fork)],
        { leftAlign: [0, 1] },
      ),
    );
    out.push(blank);
    if (s.forkOverThreadMedian && s.forkOverThreadMin !== null && s.thread && s.fork) {
      const r = s.forkOverThreadMedian;
      out.push(
        text(
          `fork ÷ thread: medians ${fmtRatio(r.ratio)} [${fmtRatio(r.low)}–${fmtRatio(r.high)}], mins ${fmtRatio(s.forkOverThreadMin)}` +
            `   (article 002: medians ${ARTICLE_002.forkOverThreadMedian}×, mins ${fmtRatio(ARTICLE_002.fork.minUs / ARTICLE_002.thread.minUs)})`,
        ),
      );
      out.push(
        text(
          `median ÷ min, the scheduling noise: thread ${fmtRatio(s.thread.medianNs / s.thread.minNs)}, fork ${fmtRatio(s.fork.medianNs / s.fork.minNs)}` +
            `   (article 002: ${fmtRatio(ARTICLE_002.thread.medianUs / ARTICLE_002.thread.minUs)}, ${fmtRatio(ARTICLE_002.fork.medianUs / ARTICLE_002.fork.minUs)})`,
        ),
      );
      if (s.thread.repeatMediansNs.length > 1)
        out.push(note(`medians per probe process: thread ${s.thread.repeatMediansNs.map(fmtUs).join(', ')} µs; fork ${s.fork.repeatMediansNs.map(fmtUs).join(', ')} µs`));
    }
    if (s.threadStackKb !== null) out.push(note(`thread stack: ${s.threadStackKb} kB (glibc default; glibc caches freed stacks, so a create+join loop reuses one)`));
    out.push(
      note(
        'Timed in alternating blocks of 50 calls of each kind (the article timed each in a loop of its own); intervals: bootstrap over probe processes, then iterations (paired for the ratio).',
      ),
    );
    const stopped = describeRepeatsStop(run.params);
    if (stopped) out.push(note(stopped));
    return out;
  },
};
