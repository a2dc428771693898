// Rust: rustc on PATH or in $CARGO_HOME/bin (~/.cargo/bin); std::process::Command. Its driver
// (drivers/rust/main.rs, the standard library only) is built once with the rustc found.
import { join } from 'node:path';
import { home, inHome, onPath } from '../locations.js';
import { versionFrom } from '../probe.js';
import { type FamilySpec, variant } from '../spec.js';

export const rust: FamilySpec<'rust'> = {
  family: 'rust',
  namePrefixes: ['rust'],
  nameParts: 2,
  install: 'apt-get install rustc (or https://rustup.rs)',
  heapKinds: ['vec'],
  variants: [variant('rust', 'command', 'Command::new(target).status()', 'Command::status')],
  driverFiles: ['rust/main.rs'],
  candidates: ({ env }) => [...onPath('rustc', env), ...inHome(env.CARGO_HOME ? join(env.CARGO_HOME, 'bin') : home(env, '.cargo', 'bin'), 'rustc')],
  // rustup's rustc is a link to rustup itself, which picks the toolchain by the name it was called by: kept as found.
  probe: (exe, run) => versionFrom(exe, run, ['--version'], /^rustc (\d[\w.-]*)/, true),
  driver: (rt) => [rt.built ?? '/nonexistent/rust-driver-not-built'],
  build: {
    source: join('rust', 'main.rs'),
    language: 'Rust',
    tool: 'rustc',
    shownArgs: '-O',
    command: ({ source, out, version, forklabVersion }) => ({
      args: ['-O', '--edition', '2021', '-o', out, source],
      env: { ...process.env, FORKLAB_DRIVER_VERSION: forklabVersion, FORKLAB_RUSTC_VERSION: version },
    }),
  },
};
