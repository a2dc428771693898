// Python: python3 and python3.N on PATH and every pyenv version; subprocess.run with and without close_fds and
// preexec_fn.
import { join } from 'node:path';
import { isExecutable, listDir, which, type Candidate } from '../locations.js';
import { realPath } from '../probe.js';
import { DRIVERS_DIR, type FamilySpec, variant } from '../spec.js';

export const python: FamilySpec<'python'> = {
  family: 'python',
  namePrefixes: ['python', 'py'],
  nameParts: 2,
  install: 'apt-get install python3',
  heapKinds: ['bytearray'],
  variants: [
    variant('python', 'run', 'subprocess.run([target])', 'subprocess.run'),
    variant('python', 'run-keep-fds', 'subprocess.run([target], close_fds=False)', 'subprocess.run close_fds=False'),
    variant('python', 'run-preexec', 'subprocess.run([target], preexec_fn=f)', 'subprocess.run preexec_fn'),
  ],
  driverFiles: ['python.py'],
  /** python3 and python3.N on PATH, and every pyenv version (shims of inactive versions fail to run). */
  candidates: ({ env }) => {
    const out: Candidate[] = [];
    const first = which('python3', env);
    if (first) out.push({ path: first, origin: 'path', preferred: true });
    for (const dir of (env.PATH ?? '').split(':'))
      for (const f of listDir(dir)) if (/^python3\.\d+$/.test(f) && isExecutable(join(dir, f))) out.push({ path: join(dir, f), origin: 'path', preferred: false });
    const root = env.PYENV_ROOT || (env.HOME ? join(env.HOME, '.pyenv') : null);
    if (root)
      for (const ver of listDir(join(root, 'versions')))
        for (const f of listDir(join(root, 'versions', ver, 'bin')))
          if (/^python3\.\d+$/.test(f)) out.push({ path: join(root, 'versions', ver, 'bin', f), origin: 'pyenv', preferred: false });
    return out;
  },
  // The interpreter a shim stands for, from the interpreter itself.
  probe: async (exe, run) => {
    const r = await run(exe, ['-c', 'import sys, platform; print(sys.executable); print(platform.python_version())']);
    if (r.state === 'failed') return { why: r.why };
    const [path, version] = r.stdout.trim().split('\n');
    return path && version ? { path: realPath(path), version, unavailable: {} } : { why: 'printed no version' };
  },
  driver: (rt) => [rt.path, join(DRIVERS_DIR, 'python.py')],
  program: /^python[\d.]*$|^pypy[\d.]*$/,
};
