// A flag given more than once never silently keeps its last value. A list (a comma-separated value: --methods,
// --runtime, --only, ...) gathers every value it is given, as one list would (`--runtime a=X --runtime b=Y` is
// `--runtime a=X,b=Y`); a variadic flag (--input FILES...) gathers them already; a switch (--quick) means the
// same however often it is given; any other flag given twice is refused, naming it, before the command starts.
import type { Command, Option } from 'commander';
import { UsageError } from '../errors.js';

/** The value names that say a flag takes a comma-separated list (`--methods <list>`, `--runtime <NAME=PATH,...>`). */
const LIST_VALUES: readonly string[] = ['list', 'articles', 'lines', 'labels', 'NAME=PATH,...'];

/** What a flag given again does: gathers (a list), variadic (commander gathers), switch (no value), once (refused). */
export type Repetition = 'gathers' | 'variadic' | 'switch' | 'once';

export function repetitionOf(o: Option): Repetition {
  if (o.variadic) return 'variadic';
  if (!o.required && !o.optional) return 'switch';
  const value = /[<[]([^>\]]+)[>\]]$/.exec(o.flags)?.[1];
  return value !== undefined && LIST_VALUES.includes(value) ? 'gathers' : 'once';
}

/** "3 and 5", "1, 2 and 3"; a file flag given without FILE is "(no FILE)". */
function said(values: readonly (string | undefined)[]): string {
  const shown = values.map((v) => (v === undefined ? '(no FILE)' : JSON.stringify(v)));
  return shown.length === 2 ? shown.join(' and ') : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
}

/**
 * Makes every flag of `cmd` and of its subcommands, however deep, behave as the header says. Call it once the
 * whole program is built: a flag added later is not covered.
 */
export function guardRepeatedFlags(cmd: Command): void {
  const given = new Map<Option, (string | undefined)[]>();
  const guarded = cmd.options.filter((o) => repetitionOf(o) === 'gathers' || repetitionOf(o) === 'once');
  for (const o of guarded) {
    const gathers = repetitionOf(o) === 'gathers';
    // Commander has set the value (the last one) when this runs: a list is set again to all of them.
    cmd.on(`option:${o.name()}`, (value: string | undefined) => {
      const values = [...(given.get(o) ?? []), value];
      given.set(o, values);
      if (gathers && values.length > 1) cmd.setOptionValueWithSource(o.attributeName(), values.join(','), 'cli');
    });
  }
  if (guarded.length > 0)
    cmd.hook('preAction', () => {
      const twice = [...given].find(([o, values]) => repetitionOf(o) === 'once' && values.length > 1);
      given.clear();
      if (twice) {
        const [o, values] = twice;
        const times = values.length === 2 ? 'twice' : `${values.length} times`;
        throw new UsageError(o.long ?? o.flags, `given ${times} (${said(values)}); it takes one value: give it once`);
      }
    });
  for (const sub of cmd.commands) guardRepeatedFlags(sub);
}
