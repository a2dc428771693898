// The runtimes forklab knows: how to find each, read its version, start its driver (drivers/), and the
// ways of starting a child each one offers. Adding a runtime is one driver file and one entry here.
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../runner/paths.js';

export const DRIVERS_DIR = join(PACKAGE_ROOT, 'drivers');

export type Family = 'node' | 'python' | 'java' | 'perl' | 'go' | 'ruby' | 'rust' | 'bun' | 'deno';

/** What a driver command is made from: the runtime's executable and, for compiled drivers (Go, Rust), the built driver. */
export interface DriverTarget {
  path: string;
  built?: string;
}

export interface Variant {
  /** Stable id, "family/case", e.g. "python/run-preexec". */
  id: string;
  family: Family;
  /** The driver's case name. */
  caseName: string;
  /** What a user of the runtime writes. */
  label: string;
  /** The call in a few words, for the first table (child_process.spawn, Bun.spawn, os/exec). */
  call: string;
  /** JVM system properties the variant needs (Java's launch mechanism). */
  jvmProperties?: Record<string, string>;
}

export interface FamilySpec {
  family: Family;
  /** Executable names looked up on PATH, in order of preference. */
  commands: string[];
  /** The command that adds the runtime on Debian/Ubuntu, shown when it is absent. */
  install: string;
  /** Heap kinds the driver can allocate (the first is the default); empty: no driver yet. */
  heapKinds: string[];
  /** The variants (case names) that run on the other heap kinds by default too; --heap-kinds runs any. */
  otherKindsFor?: string[];
  variants: Variant[];
  /**
   * The driver command for one variant: executable, then arguments before the case name. `untimed`: a run
   * whose times are not recorded (the strace run), which may start faster.
   */
  driver?(rt: DriverTarget, v: Variant, heapMb: number, untimed?: boolean): string[];
}

const v = (family: Family, caseName: string, label: string, call: string, extra: Partial<Variant> = {}): Variant => ({
  id: `${family}/${caseName}`,
  family,
  caseName,
  label,
  call,
  ...extra,
});

const MECHANISM = 'jdk.lang.Process.launchMechanism';

export const FAMILIES: readonly FamilySpec[] = [
  {
    family: 'node',
    commands: ['node'],
    install: 'https://nodejs.org/en/download (or: apt-get install nodejs)',
    heapKinds: ['buffers', 'objects'],
    otherKindsFor: ['spawn'],
    variants: [
      v('node', 'spawn', "child_process.spawn(target), timed to 'exit'", 'child_process.spawn'),
      v('node', 'spawnSync', 'child_process.spawnSync(target)', 'child_process.spawnSync'),
      v('node', 'execFile', 'child_process.execFile(target, callback), timed to the callback', 'child_process.execFile'),
      v('node', 'forklab-spawn', "@forklab/spawn spawn(target), timed to 'exit'", '@forklab/spawn spawn'),
    ],
    // Room for a V8 heap of heapMb (objects carry their headers) without a GC-driven abort.
    driver: (rt, _v, heapMb) => [rt.path, `--max-old-space-size=${Math.max(512, heapMb * 2 + 256)}`, join(DRIVERS_DIR, 'node.mjs')],
  },
  {
    family: 'python',
    commands: ['python3'],
    install: 'apt-get install python3',
    heapKinds: ['bytearray'],
    variants: [
      v('python', 'run', 'subprocess.run([target])', 'subprocess.run'),
      v('python', 'run-keep-fds', 'subprocess.run([target], close_fds=False)', 'subprocess.run close_fds=False'),
      v('python', 'run-preexec', 'subprocess.run([target], preexec_fn=f)', 'subprocess.run preexec_fn'),
    ],
    driver: (rt) => [rt.path, join(DRIVERS_DIR, 'python.py')],
  },
  {
    family: 'java',
    commands: ['java'],
    install: 'apt-get install default-jdk-headless (the driver runs as a source file: a JDK, not a bare JRE)',
    heapKinds: ['byte-arrays'],
    variants: [
      v('java', 'default', 'new ProcessBuilder(target).start().waitFor()', 'ProcessBuilder.start'),
      v('java', 'vfork', `ProcessBuilder with -D${MECHANISM}=VFORK`, 'ProcessBuilder.start, VFORK', { jvmProperties: { [MECHANISM]: 'VFORK' } }),
      v('java', 'fork', `ProcessBuilder with -D${MECHANISM}=FORK`, 'ProcessBuilder.start, FORK', { jvmProperties: { [MECHANISM]: 'FORK' } }),
    ],
    // Source-file mode: the launcher compiles the driver in memory at start-up (before "ready", not timed).
    driver: (rt, variant, heapMb, untimed) => [
      rt.path,
      `-Xmx${heapMb + 256}m`,
      // Compiling the source with C1 alone halves a JVM's start-up; only where nothing is timed.
      ...(untimed ? ['-XX:TieredStopAtLevel=1'] : []),
      ...Object.entries(variant.jvmProperties ?? {}).map(([k, x]) => `-D${k}=${x}`),
      join(DRIVERS_DIR, 'ForklabDriver.java'),
    ],
  },
  {
    family: 'perl',
    commands: ['perl'],
    install: 'apt-get install perl',
    heapKinds: ['string'],
    variants: [v('perl', 'system', 'system { $target } $target', 'system')],
    driver: (rt) => [rt.path, join(DRIVERS_DIR, 'perl.pl')],
  },
  {
    family: 'go',
    commands: ['go'],
    install: 'apt-get install golang-go',
    heapKinds: ['slices'],
    variants: [v('go', 'exec', 'exec.Command(target).Run()', 'os/exec Cmd.Run')],
    // Built once into forklab's cache with this go (build.ts); the compiler is what was found.
    driver: (rt) => [rt.built ?? '/nonexistent/go-driver-not-built'],
  },
  {
    family: 'ruby',
    commands: ['ruby'],
    install: 'apt-get install ruby',
    heapKinds: ['string'],
    variants: [v('ruby', 'spawn', 'Process.wait(Process.spawn(target))', 'Process.spawn'), v('ruby', 'system', 'system(target)', 'system')],
    driver: (rt) => [rt.path, join(DRIVERS_DIR, 'ruby.rb')],
  },
  {
    family: 'rust',
    commands: ['rustc'],
    install: 'apt-get install rustc (or https://rustup.rs)',
    heapKinds: ['vec'],
    variants: [v('rust', 'command', 'Command::new(target).status()', 'Command::status')],
    driver: (rt) => [rt.built ?? '/nonexistent/rust-driver-not-built'],
  },
  {
    family: 'bun',
    commands: ['bun'],
    install: 'forklab runtimes --fetch bun (or: npm install -g bun)',
    heapKinds: ['buffers', 'objects'],
    otherKindsFor: ['bun-spawn'],
    variants: [
      v('bun', 'spawn', "node:child_process spawn(target), timed to 'exit'", 'child_process.spawn'),
      v('bun', 'bun-spawn', 'await Bun.spawn([target]).exited', 'Bun.spawn'),
    ],
    driver: (rt) => [rt.path, join(DRIVERS_DIR, 'bun.mjs')],
  },
  {
    family: 'deno',
    commands: ['deno'],
    install: 'forklab runtimes --fetch deno (or: npm install -g deno)',
    heapKinds: ['buffers', 'objects'],
    otherKindsFor: ['command'],
    variants: [
      v('deno', 'command', 'await new Deno.Command(target).output()', 'Deno.Command'),
      v('deno', 'spawn', "node:child_process spawn(target), timed to 'exit'", 'child_process.spawn'),
    ],
    // --allow-all: the driver reads /proc/thread-self for its usage line, which Deno grants only to all access.
    driver: (rt, _v, heapMb) => [rt.path, 'run', '--allow-all', '--no-prompt', `--v8-flags=--max-old-space-size=${Math.max(512, heapMb * 2 + 256)}`, join(DRIVERS_DIR, 'deno.mjs')],
  },
];

export function familySpec(f: Family): FamilySpec {
  return FAMILIES.find((s) => s.family === f)!;
}

export const ALL_VARIANTS: readonly Variant[] = FAMILIES.flatMap((f) => f.variants);

/** The driver files in drivers/, one per runtime that has one. */
export const DRIVER_FILES: readonly string[] = [
  'js-common.mjs',
  'node.mjs',
  'bun.mjs',
  'deno.mjs',
  'python.py',
  'ForklabDriver.java',
  'perl.pl',
  'ruby.rb',
  'go/main.go',
  'rust/main.rs',
];

/** The family a --runtime name stands for, from how it begins ("python3.12" → python), or null. */
export function familyOfName(name: string): Family | null {
  const n = name.toLowerCase();
  if (n.startsWith('node')) return 'node';
  if (n.startsWith('python') || n.startsWith('py')) return 'python';
  if (n.startsWith('java') || n.startsWith('jdk') || n.startsWith('jre') || n.startsWith('temurin')) return 'java';
  if (n.startsWith('perl')) return 'perl';
  if (n.startsWith('bun')) return 'bun';
  if (n.startsWith('deno')) return 'deno';
  if (n.startsWith('go')) return 'go';
  if (n.startsWith('ruby')) return 'ruby';
  if (n.startsWith('rust')) return 'rust';
  return null;
}
