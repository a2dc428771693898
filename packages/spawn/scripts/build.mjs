#!/usr/bin/env node
// Builds the addon (native/) with node-gyp when the package is installed.
// node-gyp downloads Node's headers unless told where they are: when the running Node ships its headers
// (include/node/node_api.h under its prefix), that prefix is passed as --nodedir, so that an install
// works offline. Elsewhere node-gyp behaves as usual.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const pkgDir = dirname(dirname(fileURLToPath(import.meta.url)));
const prefix = dirname(dirname(process.execPath));
const args = ['rebuild'];
if (existsSync(join(prefix, 'include', 'node', 'node_api.h'))) args.push(`--nodedir=${prefix}`);

function findNodeGyp() {
  const fromNpm = process.env.npm_config_node_gyp;
  if (fromNpm && existsSync(fromNpm)) return fromNpm;
  const bundled = join(prefix, 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  if (existsSync(bundled)) return bundled;
  try {
    return createRequire(import.meta.url).resolve('node-gyp/bin/node-gyp.js');
  } catch {
    return null;
  }
}

if (process.platform !== 'linux') {
  console.error(`@forklab/spawn: Linux only (posix_spawn + pidfd); nothing built on ${process.platform}.`);
  process.exit(0);
}
const gyp = findNodeGyp();
if (!gyp) {
  console.error('@forklab/spawn: cannot find node-gyp to build the addon; install npm with its bundled node-gyp.');
  process.exit(1);
}
const env = { ...process.env };
if (env.npm_config_nodedir === '') delete env.npm_config_nodedir;
// What the build needs, checked first: one line naming what is missing instead of node-gyp's output.
const found = (cmd) => spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0;
const lacking = [found(process.env.CC || 'cc') || found('gcc') ? null : 'gcc', found('make') ? null : 'make', found(process.env.PYTHON || 'python3') ? null : 'python3'].filter(
  Boolean,
);
if (lacking.length > 0) {
  console.error(
    `@forklab/spawn: cannot build the addon: ${lacking.join(', ')} not found; install with \`sudo apt-get install ${lacking.join(' ')}\` (Debian/Ubuntu), then install again`,
  );
  process.exit(1);
}
const r = spawnSync(process.execPath, [gyp, ...args], { stdio: 'inherit', env, cwd: pkgDir });
if (r.status !== 0) {
  console.error('@forklab/spawn: building the addon failed; it needs a C compiler (gcc), make and python3.');
  process.exit(r.status ?? 1);
}
