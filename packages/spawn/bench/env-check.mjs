// bench:env's check of the environ path's conditions (env-fastpath.mjs) against child_process itself: in each
// situation a program can be in, whether the path would be taken, and where it is, whether the environment the
// C filter gives (env-proto.c) is byte for byte the one child_process gives a child (/usr/bin/env -0 run
// through execFileSync). Run as `node env-check.mjs PROTO.node`; prints one JSON line per situation.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { Worker, isMainThread, workerData } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { environPathAllowed } from './env-fastpath.mjs';

const protoPath = isMainThread ? process.argv[2] : workerData;
const proto = createRequire(import.meta.url)(protoPath);

function judge(situation, options) {
  const allowed = environPathAllowed(options);
  const child = execFileSync('/usr/bin/env', ['-0'], { ...(options ?? {}), timeout: 30_000 });
  const line = { situation, allowed };
  if (allowed) {
    const pairs = proto.emulatedPairs();
    line.same = pairs !== null && Buffer.from(pairs.map((p) => `${p}\0`).join('')).equals(child);
  }
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

if (!isMainThread) {
  judge('in a worker (its process.env is a copy)', undefined);
} else {
  judge('main thread, no options', undefined);
  judge('options without env', {});
  judge('env: undefined', { env: undefined });
  judge('env: null', { env: null });
  judge('env: process.env (explicit)', { env: process.env });
  judge('env: a copy of process.env (explicit)', { env: { ...process.env } });
  const inherited = Object.create({ env: undefined });
  judge('env inherited from the options prototype (undefined)', inherited);
  judge('env as a getter on options', {
    get env() {
      return undefined;
    },
  });
  judge('options is a Proxy', new Proxy({}, {}));
  process.env.FORKLAB_CHECK_ADDED = 'added';
  delete process.env.HOME;
  process.env.PATH = `${process.env.PATH}:/forklab-check`;
  judge('process.env mutated (a variable added, one deleted, PATH changed)', undefined);
  Object.prototype.FORKLAB_POLLUTED = 'x';
  judge('Object.prototype has an enumerable property', undefined);
  delete Object.prototype.FORKLAB_POLLUTED;
  const real = process.env;
  process.env = { ...real, FORKLAB_REPLACED: '1' };
  judge('process.env replaced by a plain object', undefined);
  process.env = real;
  judge('process.env put back', undefined);
  await new Promise((resolve, reject) => {
    const w = new Worker(fileURLToPath(import.meta.url), { workerData: protoPath });
    w.on('error', reject);
    w.on('exit', resolve);
  });
}
