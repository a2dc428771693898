// What the bench:* scripts share: the repository's folder and `--name value` options from the command line.
import { fileURLToPath } from 'node:url';

/** The repository's root folder (this file is in scripts/). */
export const repo = fileURLToPath(new URL('..', import.meta.url));

/** The value after `--name` on the command line, else dflt. */
export function opt(name, dflt) {
  const args = process.argv.slice(2);
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
}
