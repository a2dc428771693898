#!/usr/bin/env node
// forklab's install script. The C probe: built here with node-gyp where a C compiler, make, python3 and static
// glibc are present (as always); otherwise, on linux-x64 and linux-arm64, the prebuilt set that ships in the package
// (prebuilds/linux-<arch>: scripts/prebuild.mjs) is used, with one line saying so. A missing compiler never fails
// the install there; on any other CPU it stops with one line naming what is missing. Then the history's SQLite
// engine (scripts/build-sqlite.mjs), which never fails the install either.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildProbe } from './build-native.mjs';
import { ensureSqlite } from './build-sqlite.mjs';
import { missingProbeTools, missingToolsLine } from './check-build-tools.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;

/** The prebuilt set for this CPU when its probe reports this version and its targets run: { buildId, libc, note }. */
function usablePrebuilt() {
  if (process.arch !== 'x64' && process.arch !== 'arm64') return null;
  const dir = join(root, 'prebuilds', `linux-${process.arch}`);
  if (!existsSync(join(dir, 'BUILD.json'))) return null;
  const m = JSON.parse(readFileSync(join(dir, 'BUILD.json'), 'utf8'));
  const run = (name, args = []) => spawnSync(join(dir, name), args, { encoding: 'utf8', timeout: 30_000 });
  const v = run('forklab-probe', ['--version']);
  if (v.status !== 0 || v.stdout.trim() !== version) return null;
  if (run('forklab-target-static').status !== 0) return null;
  const dyn = run('forklab-target-dynamic');
  const note =
    dyn.status === 0
      ? ''
      : ` Its dynamic exec target does not start here (${dyn.error?.code ?? `exit ${dyn.status}`}: it needs glibc's ld.so), so forklab exec cannot time exec-dynamic.`;
  return { buildId: m.buildId, libc: /glibc [0-9.]+/.exec(m.toolchain?.static ?? '')?.[0] ?? 'glibc', note };
}

function probe() {
  const missing = missingProbeTools();
  if (missing.length === 0) {
    const r = buildProbe({ printFailure: false });
    if (r.ok) {
      console.log(`forklab: built the C probe (native/ → build/Release) in ${r.seconds.toFixed(1)} s`);
      return true;
    }
    const pre = usablePrebuilt();
    if (pre) {
      console.error(
        `forklab: building the C probe failed (${r.reason}); using the prebuilt one, build id ${pre.buildId} (FORKLAB_BUILD_VERBOSE=1 npm rebuild forklab shows the build).${pre.note}`,
      );
      return true;
    }
    buildProbe({ verbose: true }); // again, with all its output, to show why
    console.error(
      `forklab: building the C probe failed (${r.reason}); forklab needs a C compiler (gcc), make and python3, and static glibc (libc6-dev) for the static exec target.`,
    );
    return false;
  }
  const pre = usablePrebuilt();
  if (pre) {
    console.log(`forklab: using the prebuilt C probe, build id ${pre.buildId} (static, ${pre.libc} inside); nothing to compile.${pre.note}`);
    return true;
  }
  console.error(missingToolsLine(missing));
  return false;
}

if (!probe()) process.exit(1);
const db = ensureSqlite();
if (db.line) (db.ok ? console.log : console.error)(db.line);
