// --target PROGRAM [ARGS…] for the experiments that start a program (spawn, exec): the parameters it adds and how
// the terminal names it.
import { targetFromOptions } from '../../runner/target.js';
import type { CommandOptions } from '../contract/types.js';

/** { target, targetArgs } when --target was given (checked: an executable file), {} for the built-in target. */
export function targetParams(raw: CommandOptions): { target?: string; targetArgs?: string[] } {
  const t = targetFromOptions(raw);
  return t ? { target: t.path, targetArgs: t.args } : {};
}

/** The program and its arguments as a shell would take them back: `/usr/bin/git --version 'a b'`. */
export function targetCommandLine(path: string, args: readonly string[]): string {
  const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  return [path, ...args].map(quote).join(' ');
}
