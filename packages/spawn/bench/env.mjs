// The environments bench:spawn measures at, and the environment a child gets, as child_process builds it.
//   inherited: the bench's own (under `npm run`, npm's: its npm_* variables added to the shell's)
//   npm135:    the bench's own padded to 135 variables with npm_config_forklab_pad_NNN=xxxxxxxxxxxxxx (42 bytes
//              each, about the mean size of an npm variable), as under `npm run` on a developer's machine; an
//              environment that already has 135 or more is used as it is.

export const ENV_SETTINGS = ['inherited', 'npm135'];
export const NPM_LIKE_COUNT = 135;

/** The KEY=value strings child_process passes to a child for `env` (its keys through for..in, prototype
 * included, undefined values left out), as normalizeSpawnArguments builds them on Node 20-24. */
export function envPairsOf(env) {
  const pairs = [];
  for (const key in env) {
    const value = env[key];
    if (value !== undefined) pairs.push(`${key}=${value}`);
  }
  return pairs;
}

/** How many variables and how many bytes (each KEY=value with its terminating NUL) the child receives. */
export function envSize(pairs) {
  let bytes = 0;
  for (const p of pairs) bytes += Buffer.byteLength(p) + 1;
  return { count: pairs.length, bytes };
}

/** The `env` option that starts a worker in a setting: undefined inherits the bench's own. */
export function envFor(setting, base = process.env) {
  if (setting === 'inherited') return undefined;
  if (setting !== 'npm135') throw new Error(`unknown environment setting ${setting}`);
  const env = { ...base };
  for (let i = 0; Object.keys(env).length < NPM_LIKE_COUNT; i++) env[`npm_config_forklab_pad_${String(i).padStart(3, '0')}`] = 'x'.repeat(14);
  return env;
}
