// A run's view with a conclusion at its head, for the report tests: experiments put one first; the reports must
// lead with it whatever it says.
import { findExperiment } from '../../src/experiments/index.js';
import { conclusion } from '../../src/experiments/contract/view.js';

/** Runs f while `experiment`'s view starts with a conclusion of `lines` (any conclusion of its own replaced). */
export async function withConclusion<T>(experiment: string, lines: string[], f: () => T | Promise<T>): Promise<T> {
  const exp = findExperiment(experiment)!;
  const view = exp.view;
  exp.view = (run) => [conclusion(lines), ...view.call(exp, run).filter((b) => b.kind !== 'conclusion')];
  try {
    return await f();
  } finally {
    exp.view = view;
  }
}
