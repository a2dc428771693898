// Java: java on PATH, $JAVA_HOME and every JDK under /usr/lib/jvm; ProcessBuilder with each launch mechanism.
import { join } from 'node:path';
import { isExecutable, listDir, which, type Candidate } from '../locations.js';
import { versionFrom } from '../probe.js';
import { DRIVERS_DIR, type FamilySpec, variant } from '../spec.js';

const MECHANISM = 'jdk.lang.Process.launchMechanism';

export const java: FamilySpec<'java'> = {
  family: 'java',
  namePrefixes: ['java', 'jdk', 'jre', 'temurin'],
  nameParts: 1,
  install: 'apt-get install default-jdk-headless (the driver runs as a source file: a JDK, not a bare JRE)',
  heapKinds: ['byte-arrays'],
  variants: [
    variant('java', 'default', 'new ProcessBuilder(target).start().waitFor()', 'ProcessBuilder.start'),
    variant('java', 'vfork', `ProcessBuilder with -D${MECHANISM}=VFORK`, 'ProcessBuilder.start, VFORK', { jvmProperties: { [MECHANISM]: 'VFORK' } }),
    variant('java', 'fork', `ProcessBuilder with -D${MECHANISM}=FORK`, 'ProcessBuilder.start, FORK', { jvmProperties: { [MECHANISM]: 'FORK' } }),
  ],
  driverFiles: ['ForklabDriver.java'],
  candidates: ({ env, jvmDir }) => {
    const out: Candidate[] = [];
    const first = which('java', env);
    if (first) out.push({ path: first, origin: 'path', preferred: true });
    if (env.JAVA_HOME) out.push({ path: join(env.JAVA_HOME, 'bin', 'java'), origin: 'jvm-dir', preferred: false });
    for (const d of listDir(jvmDir)) out.push({ path: join(jvmDir, d, 'bin', 'java'), origin: 'jvm-dir', preferred: false });
    return out.filter((c) => isExecutable(c.path));
  },
  probe: (exe, run) => versionFrom(exe, run, ['-version'], /version "([^"]+)"/),
  // Source-file mode: the launcher compiles the driver in memory at start-up (before "ready", not timed).
  driver: (rt, v, heapMb, untimed) => [
    rt.path,
    `-Xmx${heapMb + 256}m`,
    // Compiling the source with C1 alone halves a JVM's start-up; only where nothing is timed.
    ...(untimed ? ['-XX:TieredStopAtLevel=1'] : []),
    ...Object.entries(v.jvmProperties ?? {}).map(([k, x]) => `-D${k}=${x}`),
    join(DRIVERS_DIR, 'ForklabDriver.java'),
  ],
  traceTimeoutMs: 180_000,
  program: /^java$/,
};
