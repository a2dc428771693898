#!/usr/bin/env node
// Builds the C probe (native/) with node-gyp into build/Release.
// node-gyp downloads Node's headers unless it is told where they are; a Node install that ships its
// headers (include/node/node_api.h under the prefix of the running node) is used as --nodedir so that
// `npm ci` works offline. Elsewhere node-gyp behaves as usual.
// Quiet on success (one line); node-gyp's and the compiler's full output is printed only when the build fails,
// or always with FORKLAB_BUILD_VERBOSE=1. Run on its own, a failed build exits non-zero.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { findNodeGyp, nodeGypArgs, nodeGypEnv } from '@forklab/spawn/scripts/find-node-gyp.mjs';

const HELP = 'forklab needs a C compiler (gcc), make and python3, and static glibc (libc6-dev) for the static exec target';

/** Builds the probe: { ok: true, seconds } or { ok: false, reason } (node-gyp's output already printed). */
export function buildProbe({ verbose = Boolean(process.env.FORKLAB_BUILD_VERBOSE), printFailure = true } = {}) {
  const gyp = findNodeGyp();
  if (!gyp) return { ok: false, reason: 'node-gyp (bundled with npm) not found' };
  const started = Date.now();
  const r = spawnSync(process.execPath, [gyp, ...nodeGypArgs()], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: verbose ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    env: nodeGypEnv(),
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status === 0) return { ok: true, seconds: (Date.now() - started) / 1000 };
  const errText = `${r.stderr ?? ''}`;
  if (!verbose && printFailure) {
    // Everything node-gyp and the compiler said: their output, then their errors.
    if (r.stdout?.length) process.stderr.write(r.stdout);
    if (r.stderr?.length) process.stderr.write(r.stderr);
  }
  const firstError = errText.split('\n').find((l) => /error/i.test(l) && !/^gyp ERR! (stack|System|command|cwd|node -v|node-gyp -v|not ok)/.test(l));
  return { ok: false, reason: r.error?.message ?? firstError?.trim() ?? `node-gyp exited ${r.status}` };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = buildProbe();
  if (!r.ok) {
    console.error(`forklab: building the C probe failed (${r.reason}); ${HELP}.`);
    process.exit(1);
  }
  console.log(`forklab: built the C probe (native/ → build/Release) in ${r.seconds.toFixed(1)} s`);
}
