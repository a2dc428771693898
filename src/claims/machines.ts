// Verdicts per machine: the documents grouped by machine (src/env/machine-key.ts) and each machine judged on its
// own runs. Pooling machines mixes their differences into what the intervals call noise, so it is done only when
// asked for, and then every verdict says so.
import type { RunDocument } from '../document/run.js';
import { machineKey, machineName, stableFields } from '../env/machine-key.js';
import type { MachineRecord } from '../env/machine.js';
import type { Published } from '../reference/published.js';
import { judgeDocuments, type Judged, type JudgeOptions } from './judge.js';

/** A short name for people: "host (kernel, N CPUs)". */
function machineLabel(m: MachineRecord | null | undefined): string {
  if (!m) return 'an unknown machine';
  return `${machineName(m)} (${m.kernel ?? '?'}, ${m.cpuCount ?? '?'} CPUs)`;
}

/** The stable fields in which two machine records differ: "node a vs b", "kernel 6.1 vs 6.6". */
function machineDifferences(a: MachineRecord, b: MachineRecord): string[] {
  const fa = stableFields(a);
  const fb = stableFields(b);
  return Object.keys(fa)
    .filter((k) => JSON.stringify(fa[k]) !== JSON.stringify(fb[k]))
    .map((k) => `${k} ${String(fa[k])} vs ${String(fb[k])}`);
}

export interface MachineGroup {
  key: string;
  label: string;
  docs: RunDocument[];
}

/** The documents by machine, in the order their machines first appear. */
export function groupByMachine(docs: readonly RunDocument[]): MachineGroup[] {
  const groups = new Map<string, MachineGroup>();
  for (const d of docs) {
    const key = d.machine ? machineKey(d.machine) : 'unknown machine';
    const g = groups.get(key) ?? { key, label: machineLabel(d.machine), docs: [] };
    g.docs.push(d);
    groups.set(key, g);
  }
  // Two machines with one label (same host, another kernel): the label says which.
  const labels = new Map<string, number>();
  for (const g of groups.values()) labels.set(g.label, (labels.get(g.label) ?? 0) + 1);
  return [...groups.values()].map((g, i) => (labels.get(g.label)! > 1 ? { ...g, label: `${g.label} #${i + 1}` } : g));
}

/** Why the groups are separate machines, in words: "host a vs b; kernel 6.1 vs 6.6". */
export function whyApart(groups: readonly MachineGroup[]): string {
  if (groups.length < 2) return '';
  return machineDifferences(groups[0]!.docs[0]!.machine, groups[1]!.docs[0]!.machine).join('; ');
}

/** Every machine judged on its own runs (and, given `driftOf`, with the drift between runs learnt from its own history). */
export function judgeEachMachine(
  docs: readonly RunDocument[],
  opts: JudgeOptions,
  p?: Published,
  driftOf?: (group: MachineGroup) => JudgeOptions['drift'],
): { group: MachineGroup; judged: Judged }[] {
  return groupByMachine(docs).map((group) => ({ group, judged: judgeDocuments(group.docs, driftOf ? { ...opts, drift: driftOf(group) } : opts, p) }));
}

/** The runs of several machines pooled into one judgement, which every verdict notes. No machine's history applies to the pool. */
export function judgeMixed(docs: readonly RunDocument[], opts: JudgeOptions, p?: Published): Judged {
  const groups = groupByMachine(docs);
  const judged = judgeDocuments(docs, groups.length > 1 && opts.drift?.history ? { ...opts, drift: { ...opts.drift, history: {} } } : opts, p);
  if (groups.length < 2) return judged;
  const note = `pooled from ${groups.length} machines (${groups.map((g) => g.label).join(', ')}; --mix-machines): the interval counts the machines' differences as noise`;
  return { ...judged, verdicts: judged.verdicts.map((v) => ({ ...v, notes: [...v.notes, note] })) };
}
