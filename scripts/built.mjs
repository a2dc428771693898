// Whether a TypeScript build holds the current sources: every SRC/**/*.ts (.cts, .mts) has its output in each of
// the build's output directories (.js, .cjs, .mjs), written after it and after the tsconfig files that made it.
// The tests run built code only then, and the sources through tsx otherwise (test/helpers/cli.ts: forklab's command
// line; packages/spawn/test/helpers/installed.ts: the package as installed); `npm test` builds first when a build is
// stale, so that its CLI children start from dist/ (about a second less CPU each than through tsx).
// Usage: node scripts/built.mjs [--build]   (says which build is stale and why, exit 1; --build runs `npm run build`)
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SPAWN = join(ROOT, 'packages', 'spawn');

/** @typedef {{ src: string, outs: string[], configs: string[] }} Build */

/** The builds `npm run build` makes: forklab (src/ → dist/) and @forklab/spawn (src/ → dist/ and dist/cjs/). */
export const BUILDS = {
  /** @type {Build} */
  forklab: { src: join(ROOT, 'src'), outs: [join(ROOT, 'dist')], configs: [join(ROOT, 'tsconfig.json')] },
  /** @type {Build} */
  spawn: {
    src: join(SPAWN, 'src'),
    outs: [join(SPAWN, 'dist'), join(SPAWN, 'dist', 'cjs')],
    configs: [join(SPAWN, 'tsconfig.json'), join(SPAWN, 'tsconfig.cjs.json')],
  },
};

const OUTPUT_OF = { '.ts': '.js', '.cts': '.cjs', '.mts': '.mjs' };

/** @param {string} path */
function mtimeMs(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

/**
 * Why the build's outputs do not hold its current sources (the first source found with no output, or not older
 * than its output; or a tsconfig not older than an output), or null when they do.
 * @param {Build} build
 * @returns {string | null}
 */
export function staleBuild(build) {
  const name = (/** @type {string} */ p) => relative(ROOT, p);
  for (const config of build.configs) if (mtimeMs(config) === null) return `${name(config)} is missing`;
  for (const rel of readdirSync(build.src, { recursive: true, encoding: 'utf8' }).sort()) {
    const ext = /** @type {(keyof typeof OUTPUT_OF)[]} */ (Object.keys(OUTPUT_OF)).find((e) => rel.endsWith(e));
    if (!ext || /\.d\.[cm]?ts$/.test(rel)) continue;
    const source = join(build.src, rel);
    const sourceMs = /** @type {number} */ (mtimeMs(source));
    for (const out of build.outs) {
      const output = join(out, rel.slice(0, -ext.length) + OUTPUT_OF[ext]);
      const outputMs = mtimeMs(output);
      if (outputMs === null) return `${name(output)} is missing`;
      // Not older: a file saved in the same clock tick as its output counts as changed.
      if (sourceMs >= outputMs) return `${name(source)} is newer than ${name(output)}`;
      for (const config of build.configs) if (/** @type {number} */ (mtimeMs(config)) >= outputMs) return `${name(config)} is newer than ${name(output)}`;
    }
  }
  return null;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args.length > 1 || (args.length === 1 && args[0] !== '--build')) {
    console.error(`built.mjs: unknown argument ${args.find((a) => a !== '--build') ?? args[1]} (usage: node scripts/built.mjs [--build])`);
    process.exit(2);
  }
  const stale = Object.entries(BUILDS)
    .map(([what, build]) => [what, staleBuild(build)])
    .filter(([, why]) => why !== null);
  if (stale.length === 0) process.exit(0);
  for (const [what, why] of stale) console.error(`built.mjs: the ${what} build is stale: ${why}`);
  if (args[0] !== '--build') {
    console.error('built.mjs: npm run build makes it');
    process.exit(1);
  }
  console.error('built.mjs: npm run build');
  const r = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit', timeout: 600_000, killSignal: 'SIGKILL' });
  if (r.error) console.error(`built.mjs: npm run build: ${r.error.message}`);
  process.exit(r.status ?? 1);
}
