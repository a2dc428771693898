// The parts of docs/published-figures.md and docs/reproduce.md that restate data or code: generated from
// data/published.json, the claims' check types and bands, the bootstrap's constants, the experiments' presets
// and the commands' options, between `<!-- generated:NAME -->` and `<!-- end generated:NAME -->` markers.
// `npm run docs` rewrites them; test/docs.test.ts fails when a committed doc differs from what this produces.
import { Command, type Option } from 'commander';
import { band } from '../claims/bands.js';
import { THP_OFF_MAX, THP_ON_MIN } from '../claims/conditions.js';
import { CONTEXT_KEYS } from '../claims/data.js';
import { MIN_SAMPLES } from '../claims/evidence.js';
import { EXPERIMENTS, reproducePresetFor } from '../experiments/index.js';
import { loadPublished, type Check, type Expectation, type Operand, type Published, type Series } from '../reference/published.js';
import { clusterWidening } from '../stats/clusters.js';
import { MAX_DRAWS, MIN_FINITE_SHARE, MIN_RESAMPLES, RESAMPLES } from '../stats/resample.js';
import { registerJudgeCommand } from './judge.js';
import { registerReproduceCommand } from './reproduce.js';

const sel = (s: Series) => {
  const parts = Object.entries(s)
    .filter(([k]) => !CONTEXT_KEYS.includes(k))
    .map(([k, v]) => `${k}=${String(v)}`);
  return parts.length ? parts.join(',') : 'all';
};
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const num = (x: number) => String(+x.toPrecision(4));

function operand(o: Operand, stat: string): string {
  const m = (metric: string | undefined) => (metric ? ` [${metric}]` : '');
  let s = `${stat}(${sel(o.series)}${m(o.metric)})`;
  if (o.minus) s += ` − ${stat}(${sel(o.minus)}${m(o.minusMetric ?? o.metric)})`;
  else if (o.minusMetric) s = `${stat}(${sel(o.series)} [${o.metric ?? 'time'} − ${o.minusMetric}])`;
  if (o.atMax) s += ` at the largest ${o.atMax}`;
  if (o.multiplyBy) s += ` × ${o.multiplyBy}`;
  return s;
}

function expectation(e: Expectation): string {
  const [lo, hi] = band(e);
  switch (e.expect) {
    case 'approx':
      return e.tolerance.of === 'excess'
        ? `≈ ${num(e.published)}, band 1 + (${num(e.published)} − 1) ×/÷ ${e.tolerance.factor} = ${num(lo)}–${num(hi)}`
        : `≈ ${num(e.published)}, band ×/÷ ${e.tolerance.factor} = ${num(lo)}–${num(hi)}`;
    case 'at-least':
      return `≥ ${num(e.limit)}${e.published !== undefined ? ` (published ${num(e.published)})` : ''}`;
    case 'at-most':
      return `≤ ${num(e.limit)}${e.published !== undefined ? ` (published ${num(e.published)})` : ''}`;
    case 'between':
      return `between ${num(e.min)} and ${num(e.max)}${e.published !== undefined ? ` (published ${num(e.published)})` : ''}`;
  }
}

/** One line: what a check computes, on which statistic, against what. */
export function describeCheck(c: Check): string {
  const stat = c.statistic ?? 'median';
  const per = (keys: string[] | undefined) => (keys?.length ? ` for each ${keys.join(',')}` : '');
  switch (c.type) {
    case 'flat':
      return `${stat} of ${sel(c.series)}${c.metric ? ` [${c.metric}]` : ''} over ${c.over}${per(c.eachOf)}: fitted line's end ÷ start within ×/÷ ${1 + c.maxRelativeChange}, no bump above ${1 + c.maxRelativeChange}×${c.maxSlopeFraction ? `, slope ≤ ${c.maxSlopeFraction.fraction * 100} % of ${sel(c.maxSlopeFraction.of)}'s where that one rises beyond the band` : ''}`;
    case 'grows-linearly':
      return `${stat} of ${sel(c.series)}${c.metric ? ` [${c.metric}]` : ''}${c.minus ? ` − ${sel(c.minus)}` : ''} over ${c.over}${per(c.eachOf)}: bow of the fitted parabola within ±${c.maxBow * 100} % of the rise, ${c.minGrowthFactor !== undefined ? `growth (largest x ÷ smallest) ≥ ${c.minGrowthFactor}×, a start above 0` : 'slope > 0'}, ≥ 3 values of ${c.over}`;
    case 'slope-ratio':
      return `slope over ${c.over} of ${stat}(${sel(c.numerator)}) ÷ of ${stat}(${sel(c.denominator)}) ${expectation(c)}`;
    case 'per-entry':
      return `slope over ${c.over} of ${stat}(${sel(c.series)})${c.entriesPerMb !== undefined ? ` ÷ ${c.entriesPerMb} entries per MB` : ''} ${expectation(c)} ${c.unit}`;
    case 'ratio':
      return `${operand(c.numerator, stat)} ÷ ${operand(c.denominator, stat)} ${expectation(c)}`;
    case 'value':
      return `${operand(c.operand, stat)} ${expectation(c)} ${c.unit}`;
    case 'greater':
      return `${operand(c.greater, stat)} ÷ ${operand(c.lesser, stat)} > ${num((c.minFactor ?? 1) * (1 - (c.slack ?? 0)))}${per(c.pairBy)}`;
    case 'approx-equal':
      return `max ÷ min of ${c.operands.map((o) => operand(o, stat)).join(', ')} ≤ ${c.maxFactor}`;
    case 'count-per':
      return `mean ${c.field} per page of ${sel(c.series)} = ${c.expected} ± ${c.maxAbsDeviation}`;
    case 'spread':
      return `(max − min) ÷ mean of the per-repeat ${stat}${per(c.eachOf)} ≤ ${c.maxRelativeSpread * 100} %`;
    case 'boolean':
      return `${c.field} is ${c.expected} in every repeat of ${c.variant ?? sel(c.series ?? {})} that counts`;
  }
}

function claimsTables(p: Published): string {
  const out: string[] = [];
  for (const a of p.articles) {
    const mine = p.claims.filter((c) => c.article === a.id);
    out.push(`#### Article ${a.id}`, '', '| id | kind | statement | judged on |', '|---|---|---|---|');
    for (const c of mine) out.push(`| \`${c.id}\` | ${c.kind} | ${cell(c.statement)} | \`${c.check.type}\` ${cell(describeCheck(c.check))} |`);
    out.push('');
  }
  for (const x of p.sources) {
    const mine = p.claims.filter((c) => c.source === x.id);
    out.push(`#### Source ${x.id}`, '', '| id | kind | statement | judged on |', '|---|---|---|---|');
    for (const c of mine) {
      const two = c.notJudgeable ? ` — *not judgeable here: ${cell(c.notJudgeable)}; this machine's figure shown beside it*` : '';
      out.push(`| \`${c.id}\` | ${c.kind} | ${cell(c.statement)}${two} | \`${c.check.type}\` ${cell(describeCheck(c.check))} |`);
    }
    out.push('');
  }
  return out.join('\n').trimEnd();
}

/** The sources beyond the articles: what each is, where it was published, what forklab judges its claims on. */
function sourcesTable(p: Published): string {
  const rows = p.sources.map((x) => {
    const where = x.address ? `<${x.address}>${x.addressNote ? `<br>*${cell(x.addressNote)}*` : ''}` : `*${cell(x.addressNote ?? 'address not confirmed')}*`;
    const figures = x.figures.map((f) => `${num(f.value)} ${cell(f.unit)} (${cell(f.label)})`).join('; ');
    const exps = x.experiment.map((e) => `\`${e}\``).join(', ');
    return `| \`${x.id}\` | ${cell(x.title)} | ${x.kind.replace(/-/g, ' ')} | ${x.year} | ${where} | ${cell(x.measuredOn)} | ${figures} | ${exps} | ${p.claims.filter((c) => c.source === x.id).length} |`;
  });
  return [
    '| id | title | kind | year | address | measured on, as it says | its figures (paraphrased) | forklab experiment | claims |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

function articlesTable(p: Published): string {
  const rows = p.articles.map((a) => {
    const exps = (Array.isArray(a.experiment) ? a.experiment : [a.experiment]).map((e) => `\`${e}\``).join(', ');
    const n = (xs: readonly { article?: string }[]) => xs.filter((x) => x.article === a.id).length;
    return `| ${a.id} | ${cell(a.title)}<br>*${cell(a.titleEn)}* | ${a.language} | ${cell(a.environment)} | ${exps} | ${n(p.figures)} / ${n(p.claims)} |`;
  });
  return ['| # | Title (original, *English*) | Lang. | Environment, as the article states it | forklab experiment | figures / claims |', '|---|---|---|---|---|---|', ...rows].join(
    '\n',
  );
}

/** How every verdict is reached, with the constants the code uses. */
function judging(): string {
  return [
    "* **Four verdicts.** *holds*: the whole 95 % interval of the measured quantity lies strictly inside the claim's band; *differs ×F*:",
    '  the whole interval lies outside (F = measured ÷ published, where the claim has a published value); *inconclusive*: the',
    '  interval straddles or touches an edge of the band (a value on an edge, such as integer kB readings whose median lands on',
    '  it, cannot tell which side the truth is on) — the verdict prints the interval and what would settle it (more repeats, a',
    '  quieter machine, `--pin`, `reproduce --settle`, or, when only the drift between runs keeps it open, several runs judged',
    '  together); *not measurable*: the data cannot answer, with the reason.',
    '* **Drift between runs** (`src/claims/drift.ts`, `src/stats/drift.ts`). Every interval is widened, before the band is applied,',
    "  by what the quantity varies by between runs on this machine beyond each run's own interval, learnt from the machine's",
    "  stored runs of it (a stated prior until there are some), and each quantity is the machine's value: this run's estimate pooled",
    "  with the machine's earlier runs of it (a random-effects mean); `--no-pool` judges the run alone, `--within-run` on its own",
    '  intervals (docs/reproduce.md, "Drift between runs").',
    `* **Rules of evidence** (\`src/claims/evidence.ts\`). A timing of 0 ns or below is refused at import and by judge. A timed`,
    `  series needs at least ${MIN_SAMPLES} samples ("one reading" for a single one) and some spread ("no spread: identical samples");`,
    "  a spread across repeats needs two repeats or more; a value of a key that the run's parameters name (or that the run",
    '  measured for other series) but whose configurations are missing makes the claims that need it not measurable, never',
    '  judged on the rest. A ratio needs two positive quantities (two falling slopes are no "16× steeper": a slope whose whole',
    '  interval lies at or below 0 makes it not measurable, one whose point falls but whose interval reaches above 0, as on a',
    '  busy machine, inconclusive, the slope given with its interval; an at-most ratio',
    '  of a difference, "barely changes", is judged on the difference\'s size, so a fall counts as a change). Identical repeats',
    '  are refused: two fresh probe processes whose timings agree sample for sample (a repeat copied into another) are no evidence.',
    '* **Shapes are judged with intervals too.** "greater": the interval of the ratio lies strictly above the factor (a tie',
    '  never passes); "flat": the interval of the least-squares line\'s value at the largest x ÷ at the smallest inside',
    "  ×/÷ (1 + the limit), the trend the article's own flat figures are read by; a bump the line does not follow differs",
    '  once the interval of the largest ÷ the smallest statistic lies above the limit (with pooled repeats its ends come',
    "  from every pair's own, docs/noise.md); the slope share, where a check names one, inside its limit wherever the",
    '  reference line itself is shown to rise beyond the band (where it is not, the two may both be flat and the share',
    '  cannot tell them apart: the band decides); "grows linearly": at least three distinct x values, the growth factor',
    '  (the statistic at the largest x ÷ at the smallest) inside its limit, a start (the statistic at the smallest x) above 0 (entirely ≤ 0:',
    "  not measurable; reaching 0: inconclusive; without a growth factor, the slope's interval above 0), and straight: the",
    '  bow of the least-squares parabola through the points (its largest gap from its chord ÷ its rise; a pure x² bows',
    '  25 %) within ±`maxBow`; "approx-equal": max ÷ min\'s interval inside the limit; a spread across repeats: each',
    '  repeat resampled within itself; a yes/no outcome: every repeat that counts agrees (mixed outcomes are inconclusive).',
    '* **Intervals respect how the data were taken** (`src/stats/resample.ts`, the one bootstrap): a resample draws the repeats',
    '  (probe processes) with replacement, then the samples within each drawn repeat, so run-to-run swings widen the interval;',
    "  series timed in the same iterations (create's thread and fork, exec's fork+_exit, dynamic, static and getppid, cow's",
    "  passes, spawn's and vma's methods in one probe) are resampled together (paired); configurations measured by separate",
    '  probes but round by round (repeat r of each in round r, in shuffled order) share their draws of rounds, so what a',
    '  round shares (the machine at that time)',
    '  cancels in their ratios. Medians are taken by counting ranks. Percentile intervals at 95 %, from',
    `  ${RESAMPLES} resamples, fewer on large data so that no interval draws more than ${MAX_DRAWS.toLocaleString('en')} samples, never fewer than ${MIN_RESAMPLES};`,
    `  an interval needs ${MIN_FINITE_SHARE * 100} % of its resamples to give a finite value (else it is unbounded, and the verdict inconclusive).`,
    '  Over few repeats the interval is widened about its point by the small-sample factor t(R − 1) ÷ z · √(R ÷ (R − 1))',
    `  (\`src/stats/clusters.ts\`: ${clusterWidening(2).toFixed(1)}× for 2 repeats, ${clusterWidening(3).toFixed(1)}× for 3, ${clusterWidening(5).toFixed(1)}× for 5): R probe processes show their spread through R values only, and`,
    '  a verdict must not be decided by two lucky ones (on a loaded machine it decides fewer, instead of deciding wrongly).',
    '  Timings of experiments whose series are not paired (spawn, vma, pagetables, deadlock) borrow strength instead where',
    "  every cell has two repeats or more: the run's repeats of every cell, pooled on the log scale, give the scatter and its",
    '  degrees of freedom (`src/stats/repeat-pool.ts`, docs/noise.md "Few repeats"); a cell whose own repeats disagree far',
    '  beyond the pool (one-sided 1 %) is drawn with its own, larger, scatter, and left out of the pool.',
    '  Times and ratios of positive quantities are widened on the log scale (each edge k times as many-fold from the point:',
    '  a ratio never reaches 0×); differences, slopes and shares, which may pass through 0, on the linear scale.',
    "  Seeded by the run's `--seed`: the same data and seed give the same verdicts.",
    '* **Bands keep the claim\'s direction.** `approx` is published ×/÷ factor, or with `tolerance.of: "excess"` a tolerance on the',
    '  ratio minus one, 1 + (published − 1) ×/÷ factor, so that "A costs about 1.61× B" never holds when A ≤ B; the validator',
    '  refuses a ratio band of N > 1 times that reaches down to 1.',
    `* **Conditions verified first.** Data labelled THP on count only when AnonHugePages covered at least ${THP_ON_MIN * 100} % of the region,`,
    `  THP off at most ${THP_OFF_MAX * 100} %; otherwise every claim (and figure) using them is *not measurable: THP was not applied (X of Y MB in`,
    '  huge pages)*. A deadlock child counts as deadlocked only when it reported ETIMEDOUT (a killed or silent child is left out,',
    "  and said). An incomplete run, failed configurations and the run's warnings reach the",
    "  verdict's notes; a single repeat is noted (its interval shows iteration noise only).",
    "* **Statistic.** Each claim is judged on its `statistic`: the article's own for magnitudes and slopes compared with the",
    '  article (000: means; 002: medians and minimums), the median for shapes (a few stalls on a busy machine move a mean).',
  ].join('\n');
}

function optionsTable(cmd: Command): string {
  const rows = cmd.options.map(
    (o: Option) => `| \`${o.flags}\` | ${cell(o.description)}${o.defaultValue !== undefined && o.defaultValue !== false ? ` (default ${String(o.defaultValue)})` : ''} |`,
  );
  return ['| option | meaning |', '|---|---|', ...rows].join('\n');
}

function commandsSection(): string {
  const program = new Command('forklab');
  registerReproduceCommand(program);
  registerJudgeCommand(program);
  const out: string[] = [];
  for (const cmd of program.commands) {
    const args = cmd.registeredArguments.map((a) => (a.variadic ? `${a.name().toUpperCase()}…` : a.name().toUpperCase())).join(' ');
    out.push(`### \`forklab ${cmd.name()}${args ? ` ${args}` : ''}\``, '', cmd.description(), '', optionsTable(cmd), '');
  }
  return out.join('\n').trimEnd();
}

function presetsTable(): string {
  // What reproduce runs: an experiment's presets, or the settings it gives reproduce instead (or why it is not run).
  const fmt = (name: string, quick: boolean) => {
    const o = reproducePresetFor(name, quick);
    if (o === null) return '';
    if ('notRun' in o) return cell(o.notRun);
    return Object.entries(o)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
  };
  const rows = EXPERIMENTS.filter((e) => e.presets).map(
    (e) => `| \`${e.name}\` | ${e.article || `source ${e.source}`} | ${fmt(e.name, false)} | ${fmt(e.name, true)} | ${cell(e.presets.note)} |`,
  );
  return ["| experiment | article | full (the articles' settings) | quick | why |", '|---|---|---|---|---|', ...rows].join('\n');
}

export type Sections = Record<string, string>;

/** Every generated section, by file and name. */
export function generatedSections(p: Published = loadPublished()): Record<string, Sections> {
  return {
    'docs/published-figures.md': { articles: articlesTable(p), sources: sourcesTable(p), judging: judging(), claims: claimsTables(p) },
    'docs/reproduce.md': { commands: commandsSection(), presets: presetsTable(), judging: judging() },
  };
}

/** The text with each marked section replaced; throws when a marker is missing. */
export function applySections(text: string, sections: Sections, file: string): string {
  let out = text;
  for (const [name, body] of Object.entries(sections)) {
    const start = `<!-- generated:${name} -->`;
    const end = `<!-- end generated:${name} -->`;
    const i = out.indexOf(start);
    const j = out.indexOf(end);
    if (i < 0 || j < i) throw new Error(`${file}: no ${start} … ${end} section`);
    out = `${out.slice(0, i + start.length)}\n${body}\n${out.slice(j)}`;
  }
  return out;
}
