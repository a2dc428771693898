// What building the C probe needs and this machine lacks: a C compiler, make and python3 (node-gyp), and static
// glibc for the static exec target. The install script (scripts/install.mjs) uses the prebuilt probe instead when
// something is missing; run on its own, this prints one line naming what is missing and exits 1.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { missingBuildTools } from '@forklab/spawn/scripts/build-tools.mjs';

const STATIC_LIBC = ['/usr/lib/x86_64-linux-gnu/libc.a', '/usr/lib/aarch64-linux-gnu/libc.a', '/usr/lib64/libc.a', '/usr/lib/libc.a'];

/** [what, Debian package] for each missing tool. */
export function missingProbeTools(env = process.env) {
  const missing = missingBuildTools(env);
  if (!STATIC_LIBC.some((f) => existsSync(f))) missing.push(['static glibc (libc.a)', 'libc6-dev']);
  return missing;
}

/** The one line that names what is missing and how to get it. */
export function missingToolsLine(missing) {
  const what = missing.map((m) => m[0]).join(', ');
  const pkgs = missing.map((m) => m[1]).join(' ');
  return `forklab: cannot build the C probe: ${what} not found; install with \`sudo apt-get install ${pkgs}\` (Debian/Ubuntu; Fedora: gcc make python3 glibc-static), then run npm ci again`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const missing = missingProbeTools();
  if (missing.length > 0) {
    console.error(missingToolsLine(missing));
    process.exit(1);
  }
}
