// The life of a judgement without measuring (`forklab judge`): the runs grouped by machine, each machine judged on
// its own runs with the drift between runs learnt from its own history (or the machines pooled, when asked, and
// every verdict then says so), the inconclusive verdicts split into those more probes could settle and those the
// drift holds open, the advice of what to run next, and the verdicts document. Documents in, a typed judgement
// out: no command-line parsing, no printing.
import { hostname } from 'node:os';
import { VERDICTS_BY_MACHINE_SCHEMA, verdictsDocument, type Judged } from '../claims/judge.js';
import { groupByMachine, judgeEachMachine, judgeMixed, type MachineGroup } from '../claims/machines.js';
import type { DriftOptions } from '../claims/drift.js';
import type { Verdict } from '../claims/evaluate.js';
import type { RunDocument } from '../document/run.js';
import type { Store } from '../store/db.js';
import { FORKLAB_VERSION } from '../version.js';
import { driftHistory } from './drift-history.js';

export interface JudgePlan {
  seed: number;
  /** Today's intervals alone, without the machine's drift between runs. */
  withinRun: boolean;
  /** Each run pooled with the machine's earlier runs (false with --no-pool). */
  pool: boolean;
  /** The runs of several machines pooled into one verdict per claim. */
  mixMachines: boolean;
}

export interface JudgeContext {
  /** The history the drift between runs is learnt from, read only; null: none (or --within-run). */
  history: Store | null;
  /** Told once when old runs are judged for their estimates. */
  note(line: string): void;
}

/** One judgement: of one machine's runs, or (group null) of every run given, pooled or from one machine. */
export interface MachineJudgement {
  group: MachineGroup | null;
  docs: RunDocument[];
  judged: Judged;
}

export interface Judgement {
  /** The machines the runs come from, in the order they first appear. */
  groups: MachineGroup[];
  parts: MachineJudgement[];
}

/** Judges the documents: one judgement per machine, unless they come from one machine or `mixMachines` pools them. */
export function judgeRuns(docs: RunDocument[], plan: JudgePlan, ctx: JudgeContext): Judgement {
  const { seed } = plan;
  const groups = groupByMachine(docs);
  const driftOf = (d: readonly RunDocument[]): DriftOptions =>
    plan.withinRun ? { withinRun: true } : driftHistory(ctx.history, d, { keep: false, seed, note: ctx.note, pool: plan.pool });
  const parts: MachineJudgement[] =
    plan.mixMachines || groups.length === 1
      ? [{ group: null, docs, judged: judgeMixed(docs, { seed, drift: driftOf(docs) }) }]
      : judgeEachMachine(docs, { seed }, undefined, (g) => driftOf(g.docs)).map((x) => ({ ...x, docs: x.group.docs }));
  return { groups, parts };
}

/** Whether the machines of a judgement were pooled into it (--mix-machines). */
export const pooledMachines = (j: Judgement, part: MachineJudgement): boolean => j.groups.length > 1 && !part.group;

/** The verdicts document: one judgement's, or one per machine under forklab.verdicts-by-machine. */
export function judgementDocument(j: Judgement, seed: number): object {
  const one = (x: MachineJudgement) => ({
    ...verdictsDocument(x.docs, x.judged, seed, FORKLAB_VERSION),
    machines: (x.group ? [x.group] : j.groups).map((g) => ({ key: g.key, label: g.label })),
    ...(pooledMachines(j, x) ? { mixedMachines: true } : {}),
  });
  return j.parts.length === 1 ? one(j.parts[0]!) : { schema: VERDICTS_BY_MACHINE_SCHEMA, schemaVersion: 1, forklabVersion: FORKLAB_VERSION, seed, byMachine: j.parts.map(one) };
}

/**
 * The inconclusive verdicts, split: those the drift between runs holds open (the runs alone decide them, so more
 * probes of the same runs cannot settle them), and the rest, which more probes may decide.
 */
export function splitInconclusive(verdicts: readonly Verdict[]): { open: Verdict[]; heldByDrift: Verdict[] } {
  const inconclusive = verdicts.filter((v) => v.verdict === 'inconclusive');
  const heldByDrift = inconclusive.filter((v) => v.withinRun && v.withinRun.verdict !== 'inconclusive');
  return { open: inconclusive.filter((v) => !heldByDrift.includes(v)), heldByDrift };
}

/** What to run next for a judgement's inconclusive verdicts (empty when none): settle the open ones, judge runs together for the rest. */
export function settleAdvice(part: MachineJudgement): string {
  const { open, heldByDrift } = splitInconclusive(part.judged.verdicts);
  const here = part.docs.every((d) => d.machine?.hostname === hostname());
  return (
    (open.length
      ? `\nNext: forklab reproduce${here ? '' : ' (on that machine)'} --quick --only ${[...new Set(open.map((v) => v.article))].join(',')} --settle 300 measures these articles again and then, in fresh probes, only what the ${open.length} inconclusive verdict${open.length === 1 ? ' rests' : 's rest'} on, until each is decided or 300 s are spent (docs/reproduce.md, "Settling").\n`
      : '') +
    (heldByDrift.length
      ? `\n${heldByDrift.length} inconclusive verdict${heldByDrift.length === 1 ? ' is' : 's are'} held open by the drift between runs on this machine, not by these runs' noise: judge runs made at different times together (forklab judge RUN RUN …; docs/reproduce.md, "Drift between runs").\n`
      : '')
  );
}
