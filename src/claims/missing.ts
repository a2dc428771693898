// Why a claim cannot be judged when the run did not measure what it needs, said in words and with the flag that
// measures it: "this run measured posix-spawn only; the claim needs fork-exec (run spawn with --methods
// fork-exec,…)", never in the document's keys ("method=fork-exec").
import { findSweep } from '../experiments/index.js';
import { NotMeasurable } from './data.js';
import { plainPair, plainSeries } from './plain.js';
import type { Series } from '../reference/published.js';
import { words } from '../text/words.js';

/** A configuration the claim needs was not measured (a hole in the evidence, not a failed probe). */
export class NotMeasured extends NotMeasurable {
  constructor(reason: string) {
    super(reason);
    this.name = 'NotMeasured';
  }
}

const camel = (flag: string) => flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** The flag of an experiment that chooses a field's values (method: --methods, rssMb: --rss, thp: --thp); null when none does. */
export function flagForField(experiment: string, key: string): string | null {
  for (const o of findSweep(experiment)?.options ?? []) {
    const flag = o.flags.split(/[ ,]/)[0]!;
    const name = camel(flag);
    if (o.param === key || name === key || name === `${key}s` || (key.startsWith(name) && /^(Mb|Kb|Ms|Ns|Bytes)$/.test(key.slice(name.length)))) return flag;
  }
  return null;
}

const inWords = (xs: readonly string[]) => (xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);

/**
 * The run has no configuration with key = value: what it measured of that key, what the claim needs, and how to
 * measure it ("run spawn with --methods fork-exec,…"), or that this experiment's options do not choose it.
 */
export function notMeasuredValue(experiment: string, key: string, value: unknown, measured: readonly string[]): NotMeasured {
  const had = measured.length ? `this run measured ${inWords(measured.map((v) => plainPair(key, v)))} only` : `this run recorded no ${words(key)}`;
  const flag = flagForField(experiment, key);
  const how = flag ? ` (run ${experiment} with ${flag} ${String(value)},…)` : '';
  return new NotMeasured(`${had}; the claim needs ${plainPair(key, value)}${how}`);
}

/** The run has no configuration with every value of the selector together (each alone was measured). */
export function notMeasuredTogether(experiment: string, sel: Series): NotMeasured {
  return new NotMeasured(`this run of ${experiment} did not measure ${plainSeries(sel)} together, which the claim needs`);
}
