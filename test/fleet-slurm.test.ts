// `forklab fleet slurm` on a real single-node Slurm started here (test/helpers/slurm.ts): the script it writes is
// submitted with sbatch, its one array task runs `forklab fleet run --only 003` for real, and `fleet collect
// --dir` reads what the task wrote. Skipped, with the reason, when Slurm cannot start on this machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCollect } from '../src/fleet/collect.js';
import { CLI_COMMAND, runCli, sandbox } from './helpers/cli.js';
import { startSlurm } from './helpers/slurm.js';

test('fleet slurm: the script, and bad flags refused before anything is written', () => {
  const box = sandbox();
  const r = runCli(box, ['fleet', 'slurm', '--nodes', '3', '--partition', 'compute', '--out', 'res', '--only', '000,003']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^#SBATCH --array=0-2$/m);
  assert.match(r.stdout, /^#SBATCH --exclusive$/m);
  assert.match(r.stdout, /^#SBATCH --partition=compute$/m);
  assert.match(r.stdout, new RegExp(`^#SBATCH --output=${box.dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/res/forklab-%A_%a.out$`, 'm'));
  assert.match(r.stdout, /^exec forklab fleet run --preset quick --only 000,003$/m);
  assert.deepEqual(readdirSync(join(box.dir, 'res')), []);
  for (const [args, msg] of [
    [['--nodes', '0'], /--nodes: 0 is not a whole number of nodes/],
    [['--nodes', '2', '--partition', 'a b'], /--partition: "a b" is not a partition name/],
    [['--nodes', '2', '--only', 'all'], /--only: "all" is not a list of articles/],
    [['--nodes', '2', '--out', 'with space'], /--out: .* must be an absolute path without spaces/],
  ] as const) {
    const bad = runCli(box, ['fleet', 'slurm', ...args]);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, msg);
    assert.equal(bad.stdout, '');
  }
});

test('fleet slurm: a real Slurm runs the array task, fleet collect --dir reads it', { timeout: 420_000 }, async (t) => {
  const slurm = await startSlurm();
  if ('reason' in slurm) {
    t.skip(`Slurm cannot start here: ${slurm.reason}`);
    return;
  }
  try {
    const box = sandbox();
    const out = join(box.dir, 'results');
    const forklab = CLI_COMMAND.join(' ');
    const script = join(box.dir, 'forklab.sbatch');
    const made = runCli(box, ['fleet', 'slurm', '--nodes', '1', '--partition', 'lab', '--out', out, '--only', '003', '--time', '10', '--forklab', forklab, '--script', script]);
    assert.equal(made.code, 0, made.stderr);
    const env = { ...box.env, SLURM_CONF: slurm.env.SLURM_CONF };
    const sub = spawnSync('sbatch', ['--parsable', script], { encoding: 'utf8', env, cwd: box.dir, timeout: 30_000 });
    assert.equal(sub.status, 0, sub.stderr);
    const job = sub.stdout.trim().split(';')[0]!;
    const deadline = Date.now() + 360_000;
    for (;;) {
      const q = spawnSync('squeue', ['-h', '-j', job, '-o', '%T'], { encoding: 'utf8', env, timeout: 10_000 });
      if (q.status === 0 && q.stdout.trim() === '') break;
      if (Date.now() > deadline) {
        spawnSync('scancel', [job], { env, timeout: 10_000 });
        assert.fail(`job ${job} did not finish in 6 minutes: ${q.stdout.trim()}`);
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
    const files = readdirSync(out).sort();
    assert.deepEqual(files, [`forklab-${job}_0.err`, `forklab-${job}_0.out`]);
    const log = readFileSync(join(out, `forklab-${job}_0.out`), 'utf8');
    assert.match(log, /^forklab slurm job \d+ task 0 on \S+ partition lab$/m);
    const c = runCli(box, ['fleet', 'collect', '--dir', out, '--engine', 'slurm', '--out', join(box.dir, 'fleet'), '--json']);
    assert.equal(c.code, 0, `${c.stdout}\n${c.stderr}\n${readFileSync(join(out, `forklab-${job}_0.err`), 'utf8').slice(-2000)}`);
    const got = readCollect(c.stdout, 'fleet collect --json');
    assert.equal(got.sources.length, 1);
    assert.equal(got.sources[0]!.state, 'complete');
    assert.equal(got.sources[0]!.pool, 'lab');
    assert.ok(got.sources[0]!.documents >= 3, `${got.sources[0]!.documents} documents`);
    assert.equal(got.import?.imported, got.sources[0]!.documents);
    const node = got.sources[0]!.node!;
    const docs = readdirSync(join(box.dir, 'fleet', node));
    const one = JSON.parse(readFileSync(join(box.dir, 'fleet', node, docs[0]!), 'utf8'));
    assert.equal(one.machine.placement.engine, 'slurm');
    assert.equal(one.machine.placement.labels['slurm.partition'], 'lab');
    assert.equal(one.machine.placement.labels['slurm.job'], job);
  } finally {
    await slurm.stop();
  }
});
