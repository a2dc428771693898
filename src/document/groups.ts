// A run document's configurations grouped over their repeats: the one grouping the reports (src/report/groups.ts)
// and `compare`, `show` and `export` (src/store/compare.ts) read. Two configurations are repeats of one when their
// series and identity (the fields their experiment declares as identity, src/document/run.ts) are the same; what a
// group's figures are (pooled statistics, a label) is for its reader.
import type { Configuration, Scalar } from '../experiments/contract/types.js';
import { splitConfiguration, type RunDocument } from './run.js';

/** One configuration of a run with its repeats. */
export interface ConfigurationGroup {
  /** What tells it from the run's other groups, and the same group in another run of its experiment: its series and identity. */
  key: string;
  series: string;
  /** Its identity fields as its first configuration holds them, in the document's order. */
  identity: Record<string, Scalar>;
  /** Its configuration objects, one per repeat, in the document's order. */
  configurations: Configuration[];
}

/**
 * How configurations are grouped: 'identity', repeats of one configuration together (for an experiment this forklab
 * does not know, every field is taken as identity); 'configuration', each configuration object alone.
 */
export type GroupingBy = 'identity' | 'configuration';

const byName = ([x]: [string, Scalar], [y]: [string, Scalar]) => (x < y ? -1 : x > y ? 1 : 0);

/** The configurations of a document grouped, in the order their first configuration comes in. */
export function groupConfigurations(doc: RunDocument, by: GroupingBy = 'identity'): ConfigurationGroup[] {
  const groups = new Map<string, ConfigurationGroup>();
  doc.configurations.forEach((c, i) => {
    const series = c.series;
    const { identity } = splitConfiguration(doc.experiment, c);
    const key = by === 'configuration' ? String(i) : JSON.stringify([series, Object.entries(identity).sort(byName)]);
    const g = groups.get(key);
    if (g) g.configurations.push(c);
    else groups.set(key, { key, series, identity, configurations: [c] });
  });
  return [...groups.values()];
}
