// What node-gyp needs to build a C addon or executable here: a C compiler, make and python3. Shared by this
// package's install script and forklab's (which also needs static glibc for its static target).
import { spawnSync } from 'node:child_process';

const has = (cmd) => {
  const r = spawnSync(cmd, ['--version'], { stdio: 'ignore', timeout: 10_000 });
  return !r.error && r.status === 0;
};

/** [what is missing, the Debian package that brings it] for each tool node-gyp needs and this machine lacks. */
export function missingBuildTools(env = process.env) {
  const missing = [];
  if (!has(env.CC || 'cc') && !has('gcc')) missing.push(['a C compiler (gcc)', 'gcc']);
  if (!has('make')) missing.push(['make', 'make']);
  if (!has(env.PYTHON || 'python3')) missing.push(['python3 (node-gyp runs it)', 'python3']);
  return missing;
}
