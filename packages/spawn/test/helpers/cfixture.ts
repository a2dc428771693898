// C programs and addons the tests need to make a situation Node cannot make by itself (a foreign waitpid(-1),
// a kernel without waitid(P_PIDFD)), compiled from test/fixtures/*.c with the system's C compiler into the test
// file's temporary directory. null when there is no compiler: the test then skips, saying so.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { tempDir } from '../../../../test/helpers/tmp.js';
import { pkgDir } from './addon.js';

let dir: string | undefined;
const built = new Map<string, string | null>();
export let cfixtureWhyNot = '';

/** fixtures/NAME.c as a program (kind 'exe') or an N-API addon ('addon'); null without a compiler. */
export function cfixture(name: string, kind: 'exe' | 'addon'): string | null {
  const key = `${name}:${kind}`;
  if (built.has(key)) return built.get(key) ?? null;
  dir ??= tempDir('forklab-spawn-cfixture-');
  const out = join(dir, kind === 'addon' ? `${name}.node` : name);
  const nodeInclude = join(process.execPath, '..', '..', 'include', 'node');
  const flags = kind === 'addon' ? ['-shared', '-fPIC', `-I${nodeInclude}`] : [];
  const r = spawnSync('cc', ['-O1', '-D_GNU_SOURCE', ...flags, '-o', out, join(pkgDir, 'test', 'fixtures', `${name}.c`)], { encoding: 'utf8', timeout: 60_000 });
  const ok = r.status === 0;
  if (!ok) cfixtureWhyNot = r.error ? `no C compiler (cc: ${r.error.message}; apt-get install gcc)` : `cc failed: ${r.stderr}`;
  built.set(key, ok ? out : null);
  return ok ? out : null;
}
