// The bad-input block every experiment's test has: each set of raw options is refused by parse() (or another
// check) before any work, with a UsageError that names the flag and begins with it.
import assert from 'node:assert/strict';
import { UsageError } from '../../src/errors.js';
import type { CommandOptions } from '../../src/experiments/contract/types.js';

/** A predicate for assert.throws: a UsageError for `flag` whose message begins with the flag (and matches `also`). */
export const usageErrorFor =
  (flag: string, also?: RegExp) =>
  (e: unknown): boolean =>
    e instanceof UsageError && e.flag === flag && e.message.startsWith(flag) && (also === undefined || also.test(e.message));

/** Asserts that `parse` refuses every case with a UsageError naming its flag. */
export function assertRefused(parse: (raw: CommandOptions) => unknown, cases: readonly (readonly [CommandOptions, string])[]): void {
  for (const [raw, flag] of cases) assert.throws(() => parse(raw), usageErrorFor(flag), JSON.stringify(raw));
}
