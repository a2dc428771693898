// An installed copy of the package for tests that start plain Node processes (no tsx: worker threads, the
// permission model, preloads): node_modules/@forklab/spawn with package.json, binding.gyp, the addon built from
// native/ in build/Release (no prebuild, so the addon is the current one without FORKLAB_SPAWN_ADDON) and dist/
// of the current sources, as ES modules and CommonJS: the package's own dist/ copied when it is built from them
// (scripts/built.mjs: every source older than its outputs; npm ci and npm test build it), else compiled here (tsc
// twice, some 10 s of CPU). Made once per test file and removed at its exit, or given by the process that runs the
// test files (FORKLAB_TEST_INSTALLED: runtimes.test.ts makes one for all).
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BUILDS, staleBuild } from '../../../../scripts/built.mjs';
import { tempDir } from '../../../../test/helpers/tmp.js';
import { addonPath, pkgDir } from './addon.js';

export interface Installed {
  /** the project directory (run Node there: `@forklab/spawn` resolves) */
  project: string;
  /** file: URLs of the compiled entry points */
  index: string;
  register: string;
  /** the CommonJS build's register, for -r */
  registerCjs: string;
}

let made: Installed | undefined;

/** The copy in dir (made by makeInstalled), as FORKLAB_TEST_INSTALLED passes it to the test files a parent runs. */
function at(project: string): Installed {
  const dist = join(project, 'node_modules', '@forklab', 'spawn', 'dist');
  const url = (p: string) => new URL(`file://${p}`).href;
  return { project, index: url(join(dist, 'index.js')), register: url(join(dist, 'register.js')), registerCjs: join(dist, 'cjs', 'register.js') };
}

export function installed(): Installed {
  made ??= process.env.FORKLAB_TEST_INSTALLED ? at(process.env.FORKLAB_TEST_INSTALLED) : makeInstalled();
  return made;
}

/** A new copy, removed when this process exits. */
export function makeInstalled(): Installed {
  const project = tempDir('forklab-spawn-installed-');
  // readable by every user, as a project npm installed is: a child that fork() starts as another uid (uid: 'nobody')
  // under register loads register from here before its own script (a private 0700 directory failed it there alone)
  chmodSync(project, 0o755);
  const dir = join(project, 'node_modules', '@forklab', 'spawn');
  mkdirSync(join(dir, 'build', 'Release'), { recursive: true });
  for (const f of ['package.json', 'binding.gyp']) cpSync(join(pkgDir, f), join(dir, f));
  cpSync(addonPath, join(dir, 'build', 'Release', 'forklab_spawn.node'));
  if (staleBuild(BUILDS.spawn) === null) cpSync(join(pkgDir, 'dist'), join(dir, 'dist'), { recursive: true });
  else {
    const tsc = join(dirname(dirname(pkgDir)), 'node_modules', 'typescript', 'bin', 'tsc');
    for (const [config, out] of [
      ['tsconfig.json', join(dir, 'dist')],
      ['tsconfig.cjs.json', join(dir, 'dist', 'cjs')],
    ] as const) {
      const r = spawnSync(process.execPath, [tsc, '-p', join(pkgDir, config), '--outDir', out], { encoding: 'utf8', timeout: 120_000 });
      if (r.status !== 0) throw new Error(`tsc -p ${config} failed:\n${r.stdout}${r.stderr}`);
    }
  }
  writeFileSync(join(dir, 'dist', 'cjs', 'package.json'), '{ "type": "commonjs" }\n');
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  return at(project);
}

export interface NodeRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs this Node (no tsx, no NODE_OPTIONS, no FORKLAB_SPAWN_ADDON) in the installed project, with a time limit. */
export function nodeIn(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): NodeRun {
  const base: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
  delete base.FORKLAB_SPAWN_ADDON;
  delete base.NODE_TEST_CONTEXT;
  const r = spawnSync(process.execPath, args, { cwd: installed().project, encoding: 'utf8', timeout: timeoutMs, killSignal: 'SIGKILL', env: { ...base, ...env } });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** The last line of stdout as JSON (what the scripts print), with the whole run in the error otherwise. */
export function lastJson<T>(r: NodeRun): T {
  const line = r.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line) as T;
  } catch {
    throw new Error(`no JSON result (status ${r.status}, signal ${r.signal}):\n${r.stdout}\n${r.stderr}`);
  }
}
