// Prints the C define that gives the probe the package's version (binding.gyp), so that the probe and the
// package always agree: `forklab-probe --version` and the probe's hello line report it, and the runner checks it.
import { readFileSync } from 'node:fs';
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
if (!/^[0-9A-Za-z.+-]+$/.test(version)) throw new Error(`package.json: unexpected version ${JSON.stringify(version)}`);
// Unquoted (gyp splits the output like a shell would); probe.h turns it into a string.
console.log(`FL_PROBE_VERSION_TOKENS=${version}`);
