// bench:http's servers: which runtime runs http-server.mjs, and with which way of starting the child; and
// where Bun and Deno are found (--bun/--deno, PATH, $FORKLAB_TEST_RUNTIMES/NAME-VERSION/bin/NAME as the tests
// read it, node_modules/.bin).
import { accessSync, constants, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export const VARIANTS = [
  { id: 'node-child_process', runtime: 'node', what: "Node, node:child_process's spawn", command: (exe, server) => [exe, server, 'api=child_process'] },
  {
    id: 'node-register',
    runtime: 'node',
    what: 'Node under --import @forklab/spawn/register, the same code',
    command: (exe, server) => [exe, '--import', '@forklab/spawn/register', server, 'api=child_process'],
  },
  { id: 'bun-child_process', runtime: 'bun', what: "Bun, its node:child_process's spawn", command: (exe, server) => [exe, server, 'api=child_process'] },
  { id: 'bun-spawn', runtime: 'bun', what: 'Bun, Bun.spawn', command: (exe, server) => [exe, server, 'api=bun-spawn'] },
  { id: 'deno-child_process', runtime: 'deno', what: "Deno, its node:child_process's spawn", command: (exe, server) => [exe, 'run', '-A', server, 'api=child_process'] },
  { id: 'deno-command', runtime: 'deno', what: 'Deno, Deno.Command', command: (exe, server) => [exe, 'run', '-A', server, 'api=deno-command'] },
  // references, run only when named in --variants: the same server answering `hi` without starting a child (what
  // the HTTP part alone costs in each runtime)
  { id: 'node-no-child', runtime: 'node', reference: true, what: 'Node, no child (reference)', command: (exe, server) => [exe, server, 'api=none'] },
  { id: 'bun-no-child', runtime: 'bun', reference: true, what: 'Bun, no child (reference)', command: (exe, server) => [exe, server, 'api=none'] },
];

/** The variants run when --variants is not given: all but the references. */
export const DEFAULT_VARIANTS = VARIANTS.filter((v) => !v.reference).map((v) => v.id);

const executable = (p) => {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

const newest = (names) => names.sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).pop();

export function findRuntime(name, env = process.env) {
  for (const dir of (env.PATH ?? '').split(delimiter)) if (dir && executable(join(dir, name))) return join(dir, name);
  const root = env.FORKLAB_TEST_RUNTIMES;
  if (root) {
    let dirs = [];
    try {
      dirs = readdirSync(root).filter((d) => d.startsWith(`${name}-`) && executable(join(root, d, 'bin', name)));
    } catch {
      dirs = [];
    }
    if (dirs.length) return join(root, newest(dirs), 'bin', name);
  }
  const local = join(process.cwd(), 'node_modules', '.bin', name);
  return executable(local) ? local : null;
}
