// Ruby: ruby on PATH and rbenv's versions; Process.spawn and system.
import { join } from 'node:path';
import { home, onPath, versions } from '../locations.js';
import { versionFrom } from '../probe.js';
import { DRIVERS_DIR, type FamilySpec, variant } from '../spec.js';

export const ruby: FamilySpec<'ruby'> = {
  family: 'ruby',
  namePrefixes: ['ruby'],
  nameParts: 2,
  install: 'apt-get install ruby',
  heapKinds: ['string'],
  variants: [variant('ruby', 'spawn', 'Process.wait(Process.spawn(target))', 'Process.spawn'), variant('ruby', 'system', 'system(target)', 'system')],
  driverFiles: ['ruby.rb'],
  candidates: ({ env }) => [...onPath('ruby', env), ...versions(home(env, '.rbenv', 'versions'), 'bin', 'ruby', 'home')],
  probe: (exe, run) => versionFrom(exe, run, ['-e', 'print RUBY_VERSION'], /^(\d[\d.]*)/),
  driver: (rt) => [rt.path, join(DRIVERS_DIR, 'ruby.rb')],
  program: /^ruby[\d.]*$/,
};
