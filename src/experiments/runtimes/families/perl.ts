// Perl: perl on PATH; system.
import { join } from 'node:path';
import { onPath } from '../locations.js';
import { versionFrom } from '../probe.js';
import { DRIVERS_DIR, type FamilySpec, variant } from '../spec.js';

export const perl: FamilySpec<'perl'> = {
  family: 'perl',
  namePrefixes: ['perl'],
  nameParts: 2,
  install: 'apt-get install perl',
  heapKinds: ['string'],
  variants: [variant('perl', 'system', 'system { $target } $target', 'system')],
  driverFiles: ['perl.pl'],
  candidates: ({ env }) => onPath('perl', env),
  probe: (exe, run) => versionFrom(exe, run, ['-e', 'printf "%vd\\n", $^V'], /^(\d[\d.]*)/),
  driver: (rt) => [rt.path, join(DRIVERS_DIR, 'perl.pl')],
  program: /^perl[\d.]*$/,
};
