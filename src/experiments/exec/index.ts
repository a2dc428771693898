// Experiment "exec" (article 004): what execve adds to fork, for a `return 0` program linked dynamically
// and statically. The probe times fork+_exit (the baseline), fork+execve+waitpid of the dynamic target and
// of the static target in every iteration, in rotating order; execve alone is each exec series' median
// minus the baseline's. Next to the times: both file sizes, and ld.so's own accounting (LD_DEBUG=statistics).
import { statSync } from 'node:fs';
import { experimentEntry } from '../command-lines.js';
import { sweep } from '../shared/sweep.js';
import { publishedValue } from '../../reference/published.js';
import { runCommand } from '../../runner/command.js';
import { ldMeasurement, parseLdStatistics, readCyclesPerUs, type LdStatistics } from './ldstats.js';
import { batchedPlan, checkSamplesFit, seriesWarnings, type SeriesSummary } from '../shared/series.js';
import { EXEC_SERIES, summarizeExec, type ExecSeries, type ExecSummary, type ExecveAlone } from './summary.js';
import { parseInteger, str } from '../../text/parse.js';
import { finishRun, measurementsPerSeries } from '../shared/measure.js';
import { countOptions, parseCounts, type CountSpecs } from '../shared/counts.js';
import { fmtRatio, fmtUs, fmtUsCi } from '../../text/format.js';
import { heading, text, note, blank, table, conclusion, type Block } from '../contract/view.js';
import { fmtTime, ratioSentence } from '../shared/conclude.js';
import { MICROSECONDS_PER_CALL, type Experiment, type Measurement, type Warning } from '../contract/types.js';
import type { SelfcheckPair } from '../contract/selfcheck.js';
import { targetCommandLine, targetParams } from '../shared/target.js';
import { EXEC_FIELDS, EXEC_IDENTITY, type ExecFields } from './configuration.js';

/** The experiment's series, exported beside it (test/reference-published.test.ts reads them here). */
export { EXEC_SERIES };

export interface ExecParams {
  /** Timed iterations per probe process; each times one launch of each series. */
  iterations: number;
  warmup: number;
  repeats: number;
  /** Runs of the dynamic target under LD_DEBUG=statistics; 0 = none. */
  ldRuns: number;
  /** --target: the user's program (absolute path), measured in the dynamic target's place; absent: built-in targets. */
  target?: string;
  targetArgs?: string[];
}

/** Article 004's figures (µs and KB), from data/published.json. */
function article004() {
  return {
    forkExitUs: publishedValue('004.fork-exit'),
    dynamicUs: publishedValue('004.fork-exec.dynamic'),
    staticUs: publishedValue('004.fork-exec.static'),
    execveAloneDynamicUs: publishedValue('004.execve-alone.dynamic'),
    execveAloneStaticUs: publishedValue('004.execve-alone.static'),
    dynamicOverStatic: publishedValue('004.execve-alone.dynamic-over-static'),
    dynamicKb: publishedValue('004.file-size.dynamic'),
    staticKb: publishedValue('004.file-size.static'),
  };
}

const DEFAULTS = { iterations: '2000', warmup: '20', repeats: '2', ldRuns: '10' };
const COUNTS: CountSpecs = {
  iterations: {
    description: 'timed iterations per probe process; each times fork+_exit, the dynamic and the static exec once',
    defaultValue: DEFAULTS.iterations,
    unit: 'iterations',
    max: 1_000_000,
  },
  warmup: { description: 'warm-up iterations per probe process (not recorded)', defaultValue: DEFAULTS.warmup, unit: 'iterations', max: 100_000 },
  repeats: { description: 'fresh probe processes, one after another; samples are pooled', defaultValue: DEFAULTS.repeats, unit: 'processes', max: 1000 },
};

function execWarnings(run: { measurements: Measurement[]; summary: ExecSummary; params: ExecParams }): Warning[] {
  const s = run.summary;
  const w = seriesWarnings(run.measurements);
  if (run.params.ldRuns > 0 && s.ld === null && s.ldFailures.length > 0)
    w.push({
      code: 'ld-statistics-failed',
      message: `LD_DEBUG=statistics gave no statistics (${s.ldFailures[0]}). Check that forklab-target-dynamic is dynamically linked (\`file\` on it) and that the environment does not drop LD_DEBUG (secure-execution mode).`,
    });
  if (s.fileBytes.static <= s.fileBytes.dynamic)
    w.push({
      code: 'targets-mislinked',
      message: `the static target (${s.fileBytes.static} bytes) is not larger than the dynamic one (${s.fileBytes.dynamic} bytes): the exec targets look mislinked. Rebuild the native part (npm rebuild forklab).`,
    });
  const st = s.execveAlone.static;
  if (st && st.medianNs <= 0)
    w.push({
      code: 'execve-alone-not-positive',
      message: `execve alone of the static target came out at ${fmtUs(st.medianNs)} µs: the fork baseline's noise swamps it, so no ratio is given. Rerun with more --iterations or on a quieter machine.`,
    });
  return w;
}

/** A --target run: the user's program beside fork+_exit and the static `return 0` program. */
function targetView(s: ExecSummary, p: ExecParams): Block[] {
  const t = s.target!;
  const row = (k: string, label: string, x: SeriesSummary | null) =>
    x ? [k, label, String(x.n), fmtUs(x.minNs), fmtUsCi(x.medianNs, x.ciLowNs, x.ciHighNs), fmtUs(x.p90Ns)] : [k, label, '0', '—', 'failed', '—'];
  const alone = (x: ExecveAlone | null) => (x ? fmtUsCi(x.medianNs, x.ciLowNs, x.ciHighNs) : '—');
  const r = t.overStatic;
  return [
    heading(`target: ${targetCommandLine(t.path, t.args)}`),
    note('your program, started with fork + execve (your environment, /dev/null as stdin, stdout and stderr) and run to its exit'),
    blank,
    heading(`µs per launch (${p.iterations} iterations × ${p.repeats} probe processes, the three in rotating order)`),
    table(
      ['series', 'what', 'n', 'min µs', 'median µs [95 % CI]', 'p90 µs'],
      [
        row('fork-exit', 'fork + _exit + waitpid (baseline)', s.series['fork-exit']),
        row('exec-target', 'fork + execve + run + waitpid, your program', t.series),
        row('exec-static', 'fork + execve + waitpid, static `return 0`', s.series['exec-static']),
      ],
      { leftAlign: [0, 1] },
    ),
    blank,
    text(`your program minus fork-exit (execve, loading and its own run): ${alone(t.execveAlone)} µs; the static \`return 0\` program: ${alone(s.execveAlone.static)} µs`),
    ...(r
      ? [
          text(
            `your program ÷ the static \`return 0\` program (both minus fork-exit): ${fmtRatio(r.ratio)}${r.low !== null && r.high !== null ? ` [${fmtRatio(r.low)}–${fmtRatio(r.high)}]` : ''}`,
          ),
        ]
      : []),
  ];
}

export const execExperiment: Experiment<ExecParams, ExecSummary, ExecFields> = {
  ...experimentEntry('exec'),
  acceptsTarget: true,
  cases: ['exec'],
  identity: EXEC_IDENTITY,
  series: ['fork-exit', 'exec-dynamic', 'exec-target', 'exec-static'],
  valueOrder: {},
  unit: MICROSECONDS_PER_CALL,
  figures: 'timings',
  chart: {
    kind: 'bars',
    id: 'exec-static-dynamic',
    title: 'Static against dynamic exec',
    caption: 'Median µs of fork+_exit, and of fork+exec of a static and of a dynamic target, with 95 % intervals.',
    y: { title: 'median µs' },
    width: 420,
    height: 220,
    published: { unit: 'us', colour: 'dark', caption: 'Hollow diamonds: article 004’s published times (the article does not name its statistic).' },
  },
  paired: true,
  seriesField: 'method',
  samplesFlag: { 'ld-startup': '--ld-runs' },
  presets: {
    // 004: fork+exec+wait of `return 0`, dynamic and static, against fork+_exit. ld.so's statistics: at least 6
    // runs, the fewest whose median has a 95 % interval.
    full: { iterations: '2000', warmup: '20', repeats: '2', ldRuns: '10' },
    // Quick: many short probes rather than three long ones (probes differ more than their samples do).
    quick: { iterations: '100', warmup: '10', repeats: '8', ldRuns: '6' },
    note: 'article 004: fork+exec+wait of a `return 0` program, dynamic and static, and fork+_exit',
  },
  selfcheck: () =>
    (['dynamic', 'static'] as const).map(
      (kind): SelfcheckPair => ({
        label: `exec ${kind}`,
        regionMb: 0,
        memoryMb: 0,
        probe: (n) => ({ caseName: 'exec', args: { 'target-dynamic': n.targetDynamic, 'target-static': n.targetStatic }, series: `exec-${kind}` }),
        loop: (n, it) => ['fork-exec', '0', 'default', String(it), kind === 'dynamic' ? n.targetDynamic : n.targetStatic],
      }),
    ),
  options: [
    ...countOptions(COUNTS),
    { flags: '--ld-runs <n>', description: 'runs of the dynamic target with LD_DEBUG=statistics (ld.so cycle counts); 0 = none', defaultValue: DEFAULTS.ldRuns, unit: 'runs' },
  ],

  parse(raw) {
    return {
      ...parseCounts(raw, COUNTS),
      ldRuns: parseInteger('--ld-runs', str(raw, 'ldRuns', DEFAULTS.ldRuns), 0, 1000),
      ...targetParams(raw),
    };
  },

  preflight(p) {
    checkSamplesFit(p.iterations * p.repeats * 3, '--iterations');
    return [];
  },

  summarize(ms, _p, seed) {
    const bytes = (target: string) => Number(ms.find((m) => m.identity.target === target)?.observed.fileBytes ?? 0);
    return summarizeExec(ms, seed, { dynamic: bytes('dynamic'), static: bytes('static') }, [], [], null);
  },

  async run(p, ctx) {
    const fileBytes = { dynamic: statSync(ctx.native.targetDynamic).size, static: statSync(ctx.native.targetStatic).size };
    const user = p.target ? { path: p.target, args: p.targetArgs ?? [], fileBytes: statSync(p.target).size } : undefined;
    const fieldsOf: Record<string, ExecFields> = {
      'fork-exit': { identity: { method: 'fork-exit' }, observed: {} },
      ...(user
        ? { 'exec-target': { identity: { method: 'fork-exec', target: user.path }, observed: { fileBytes: user.fileBytes } } }
        : { 'exec-dynamic': { identity: { method: 'fork-exec', target: 'dynamic' }, observed: { fileBytes: fileBytes.dynamic } } }),
      'exec-static': { identity: { method: 'fork-exec', target: 'static' }, observed: { fileBytes: fileBytes.static } },
      getppid: { identity: { method: 'getppid' }, observed: {} },
    };
    const { measurements, complete } = await sweep({
      configs: [{}],
      repeats: p.repeats,
      ctx,
      label: () => (user ? 'fork-exit, exec-target, exec-static' : 'fork-exit, exec-dynamic, exec-static'),
      job: () => ({
        caseName: 'exec',
        args: { ...(user ? { 'user-target': user.path } : { 'target-dynamic': ctx.native.targetDynamic }), 'target-static': ctx.native.targetStatic },
        ...(user ? { restArgs: user.args } : {}),
        plan: batchedPlan(p.warmup, p.iterations, 100),
        timeoutMs: 30_000 + (p.iterations + p.warmup) * 30,
      }),
      measure: (_c, result, repeat) => measurementsPerSeries(EXEC_FIELDS, result, fieldsOf, repeat, ctx.seed),
    });
    const ldRuns: LdStatistics[] = [];
    const ldFailures: string[] = [];
    // ld.so's statistics are of the built-in dynamic target: not taken for --target.
    for (let i = 0; i < (user ? 0 : p.ldRuns) && !ctx.signal.aborted; i++) {
      // The same empty environment the probe gives its targets, plus LD_DEBUG.
      const r = await runCommand(ctx.native.targetDynamic, [], { timeoutMs: 10_000, signal: ctx.signal, env: { LD_DEBUG: 'statistics' } });
      if (r.state === 'failed') ldFailures.push(r.why);
      else {
        const parsed = parseLdStatistics(r.stderr);
        if (parsed.ok) ldRuns.push(parsed.stats);
        else ldFailures.push(parsed.reason);
      }
    }
    const cyclesPerUs = readCyclesPerUs();
    if (ldRuns.length > 0) {
      const ld = ldMeasurement(ldRuns, cyclesPerUs, ctx.seed);
      measurements.push(ld);
      ctx.record?.([ld]);
    }
    const summary = summarizeExec(measurements, ctx.seed, fileBytes, ldRuns, ldFailures, cyclesPerUs, user);
    return finishRun<ExecSummary, ExecParams>(
      { experiment: 'exec', params: { ...p }, measurements, summary, complete: complete && !ctx.signal.aborted && measurements.length > 0 },
      () => execWarnings({ measurements: measurements.filter((m) => m.series !== 'ld-startup'), summary, params: p }),
    );
  },

  view(run) {
    const ARTICLE_004 = article004();
    const s = run.summary;
    const p = run.params;
    if (s.target) return targetView(s, p);
    const out: Block[] = [];
    {
      const dyn = s.execveAlone.dynamic;
      const st = s.execveAlone.static;
      const lines: string[] = [];
      if (dyn && st)
        lines.push(
          `execve alone (launch − fork+_exit): dynamic ${fmtTime(dyn.medianNs)}, static ${fmtTime(st.medianNs)}; ${ratioSentence('dynamic', 'static', s.dynamicOverStatic, `article 004: ${ARTICLE_004.dynamicOverStatic}×`)}.`,
        );
      else lines.push('execve alone could not be measured (a series failed: see below).');
      const fe = s.series['fork-exit'];
      if (fe) lines.push(`fork+_exit+waitpid alone: ${fmtTime(fe.medianNs)} (article 004: ${ARTICLE_004.forkExitUs} µs).`);
      out.push(conclusion(lines), blank);
    }
    const what: Record<ExecSeries, [string, number]> = {
      'fork-exit': ['fork + _exit + waitpid (baseline)', ARTICLE_004.forkExitUs],
      'exec-dynamic': ['fork + execve + waitpid, dynamic', ARTICLE_004.dynamicUs],
      'exec-static': ['fork + execve + waitpid, static', ARTICLE_004.staticUs],
    };
    out.push(heading(`Start a \`return 0\` program: µs per launch (${p.iterations} iterations × ${p.repeats} probe processes, empty environment)`));
    const rows = EXEC_SERIES.map((k) => {
      const x = s.series[k];
      const [label, article] = what[k];
      return x
        ? [k, label, String(x.n), fmtUs(x.minNs), fmtUsCi(x.medianNs, x.ciLowNs, x.ciHighNs), fmtUs(x.p90Ns), article.toFixed(1)]
        : [k, label, '0', '—', 'failed', '—', article.toFixed(1)];
    });
    out.push(table(['series', 'what', 'n', 'min', 'median [95 % CI]', 'p90', 'article 004'], rows, { leftAlign: [0, 1] }));
    out.push(blank);
    const kb = (b: number) => `${(b / 1024).toFixed(b < 100 * 1024 ? 1 : 0)} KB`;
    const alone = (x: ExecveAlone | null) => (x ? fmtUsCi(x.medianNs, x.ciLowNs, x.ciHighNs) : '—');
    out.push(heading('execve alone = exec series − fork-exit (medians; interval: paired bootstrap over probe processes, then iterations)'));
    out.push(
      table(
        ['target', 'file size', 'execve alone µs [95 % CI]', 'min − min', 'article 004'],
        [
          [
            'dynamic',
            kb(s.fileBytes.dynamic),
            alone(s.execveAlone.dynamic),
            s.execveAlone.dynamic ? fmtUs(s.execveAlone.dynamic.minNs) : '—',
            `${ARTICLE_004.execveAloneDynamicUs} µs, ${ARTICLE_004.dynamicKb} KB`,
          ],
          [
            'static',
            kb(s.fileBytes.static),
            alone(s.execveAlone.static),
            s.execveAlone.static ? fmtUs(s.execveAlone.static.minNs) : '—',
            `${ARTICLE_004.execveAloneStaticUs} µs, ${ARTICLE_004.staticKb} KB`,
          ],
        ],
      ),
    );
    const r = s.dynamicOverStatic;
    const ratioText = r ? `${fmtRatio(r.ratio)}${r.low !== null && r.high !== null ? ` [${fmtRatio(r.low)}–${fmtRatio(r.high)}]` : ''}` : '—';
    out.push(
      text(
        `dynamic ÷ static, execve alone: ${ratioText} (article 004: ${ARTICLE_004.dynamicOverStatic}×); ` +
          `file size, static ÷ dynamic: ${fmtRatio(s.fileBytes.static / s.fileBytes.dynamic)} (article: ${fmtRatio(ARTICLE_004.staticKb / ARTICLE_004.dynamicKb)})`,
      ),
    );
    const dyn = s.execveAlone.dynamic;
    const st = s.execveAlone.static;
    if (st && s.syscall && s.syscall.medianNs > 0)
      out.push(
        text(
          `a plain system call (getppid): ${s.syscall.medianNs.toFixed(0)} ns (median); static execve alone = ${fmtRatio(st.medianNs / s.syscall.medianNs)} that (article 004: about 450×)`,
        ),
      );
    if (dyn && st)
      out.push(
        text(
          `what dynamic linking adds (dynamic − static execve alone): ${fmtUs(dyn.medianNs - st.medianNs)} µs (article: ${(ARTICLE_004.execveAloneDynamicUs - ARTICLE_004.execveAloneStaticUs).toFixed(1)} µs)`,
        ),
      );
    out.push(blank);
    if (s.ld) {
      const us = (cycles: number) => (s.cyclesPerUs ? `≈ ${fmtUs((cycles / s.cyclesPerUs) * 1000)} µs` : '');
      const pct = (cycles: number) => `${((cycles / s.ld!.totalStartupCyclesMedian) * 100).toFixed(1)} %`;
      out.push(heading(`ld.so's own accounting: LD_DEBUG=statistics on the dynamic target (${s.ld.runs} runs, medians)`));
      const ldRows = [
        ['total start-up in the dynamic loader', `${Math.round(s.ld.totalStartupCyclesMedian)}`, '100 %', us(s.ld.totalStartupCyclesMedian)],
        ['relocation', `${Math.round(s.ld.relocationCyclesMedian)}`, pct(s.ld.relocationCyclesMedian), us(s.ld.relocationCyclesMedian)],
      ];
      if (s.ld.loadObjectsCyclesMedian !== null)
        ldRows.push(['loading objects', `${Math.round(s.ld.loadObjectsCyclesMedian)}`, pct(s.ld.loadObjectsCyclesMedian), us(s.ld.loadObjectsCyclesMedian)]);
      out.push(table(['phase', 'cycles', 'share', s.cyclesPerUs ? `at ${s.cyclesPerUs.toFixed(0)} MHz` : ''], ldRows));
      const extra = [
        s.ld.relocationsFromCache !== null ? `${s.ld.relocationsFromCache} from cache` : null,
        s.ld.relativeRelocations !== null ? `${s.ld.relativeRelocations} relative` : null,
      ].filter(Boolean);
      out.push(
        text(
          `relocations: ${s.ld.relocations}${extra.length ? ` (${extra.join(', ')})` : ''}` +
            `${s.ld.finalRelocations !== null ? `; ${s.ld.finalRelocations} by exit` : ''}${s.ld.countsVaried ? ' (counts varied between runs)' : ''}`,
        ),
      );
      out.push(note("cycles are the loader's timer ticks (rdtsc on x86-64); its clock starts when ld.so starts, after the kernel has loaded the program."));
    } else if (p.ldRuns > 0) out.push(note(`ld.so statistics: none (${s.ldFailures[0] ?? 'not run'})`));
    while (out.length && out[out.length - 1] === blank) out.pop(); // no trailing empty lines
    return out;
  },
};
