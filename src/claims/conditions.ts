// Conditions a configuration's label promises, verified before its data are used: a configuration labelled
// THP on counts only when AnonHugePages covered at least THP_ON_MIN of its region, THP off only when at most
// THP_OFF_MAX did. Otherwise every claim (and figure) that uses it is not measurable, with the numbers.
import { findExperiment } from '../experiments/index.js';
import { NotMeasurable, type Config, type ExperimentData } from './data.js';

/** Share of the region that must be in huge pages for "THP on" data to count. */
export const THP_ON_MIN = 0.9;
/** Share of the region that may be in huge pages for "THP off" data to count. */
export const THP_OFF_MAX = 0.1;

const mb = (kb: number) => (kb / 1024).toFixed(kb % 1024 === 0 ? 0 : 1);

/** Throws NotMeasurable naming the first configuration whose THP label its huge pages do not bear out (for an experiment with a THP condition). */
function verifyThp(data: ExperimentData, configs: readonly Config[]): void {
  const cond = findExperiment(data.experiment)?.thpCondition;
  if (!cond) return;
  for (const c of configs) {
    const thp = c[cond.field];
    if (thp !== 'on' && thp !== 'off') continue;
    const size = typeof c[cond.regionMbField] === 'number' ? (c[cond.regionMbField] as number) : null;
    if (size === null || size <= 0) continue; // no region: nothing for THP to apply to
    const regionKb = size * 1024;
    const huge = c[cond.hugePagesKbField];
    const where = `${data.experiment} ${typeof c['series'] === 'string' ? `${c['series']} ` : ''}at ${size} MB, repeat ${String(c['repeat'] ?? '?')}`;
    if (typeof huge !== 'number') throw new NotMeasurable(`THP ${thp} cannot be verified: ${where} does not record ${cond.hugePagesKbField} (AnonHugePages)`);
    if (thp === 'on' && huge < THP_ON_MIN * regionKb)
      throw new NotMeasurable(`THP was not applied (${mb(huge)} of ${size} MB in huge pages; THP on needs ≥ ${THP_ON_MIN * 100} %) — ${where}`);
    if (thp === 'off' && huge > THP_OFF_MAX * regionKb)
      throw new NotMeasurable(`THP off was not honoured (${mb(huge)} of ${size} MB in huge pages; THP off allows ≤ ${THP_OFF_MAX * 100} %) — ${where}`);
  }
}

/** Every condition a selection of configurations must meet before its data are used. */
export function verifyConditions(data: ExperimentData, configs: readonly Config[]): void {
  verifyThp(data, configs);
}
