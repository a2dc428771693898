#!/usr/bin/env node
// npm run bench:prebuilt [-- --pairs N SELFCHECK FLAGS]: `forklab selfcheck` with the prebuilt probe set for this CPU
// (prebuilds/linux-<arch>, chosen by FORKLAB_NATIVE_DIR) and with the one built here (build/Release), alternately,
// N pairs (default 2; the order flips each pair), each side's full output labelled. Faithful either way means the
// same ratios to the plain C loops within the noise on both sides. Run it on a quiet machine; default flags:
// --suites all --rounds 8.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);
let pairs = 2;
const at = args.indexOf('--pairs');
if (at >= 0) {
  pairs = Number(args[at + 1]);
  args.splice(at, 2);
  if (!Number.isInteger(pairs) || pairs < 1) throw new Error('bench:prebuilt: --pairs takes a whole number of 1 or more');
}
const flags = args.length > 0 ? args : ['--suites', 'all', '--rounds', '8'];
const prebuilt = join(root, 'prebuilds', `linux-${process.arch}`);
const built = join(root, 'build', 'Release');
for (const [dir, what] of [
  [prebuilt, 'the prebuilt set'],
  [join(built, 'forklab-probe'), 'a probe built here (npm rebuild, or node scripts/build-native.mjs)'],
])
  if (!existsSync(dir)) throw new Error(`bench:prebuilt: ${what} is missing: ${dir}`);
const sides = { prebuilt: { FORKLAB_NATIVE_DIR: prebuilt }, 'built here': { FORKLAB_NATIVE_DIR: built } };
for (let i = 0; i < pairs; i++) {
  const order = i % 2 === 0 ? ['prebuilt', 'built here'] : ['built here', 'prebuilt'];
  for (const side of order) {
    console.log(`\n== pair ${i + 1}/${pairs}: ${side} (${sides[side].FORKLAB_NATIVE_DIR}), selfcheck ${flags.join(' ')}`);
    spawnSync(process.execPath, [join(root, 'bin', 'forklab.js'), 'selfcheck', ...flags], { stdio: 'inherit', env: { ...process.env, ...sides[side] } });
  }
}
