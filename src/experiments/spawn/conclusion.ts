// spawn's conclusion (article 000), said before any table: how fork+exec grows with the parent's RSS per THP mode,
// whether the methods whose child shares the parent's memory stay flat, and how much cheaper the cheapest of them
// is at the largest RSS, each with the article's figure beside it and never more than the intervals establish.
import { getFigure } from '../../reference/published.js';
import { median } from '../../stats/descriptive.js';
import { cellChange, cellRatio, cellSpread, fmtRatioCi, fmtTime, fmtTimes, poolOfCells, ratioSays, runCells, slopeOfMedians, type RunCell } from '../shared/conclude.js';
import type { ShownRun } from '../contract/types.js';
import { CHILD_MEMORY, METHODS, THP_MODES, type Method, type SpawnParams, type SpawnSummary, type ThpMode } from './summary.js';

/** How the methods are said in words. */
export const METHOD_WORDS: Readonly<Record<Method, string>> = {
  'fork-exec': 'fork+exec',
  'vfork-exec': 'vfork+exec',
  'posix-spawn': 'posix_spawn',
  'clone-vfork': 'clone(CLONE_VFORK)',
  'fork-exit': 'fork+_exit',
};

/** Flat: the line fitted through the medians over RSS ends within ×/÷ this of its start, whole interval, with no bump shown above it (the article's claim allows 25 %). */
const FLAT_FACTOR = 1.25;

/** The article's thp "always" is forklab's THP on (MADV_HUGEPAGE); its figures are means. */
const ARTICLE_THP: Partial<Record<ThpMode, string>> = { off: 'thp-off', on: 'thp-default' };

function articleFigure(id: string): number | null {
  return getFigure(id)?.value ?? null;
}

const words = (ms: readonly Method[]) => {
  const w = ms.map((m) => METHOD_WORDS[m]);
  return w.length <= 1 ? (w[0] ?? '') : `${w.slice(0, -1).join(', ')} and ${w.at(-1)}`;
};

/** One to three lines: what grew and how fast, what stayed flat, the ratio at the largest RSS; the article beside them. */
export function spawnConclusion(run: ShownRun<SpawnSummary, SpawnParams>, seed = 1): string[] {
  const p = run.params;
  const probes = (p as { probes?: string }).probes === 'child-memory';
  const cells = runCells(
    run.measurements,
    (m) => `${m.series}|${String(m.identity.thp)}|${String(m.identity.rssMb)}`,
    (m) => (probes ? `${String(m.identity.thp)}|${String(m.identity.rssMb)}|${CHILD_MEMORY[m.series as Method] ?? m.series}` : null),
  );
  if (cells.size === 0) return ['No configuration was measured: nothing to conclude.'];
  const pool = poolOfCells(cells.values());
  const cell = (m: Method, thp: ThpMode, rss: number): RunCell | undefined => cells.get(`${m}|${thp}|${rss}`);
  const med = (c: RunCell) => median(c.repeats.flat());
  const article = !p.target; // the article timed /bin/true: a user's own program is not its measurement
  const rssAll = [...new Set(run.summary.cells.map((c) => c.rssMb))].sort((a, b) => a - b);
  const thps = THP_MODES.filter((t) => run.summary.cells.some((c) => c.thp === t)).sort((a, b) => (a === 'off' ? -1 : b === 'off' ? 1 : 0));
  const methods = METHODS.filter((m) => run.summary.cells.some((c) => c.method === m));
  const copying = methods.filter((m) => CHILD_MEMORY[m] === 'copy');
  const sharing = methods.filter((m) => CHILD_MEMORY[m] === 'shared');
  const lo = rssAll[0]!;
  const hi = rssAll.at(-1)!;
  const lines: string[] = [];
  if (rssAll.length >= 2) {
    // 1. what copies the parent's memory: growth per MB, per THP mode
    for (const m of copying.slice(0, 1)) {
      const parts: string[] = [];
      for (const thp of thps) {
        const a = cell(m, thp, lo);
        const b = cell(m, thp, hi);
        if (!a || !b) continue;
        const pts = rssAll.flatMap((x) => (cell(m, thp, x) ? [{ x, medianNs: med(cell(m, thp, x)!) }] : []));
        const slopeNs = slopeOfMedians(pts);
        const growth = cellRatio(b, a, pool, seed);
        const span = `${fmtTime(med(a))} → ${fmtTime(med(b))} over ${lo}–${hi} MB`;
        const fig = article && m === 'fork-exec' && ARTICLE_THP[thp] ? articleFigure(`000.${ARTICLE_THP[thp]}.fork-exec.slope`) : null;
        const besides = fig !== null ? `; article 000: ${fig} µs/MB` : '';
        if (ratioSays(growth) === 'above' && slopeNs > 0)
          parts.push(`grows ${(slopeNs / 1000).toPrecision(3)} µs per MB with THP ${thp} (${span}, ${fmtTimes(growth.ratio)}${fmtRatioCi(growth)}${besides})`);
        else parts.push(`with THP ${thp} its growth is not established (${span}, ${fmtTimes(growth.ratio)}${fmtRatioCi(growth)}${besides})`);
      }
      if (parts.length) lines.push(`${METHOD_WORDS[m]} ${parts.join('; ')}.`);
    }
    // 2. what shares it: flat, growing, or neither established
    if (sharing.length) {
      const groups = sharing.flatMap((m) =>
        thps
          .map((thp) => {
            const xs = rssAll.filter((x) => cell(m, thp, x) !== undefined);
            return { m, thp, xs, cs: xs.map((x) => cell(m, thp, x)!) };
          })
          .filter((g) => g.cs.length >= 2),
      );
      const all = groups.flatMap((g) => g.cs.map(med));
      const level = `${fmtTime(Math.min(...all))}–${fmtTime(Math.max(...all))}`;
      const spreads = groups.map((g) => ({
        ...g,
        change: cellChange(g.cs, g.xs, pool, seed),
        bump: cellSpread(g.cs, pool, seed),
        up: cellRatio(g.cs.at(-1)!, g.cs[0]!, pool, seed),
      }));
      const growing = spreads.filter((g) => ratioSays(g.up) === 'above');
      const within = (r: { low: number | null; high: number | null }) => r.low !== null && r.high !== null && r.low >= 1 / FLAT_FACTOR && r.high <= FLAT_FACTOR;
      const bumped = (r: { low: number | null }) => r.low !== null && r.low > FLAT_FACTOR;
      if (spreads.length && spreads.every((g) => within(g.change) && !bumped(g.bump)))
        lines.push(`${words(sharing)} stay flat at ~${fmtTime(median(all))} (every line fitted over RSS ends within ×/÷ ${FLAT_FACTOR} of its start, whole 95 % interval).`);
      else if (growing.length)
        lines.push(
          `${words(sharing)} (${level}): ${growing.map((g) => `${METHOD_WORDS[g.m]} with THP ${g.thp} grows ${fmtTimes(g.up.ratio)}${fmtRatioCi(g.up)} from ${lo} to ${hi} MB`).join('; ')}; flat is not established.`,
        );
      else {
        // the line whose interval reaches farthest from flat: why flatness is not established, in numbers
        const reach = (r: { low: number | null; high: number | null }) => (r.low !== null && r.high !== null ? Math.max(-Math.log(r.low), Math.log(r.high)) : -1);
        const widest = spreads.filter((g) => reach(g.change) > 0).sort((x, y) => reach(y.change) - reach(x.change))[0];
        const why = widest
          ? ` (${METHOD_WORDS[widest.m]} with THP ${widest.thp}: the line over RSS ends ${fmtTimes(widest.change.ratio)}${fmtRatioCi(widest.change)} its start)`
          : '';
        lines.push(
          `${words(sharing)} show no growth with RSS (${level} from ${lo} to ${hi} MB), but flat within ${Math.round((FLAT_FACTOR - 1) * 100)} % is not established${why}.`,
        );
      }
    }
  }
  // 3. at the largest RSS: the cheapest sharing method against fork+exec (THP off first, where fork copies most)
  const dear = copying[0];
  if (dear && sharing.length) {
    for (const thp of thps) {
      const f = cell(dear, thp, hi);
      const cheap = sharing.map((m) => ({ m, c: cell(m, thp, hi) })).filter((x): x is { m: Method; c: RunCell } => x.c !== undefined);
      if (!f || cheap.length === 0) continue;
      const best = cheap.reduce((a, b) => (med(b.c) < med(a.c) ? b : a));
      const r = cellRatio(f, best.c, pool, seed);
      const aFig = article && ARTICLE_THP[thp] && hi === 1024 ? articleFigure(`000.${ARTICLE_THP[thp]}.${dear}.rss1024`) : null;
      const bFig = article && ARTICLE_THP[thp] && hi === 1024 ? articleFigure(`000.${ARTICLE_THP[thp]}.${best.m}.rss1024`) : null;
      const besides = aFig !== null && bFig !== null ? ` (article 000: ${fmtTimes(aFig / bFig)})` : '';
      const at = `At ${hi} MB with THP ${thp}`;
      const says = ratioSays(r);
      if (says === 'above') lines.push(`${at} ${METHOD_WORDS[best.m]} is ${fmtTimes(r.ratio)} cheaper than ${METHOD_WORDS[dear]}${fmtRatioCi(r)}${besides}.`);
      else if (says === 'below')
        lines.push(
          `${at} ${METHOD_WORDS[best.m]} is ${fmtTimes(1 / r.ratio)} dearer than ${METHOD_WORDS[dear]}${fmtRatioCi({ ratio: 1 / r.ratio, low: 1 / r.high!, high: 1 / r.low! })}${besides}.`,
        );
      else lines.push(`${at} ${METHOD_WORDS[dear]} ÷ ${METHOD_WORDS[best.m]} is ${fmtTimes(r.ratio)}${fmtRatioCi(r)}: a difference is not established${besides}.`);
      break;
    }
  }
  return lines.slice(0, 3);
}
