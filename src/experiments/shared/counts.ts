// --iterations, --warmup and --repeats, defined once: how many timed samples a probe process takes, how many
// untimed ones come first, and how many fresh probe processes measure each configuration. An experiment says what
// one of them counts (its --help text), its default, unit and the most it allows; the flag, its value's name, the
// least value and the error messages are the same on every command.
import { parseInteger, str } from '../../text/parse.js';
import type { CommandOptions, OptionSpec } from '../contract/types.js';

export type CountName = 'iterations' | 'warmup' | 'repeats';

/** The least value of each: at least one timed sample and one probe process; no warm-up is allowed. */
const LEAST: Readonly<Record<CountName, number>> = { iterations: 1, warmup: 0, repeats: 1 };

export interface CountSpec {
  /** What one counts, in this experiment's words ("warm-up rounds per probe process (not recorded)"). */
  description: string;
  /** Absent where the default depends on other flags (runtimes' --quick): the description says it. */
  defaultValue?: string;
  unit?: string;
  /** The most this experiment allows. */
  max: number;
}

export type CountSpecs = Partial<Readonly<Record<CountName, CountSpec>>>;

function specOf(name: CountName, specs: CountSpecs): CountSpec {
  const spec = specs[name];
  if (!spec) throw new Error(`no --${name} among these counts`);
  return spec;
}

/** The option --help shows for one count. */
export function countOption(name: CountName, specs: CountSpecs): OptionSpec {
  const { description, defaultValue, unit } = specOf(name, specs);
  return { flags: `--${name} <n>`, description, ...(defaultValue !== undefined && { defaultValue }), ...(unit !== undefined && { unit }) };
}

/** The order --help lists the counts in, unless an experiment gives its own. */
const COUNT_ORDER: readonly CountName[] = ['iterations', 'warmup', 'repeats'];

/** The options --help shows for these counts, in this order. */
export function countOptions(specs: CountSpecs, names: readonly CountName[] = COUNT_ORDER): OptionSpec[] {
  return names.map((name) => countOption(name, specs));
}

/**
 * --iterations, --warmup and --repeats from the command line, read in that order (the first bad one is the error);
 * `defaults` in place of the specs' own where the defaults depend on other flags (runtimes' --quick).
 */
export function parseCounts(raw: CommandOptions, specs: CountSpecs, defaults: Partial<Record<CountName, string>> = {}): Record<CountName, number> {
  return {
    iterations: parseCount('iterations', raw, specs, defaults.iterations),
    warmup: parseCount('warmup', raw, specs, defaults.warmup),
    repeats: parseCount('repeats', raw, specs, defaults.repeats),
  };
}

/** One count from the command line's options (its default when not given); a UsageError names the flag. */
export function parseCount(name: CountName, raw: CommandOptions, specs: CountSpecs, defaultValue?: string): number {
  const spec = specOf(name, specs);
  const fallback = defaultValue ?? spec.defaultValue;
  if (fallback === undefined) throw new Error(`--${name} has no default`);
  return parseInteger(`--${name}`, str(raw, name, fallback), LEAST[name], spec.max);
}
