// The package's version (package.json), which the C probe must report too (`forklab-probe --version`).
import { readFileSync } from 'node:fs';

export const FORKLAB_VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
