// The user's program for --target: found as a shell would (a name without a slash is looked up in PATH), checked
// to be an executable regular file before any measurement, and recorded by its absolute path.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { UsageError } from '../errors.js';

export interface UserTarget {
  /** Absolute path of the program that is executed. */
  path: string;
  /** Its arguments (argv[1…]). */
  args: string[];
}

function executableFile(path: string): 'ok' | 'missing' | 'not-a-file' | 'not-executable' {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(path);
  } catch {
    return 'missing';
  }
  if (!st.isFile()) return 'not-a-file';
  try {
    accessSync(path, constants.X_OK);
    return 'ok';
  } catch {
    return 'not-executable';
  }
}

/** Resolves --target PROGRAM; throws UsageError naming --target and the problem. */
export function resolveTarget(program: string, args: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): UserTarget {
  if (program.trim() === '') throw new UsageError('--target', 'is empty; give a program: --target /usr/bin/true, or a name found in PATH');
  if (program.includes('/')) {
    const path = isAbsolute(program) ? program : resolve(program);
    const state = executableFile(path);
    if (state === 'missing') throw new UsageError('--target', `${program}: no such file`);
    if (state === 'not-a-file') throw new UsageError('--target', `${program} is not a regular file`);
    if (state === 'not-executable')
      throw new UsageError('--target', `${program} is not executable`, `chmod +x ${program}, or give the program that runs it (--target /bin/sh -- ${program})`);
    return { path, args: [...args] };
  }
  const dirs = (env.PATH ?? '').split(delimiter).filter((d) => d !== '');
  let found: 'missing' | 'not-a-file' | 'not-executable' = 'missing';
  for (const dir of dirs) {
    const path = resolve(join(dir, program));
    const state = executableFile(path);
    if (state === 'ok') return { path, args: [...args] };
    if (state === 'not-executable') found = state;
  }
  throw new UsageError(
    '--target',
    found === 'not-executable' ? `${program} was found in PATH but is not executable` : `${program}: not found in PATH`,
    "give the program's path (--target ./build/mytool), or check PATH",
  );
}

/** --target and its arguments from the command line (raw.target, raw.targetArgs); null for the built-in target. */
export function targetFromOptions(raw: Record<string, unknown>): UserTarget | null {
  const args = Array.isArray(raw.targetArgs) ? (raw.targetArgs as string[]) : [];
  if (typeof raw.target === 'string') return resolveTarget(raw.target, args);
  if (args.length)
    throw new UsageError(
      '--target',
      `${args.map((a) => JSON.stringify(a)).join(' ')}: arguments only go with --target PROGRAM`,
      'forklab spawn --target PROGRAM -- ARGS…, or leave the arguments out',
    );
  return null;
}
