// What a report concludes about one run: the verdicts of the claims that run can judge and its figures beside the
// published ones, both from the claims engine (src/claims/judge.ts, the path `reproduce` and `judge` take), mapped
// to the shapes the HTML and Markdown views draw. A run of the user's own program (--target) judges no claim.
import type { RunDocument } from '../document/run.js';
import type { Published } from '../reference/published.js';
import { judgeDocuments } from '../claims/judge.js';
import type { FigureComparison } from '../claims/figures.js';
import { findExperiment } from '../experiments/index.js';
import { articleOf, configLabel } from './groups.js';
import type { Scalar } from '../experiments/contract/types.js';
import { inWords } from './in-words.js';
import { derivedFigure, gistOf, reasoningOf } from './verdict-lines.js';

/** This machine beside one published figure, both in `unit`. */
export interface PublishedComparison {
  label: string;
  publishedValue: number;
  measuredValue: number;
  unit: string;
  article?: string;
  figureId?: string;
  statistic?: string;
  /** The figure in the article's words ("fork()+exec() from a 1024 MB parent, huge pages off") and the article's title. */
  figureLabel?: string;
  articleTitle?: string;
  /** The article's own condition when forklab reproduces it with an equivalent one (e.g. THP default under "always"). */
  note?: string;
  /** The configuration the figure is at, in the run's identity fields (series, method, rssMb, thp…): where a chart draws it. */
  series?: Record<string, Scalar>;
}

export interface ClaimVerdict {
  claimId: string;
  statement: string;
  verdict: 'holds' | 'differs' | 'inconclusive' | 'not-measurable';
  /** The verdict in words, with its figures and what would settle it: the reasoning's sentences in one paragraph. */
  detail: string;
  /** This machine against the article in one short phrase, for the verdict's one line. */
  gist?: string;
  /** The reasoning sentence by sentence (absent: the detail is the one sentence). */
  reasoning?: string[];
  /** Notes on the evidence (a run's warnings, say), in words; a report says the ones every verdict shares once. */
  notes?: string[];
}

export interface RunConclusions {
  verdicts: ClaimVerdict[];
  comparisons: PublishedComparison[];
  /** Why nothing was judged, when nothing was. */
  note: string | null;
}

/** Claims and published figures of the run's own experiment, judged on this run alone (seeded: same run, same verdicts). */
export function runConclusions(doc: RunDocument, published: Published, seed = 1): RunConclusions {
  const article = articleOf(doc.experiment);
  if (typeof doc.params.target === 'string')
    return { verdicts: [], comparisons: [], note: `this run measured ${doc.params.target} (--target), not the article's program: no claim is judged` };
  if (!article) {
    // An experiment of no article answers a source beyond the articles, whose claims judge and reproduce judge.
    const source = findExperiment(doc.experiment)?.source;
    const note = source
      ? `a ${doc.experiment} run answers source ${source}, not an article: its claims are judged by forklab judge on the run`
      : `a ${doc.experiment} run is not one of the articles' experiments: no published claim applies to it`;
    return { verdicts: [], comparisons: [], note };
  }
  const j = judgeDocuments([doc], { seed, articles: [article], sources: [] }, published);
  const verdicts: ClaimVerdict[] = j.verdicts
    .filter((v) => v.experiment === doc.experiment)
    .map((v, i) => {
      const reasoning = reasoningOf(v, i === 0); // where the drift comes from: said with the first verdict only
      return {
        claimId: v.claimId,
        statement: v.statement,
        verdict: v.verdict,
        detail: reasoning.join(' '),
        gist: gistOf(v, derivedFigure(j.figures, v.claimId)),
        reasoning,
        notes: v.notes.map(inWords),
      };
    });
  const comparisons = publishedComparisons(j.figures, published, doc.experiment);
  return { verdicts, comparisons, note: verdicts.length ? null : `no claim of article ${article} is about ${doc.experiment} alone` };
}

/** This machine beside each published figure of one experiment that it measured (a reproduction's figures, or one run's). */
export function publishedComparisons(figures: readonly FigureComparison[], published: Published, experiment: string): PublishedComparison[] {
  const comparisons: PublishedComparison[] = [];
  const exp = findExperiment(experiment);
  const context = exp?.contextKeys ?? [];
  /** A published series' label: its series named by the series field where the figure names it so. */
  const publishedSeriesLabel = (s: Record<string, Scalar>) => configLabel(experiment, String((exp?.seriesField ? s[exp.seriesField] : undefined) ?? s.series ?? ''), s);
  const seen = new Set<string>();
  for (const f of figures) {
    if (f.experiment !== experiment || f.measured === null || seen.has(f.figureId)) continue;
    const figure = published.figures.find((x) => x.id === f.figureId);
    if (!figure) continue;
    seen.add(f.figureId); // one row per figure
    const where = Object.fromEntries(Object.entries(figure.equivalentSeries ?? figure.series).filter(([k]) => !context.includes(k))) as Record<string, Scalar>;
    comparisons.push({
      label: `${publishedSeriesLabel(where)} · ${f.statistic}`,
      figureLabel: figure.label,
      articleTitle: published.articles.find((a) => a.id === f.article)?.titleEn,
      publishedValue: f.published,
      measuredValue: f.measured,
      unit: f.unit,
      article: f.article,
      figureId: f.figureId,
      statistic: f.statistic,
      series: where,
      note: f.detail.startsWith('as computed by claim') ? f.detail.split(':')[0]! : `this machine: ${publishedSeriesLabel(where)}`,
    });
  }
  return comparisons;
}
