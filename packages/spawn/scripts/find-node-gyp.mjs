// One way to find node-gyp, shared by this package's install script and forklab's (scripts/build-native.mjs):
// npm's own (npm_config_node_gyp during install scripts), the one bundled with the running Node's npm, or a
// node-gyp package that resolves from here. Also the arguments that make it work offline: when the running
// Node ships its headers (include/node/node_api.h under its prefix), that prefix is passed as --nodedir.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Path of node-gyp's bin/node-gyp.js, or null. */
export function findNodeGyp(prefix = dirname(dirname(process.execPath))) {
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

/** ['rebuild', '--nodedir=PREFIX' when the headers are there] */
export function nodeGypArgs(prefix = dirname(dirname(process.execPath))) {
  const args = ['rebuild'];
  if (existsSync(join(prefix, 'include', 'node', 'node_api.h'))) args.push(`--nodedir=${prefix}`);
  return args;
}

/** node-gyp's environment: an empty npm_config_nodedir would override --nodedir. */
export function nodeGypEnv() {
  const env = { ...process.env };
  if (env.npm_config_nodedir === '') delete env.npm_config_nodedir;
  return env;
}
