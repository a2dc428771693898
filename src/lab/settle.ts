// `reproduce --settle SECONDS`: after the reproduction, the configurations behind the inconclusive verdicts are
// measured again in fresh probes, look after look, until each is decided or the budget is spent. Every look
// re-judges the claims still open on all their probes so far, at a stricter confidence: look k (k = 1, 2, …) at
// 1 − 0.05 ÷ 2^k, so that the chance of deciding an open claim wrongly over all looks stays below 0.05 (alpha
// spending: 0.025 + 0.0125 + … < 0.05). Verdicts decided before settling stay as they were. docs/reproduce.md.
import { configsBehind, narrowParams } from '../claims/needs.js';
import { dataFor } from '../claims/select.js';
import { judgeDocuments, type Judged } from '../claims/judge.js';
import type { Verdict } from '../claims/evaluate.js';
import type { Experiment, Warning } from '../experiments/contract/types.js';
import type { Published } from '../reference/published.js';
import type { RunDocument } from '../document/run.js';
import type { Store } from '../store/db.js';
import type { DriftOptions } from '../claims/drift.js';
import { runExperiment, type ProgressDisplay } from './experiment.js';
import { splitInconclusive } from './judge.js';

/** The error the looks may spend in all, and the most looks a budget buys. */
export const SETTLE_ALPHA = 0.05;
export const MAX_LOOKS = 6;
/** Confidence of look k (1-based). */
export const lookConfidence = (k: number): number => 1 - SETTLE_ALPHA / 2 ** k;

export interface SettleStep {
  name: string;
  exp: Experiment<unknown, unknown> | null;
  params: unknown;
}

export interface SettleInput {
  steps: readonly SettleStep[];
  docs: RunDocument[];
  judged: Judged;
  budgetS: number;
  seed: number;
  pinCpu: number | null | 'default';
  articles: readonly string[];
  /** The sources judged beside the articles. */
  sources?: readonly string[];
  absent: Readonly<Record<string, string>>;
  published: Published;
  signal: AbortSignal;
  store: Store | null;
  label?: string;
  warn: (name: string, w: Warning) => void;
  /** A line for the user about each look (the caller decides where it goes). */
  note(line: string): void;
  /** Where each look's progress is shown; absent: nowhere. */
  progress?: ProgressDisplay;
  /** The drift between runs every look's verdicts are widened by (the reproduction's own). */
  drift?: DriftOptions;
}

export interface SettleOutcome {
  judged: Judged;
  /** Documents the looks measured (after the reproduction's own). */
  added: RunDocument[];
  /** Claims settled, with the look that decided them. */
  settled: { claimId: string; verdict: Verdict['verdict']; look: number; confidence: number }[];
  /** Claims still open, and why. */
  open: { claimId: string; why: string }[];
  looks: number;
  spentS: number;
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Runs the looks; verdicts decided at a look replace the inconclusive ones in the judgement. */
export async function settle(i: SettleInput): Promise<SettleOutcome> {
  const t0 = performance.now();
  const deadline = t0 + i.budgetS * 1000;
  const docs = [...i.docs];
  const added: RunDocument[] = [];
  const verdicts = new Map(i.judged.verdicts.map((v) => [v.claimId, v]));
  const settled: SettleOutcome['settled'] = [];
  const why = new Map<string, string>();
  // A verdict this run alone decides is held open by the drift between runs: a look is more probes of the same
  // run, whose drift it shares, so it cannot settle it. Say so instead of spending the budget on it.
  const split = splitInconclusive(i.judged.verdicts);
  for (const v of split.heldByDrift)
    why.set(v.claimId, `only the drift between runs here keeps it open (this run alone: ${v.withinRun!.verdict}); more probes of this run cannot settle it`);
  let open = split.open.map((v) => v.claimId);
  const driftBound = split.heldByDrift.map((v) => v.claimId);
  let looks = 0;
  const claimsOf = (ids: readonly string[]) => i.published.claims.filter((c) => ids.includes(c.id));
  while (open.length > 0 && looks < MAX_LOOKS && !i.signal.aborted) {
    const k = looks + 1;
    let measured = false;
    for (const name of [...new Set(claimsOf(open).map((c) => c.experiment))]) {
      const step = i.steps.find((s) => s.name === name);
      const claims = claimsOf(open).filter((c) => c.experiment === name);
      if (!step?.exp) {
        for (const c of claims) why.set(c.id, `${name} cannot run here`);
        continue;
      }
      const mine = docs.filter((d) => d.experiment === name);
      const all = dataFor(mine, name).configs;
      const behind = configsBehind(claims, all);
      const params = narrowParams(step.params, behind);
      // The time a look of this experiment takes: its last run's, scaled to the share of configurations kept.
      const last = mine[mine.length - 1]!;
      const estimateMs = last.durationMs * (behind.length / Math.max(1, last.configurations.length));
      if (performance.now() + estimateMs > deadline) {
        for (const c of claims) why.set(c.id, `the budget is spent (another look at ${name} takes about ${secs(estimateMs)})`);
        continue;
      }
      const shown = `[settle, look ${k}] ${name}`;
      const label = `${shown} (fresh probes for ${claims.length} open claim${claims.length === 1 ? '' : 's'})`;
      i.note(`${label} …`);
      try {
        // A look belongs to the run it settles: the same session, whose drift between runs it shares.
        const of = mine.find((d) => typeof d.params?.['settleOf'] !== 'string')?.runId ?? 'unstored';
        const { run, doc } = await runExperiment(
          step.exp,
          { ...(params as object), settleOf: of },
          {
            pinCpu: i.pinCpu,
            seed: i.seed + k,
            signal: i.signal,
            progress: i.progress,
            progressLabel: shown, // the open claims are in the line above: every step's line stays short
            store: i.store,
            label: i.label,
          },
        );
        if (i.signal.aborted) break;
        for (const w of run.warnings) i.warn(name, w);
        docs.push(doc);
        added.push(doc);
        measured = true;
        i.note(`${label} ran in ${secs(doc.durationMs)}`);
      } catch (e) {
        for (const c of claims) why.set(c.id, `the look at ${name} failed: ${(e as Error).message}`);
      }
    }
    if (!measured) break;
    looks = k;
    const confidence = lookConfidence(k);
    const again = judgeDocuments(docs, { articles: i.articles, sources: i.sources ?? [], seed: i.seed, absent: i.absent, confidence, drift: i.drift }, i.published);
    const still: string[] = [];
    for (const id of open) {
      const v = again.verdicts.find((x) => x.claimId === id)!;
      if (v.verdict === 'inconclusive') {
        still.push(id);
        why.set(id, `still straddles its band after ${k} look${k === 1 ? '' : 's'} (at ${(confidence * 100).toFixed(2)} %): ${v.settle ?? 'more repeats'}`);
        verdicts.set(id, v);
        continue;
      }
      const note = `settled by reproduce --settle at look ${k}, on all its probes so far, at ${(confidence * 100).toFixed(2)} % confidence (alpha spending over the looks keeps the chance of a wrong decision below ${SETTLE_ALPHA * 100} %)`;
      verdicts.set(id, { ...v, notes: [...v.notes, note] });
      settled.push({ claimId: id, verdict: v.verdict, look: k, confidence });
      why.delete(id);
    }
    open = still;
  }
  for (const id of open) if (!why.has(id)) why.set(id, looks >= MAX_LOOKS ? `undecided after ${MAX_LOOKS} looks` : i.signal.aborted ? 'interrupted' : 'the budget is spent');
  const judged = added.length
    ? {
        ...judgeDocuments(docs, { articles: i.articles, sources: i.sources ?? [], seed: i.seed, absent: i.absent, drift: i.drift }, i.published),
        verdicts: i.judged.verdicts.map((v) => verdicts.get(v.claimId)!),
      }
    : i.judged;
  const stillOpen = [...driftBound, ...open];
  return { judged, added, settled, open: stillOpen.map((id) => ({ claimId: id, why: why.get(id)! })), looks, spentS: (performance.now() - t0) / 1000 };
}

/** The summary's paragraph on settling: how many settled, what stays open and why. */
export function settleSummary(s: SettleOutcome, budgetS: number, before: number): string {
  const lines = [
    `Settling (--settle ${budgetS}): ${s.settled.length} of ${before} inconclusive verdict${before === 1 ? '' : 's'} settled in ${s.looks} look${s.looks === 1 ? '' : 's'} (${s.spentS.toFixed(0)} s of ${budgetS} s; look k judged at 1 − 0.05 ÷ 2^k).`,
  ];
  for (const x of s.settled) lines.push(`  settled ${x.claimId}: ${x.verdict} at look ${x.look} (${(x.confidence * 100).toFixed(2)} %)`);
  for (const x of s.open) lines.push(`  open ${x.claimId}: ${x.why}`);
  return `${lines.join('\n')}\n`;
}
