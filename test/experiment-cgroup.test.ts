// The cgroup experiment: option errors name their flag; the v2 hierarchy and this process's group are found from
// mountinfo and /proc/self/cgroup texts (v2 beside v1, v2 alone, none); a short real run measures every method where
// a writable v2 hierarchy exists (else says why, typed); a refused group is a typed result; and no group it made is
// left, after a run, after Ctrl-C, or after a maker was killed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { renderView } from '../src/report/terminal.js';
import { cgroupExperiment as exp } from '../src/experiments/cgroup/index.js';
import { forklabGroupsUnder, ownGroup, parentGroup, parseV2Mounts, sweepStale } from '../src/experiments/cgroup/hierarchy.js';
import { CGROUP_METHODS } from '../src/experiments/cgroup/configuration.js';
import { testContext } from './helpers/context.js';
import { assertRefused, usageErrorFor } from './helpers/bad-input.js';
import { forklabChildrenOf, childrenOf } from './helpers/procs.js';
import { sandbox, startCli, waitFor } from './helpers/cli.js';
import { tempDir } from './helpers/tmp.js';

const MOUNTS_V1_AND_V2 = [
  '30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
  '31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu',
  '40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
].join('\n');

test('parse and preflight: bad values name their flag', () => {
  assertRefused(exp.parse, [
    [{ methods: 'fork-exec,teleport' }, '--methods'],
    [{ threads: '-1' }, '--threads'],
    [{ threads: 'many' }, '--threads'],
    [{ gapMs: '0,,5' }, '--gap-ms'],
    [{ gapMs: '20000' }, '--gap-ms'],
    [{ iterations: '0' }, '--iterations'],
    [{ repeats: 'x' }, '--repeats'],
  ]);
  const p = exp.parse({ threads: '8,0', gapMs: '50,0' });
  assert.deepEqual([p.threads, p.gapMs, p.methods], [[0, 8], [0, 50], [...CGROUP_METHODS]]);
  assert.throws(() => exp.preflight(exp.parse({ cgroupParent: '/no/such/dir' })), usageErrorFor('--cgroup-parent', /does not exist/));
  assert.throws(() => exp.preflight(exp.parse({ cgroupParent: tempDir('forklab-cg-') })), usageErrorFor('--cgroup-parent', /not a cgroup v2 group/));
});

test('the v2 hierarchy and this process’s group come from mountinfo and /proc/self/cgroup, never a fixed path', () => {
  // v2 mounted beside v1 (these machines), the process in the root group or below it
  assert.deepEqual(ownGroup(MOUNTS_V1_AND_V2, '4:memory:/x\n0::/\n'), { dir: '/sys/fs/cgroup/unified', mount: parseV2Mounts(MOUNTS_V1_AND_V2)[0] });
  assert.equal((ownGroup(MOUNTS_V1_AND_V2, '0::/user.slice/a b.scope\n') as { dir: string }).dir, '/sys/fs/cgroup/unified/user.slice/a b.scope');
  // v2 alone, a mount point with a space (escaped in mountinfo), favordynmods read from the superblock options
  const alone = '25 1 0:22 / /mnt/my\\040cg rw - cgroup2 cgroup2 rw,nsdelegate,favordynmods';
  const m = parseV2Mounts(alone)[0]!;
  assert.equal(m.mountPoint, '/mnt/my cg');
  assert.ok(m.superOptions.includes('favordynmods'));
  assert.equal((ownGroup(alone, '0::/svc\n') as { dir: string }).dir, '/mnt/my cg/svc');
  // a mount of part of the hierarchy: the group is found below its root, or not at all
  const part = '25 1 0:22 /kubepods /sys/fs/cgroup rw - cgroup2 cgroup2 rw';
  assert.equal((ownGroup(part, '0::/kubepods/pod1\n') as { dir: string }).dir, '/sys/fs/cgroup/pod1');
  assert.match((ownGroup(part, '0::/system.slice\n') as { reason: string }).reason, /no cgroup2 mount shows/);
  // none: a typed answer with what would give one
  const none = ownGroup('31 30 0:28 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu', '1:cpu:/\n');
  assert.ok('reason' in none && /no cgroup v2 hierarchy/.test(none.reason) && /cgroup2/.test(none.remedy));
  assert.ok('reason' in ownGroup(MOUNTS_V1_AND_V2, '4:memory:/\n'));
});

/** The forklab groups under a parent that `pid` made, or that live in its run groups (a concurrent selfcheck makes its own). */
const groupsOf = (parent: string, pid: number) => forklabGroupsUnder(parent).filter((g) => g.includes(`forklab-run-${pid}-`) || basename(g).endsWith(`-${pid}`));

/** The group the runs make theirs in, when this process may write there (else null: the typed branch is checked). */
function writableParent(): string | null {
  const p = parentGroup(null);
  if ('reason' in p) return null;
  const probe = join(p.dir, `forklab-test-${process.pid}`);
  try {
    mkdirSync(probe);
    rmdirSync(probe);
    return p.dir;
  } catch {
    return null;
  }
}

test('a short real run: every method at every threads × pause, writes timed alone, conclusion first; nothing left', async () => {
  const parent = writableParent();
  const p = exp.parse({ threads: '0,2', gapMs: '0,20', iterations: '3', warmup: '1', repeats: '1' });
  assert.deepEqual(exp.preflight(p), []);
  const run = await exp.run(p, testContext());
  const view = exp.view(run);
  assert.equal(view[0]?.kind, 'conclusion', 'the conclusion comes first');
  const text = renderView(view, { color: false });
  if (parent === null) {
    // No writable v2 hierarchy here: one typed answer, said in one line with what would give one; nothing measured.
    assert.ok(run.summary.outcome.state !== 'measured');
    assert.equal(run.measurements.length, 0);
    assert.match(text, /^Not measured: .*What would allow it: /);
    assert.equal(run.warnings[0]?.code, 'cgroup-unavailable');
    return;
  }
  assert.equal(run.complete, true, JSON.stringify(run.warnings));
  assert.equal(run.summary.outcome.state, 'measured');
  assert.equal(run.params.access?.state, 'ready');
  assert.equal(run.measurements.length, CGROUP_METHODS.length * 4);
  for (const m of run.measurements) {
    assert.equal(m.series, m.identity.method);
    assert.equal(m.samplesNs.length, 3);
    assert.equal(m.observed.groupType, 'domain');
    assert.equal(m.info.threadsInProcess, (m.identity.threads as number) + 1, 'the threads were alive while it measured');
    // the write alone is timed for the methods that write, and is part of their launch
    const writes = m.columns.writeNs;
    if (m.series.endsWith('-write')) {
      assert.equal(writes?.length, 3);
      assert.equal(m.columns.sinceWriteNs?.length, 3, 'how far apart the writes were');
      for (const [i, w] of writes!.entries()) assert.ok(w > 0 && w < m.samplesNs[i]!, `${m.series}: write ${w} within launch ${m.samplesNs[i]}`);
    } else assert.deepEqual([writes, m.columns.sinceWriteNs], [undefined, undefined]);
  }
  assert.equal(run.summary.cells.length, 16);
  assert.match(text, /After a 20 ms pause before each launch, writes a median [0-9.]+ [mµ]?s apart: parent-write/);
  assert.match(text, /Back to back, writes a median [0-9.]+ [mµ]?s apart: parent-write/);
  assert.match(text, /Threads in the parent/);
  assert.match(text, /favordynmods/);
  // every group it made is gone, and every child reaped
  assert.deepEqual(groupsOf(parent, process.pid), []);
  assert.deepEqual(forklabChildrenOf(process.pid), []);
});

test('a group the kernel refuses (under a threaded group) is a typed result, said in one line; nothing left', async (t) => {
  const parent = writableParent();
  if (parent === null) return t.skip('no writable cgroup v2 hierarchy here');
  const threaded = join(parent, `forklab-test-${process.pid}`);
  mkdirSync(threaded);
  try {
    writeFileSync(join(threaded, 'cgroup.type'), 'threaded');
    const p = exp.parse({ threads: '0', gapMs: '0', iterations: '2', warmup: '1', repeats: '1', cgroupParent: threaded });
    exp.preflight(p);
    const run = await exp.run(p, testContext());
    assert.equal(run.summary.outcome.state, 'refused');
    assert.ok(run.measurements.every((m) => m.state === 'failed' && typeof m.observed.refusal === 'string'));
    const lines = renderView(exp.view(run), { color: false }).trim().split('\n');
    assert.match(lines.join(' '), /^Not measured: .*domain invalid.*What would allow it: a --cgroup-parent of type domain/);
    assert.deepEqual(forklabGroupsUnder(threaded), []);
  } finally {
    rmdirSync(threaded);
  }
});

test('groups of a maker that is gone are swept; those of a live one stay', (t) => {
  const parent = writableParent();
  if (parent === null) return t.skip('no writable cgroup v2 hierarchy here');
  const dead = spawnSync('true').pid; // reaped: its pid names no process now
  const stale = join(parent, `forklab-probe-${dead}`);
  const mine = join(parent, `forklab-probe-${process.pid}`);
  mkdirSync(stale);
  mkdirSync(mine);
  try {
    assert.ok(sweepStale(parent).includes(basename(stale)));
    assert.deepEqual(groupsOf(parent, dead), []);
    assert.deepEqual(groupsOf(parent, process.pid), [mine]);
  } finally {
    rmdirSync(mine);
  }
});

test('Ctrl-C during a run: the CLI removes every group it and its probes made', async (t) => {
  const parent = writableParent();
  if (parent === null) return t.skip('no writable cgroup v2 hierarchy here');
  const box = sandbox();
  const cli = startCli(box, ['cgroup', '--threads', '0', '--gap-ms', '200', '--iterations', '200', '--repeats', '5'], { limitMs: 90_000 });
  const cliPid = cli.child.pid!;
  // a probe is measuring inside the run's group
  await waitFor(`a probe's group under the run's (stderr: ${cli.stderr()})`, () =>
    forklabGroupsUnder(parent).some((g) => basename(g).startsWith('forklab-probe-') && g.includes(`forklab-run-${cliPid}-`)),
  );
  cli.child.kill('SIGINT');
  const done = await cli.done;
  assert.equal(done.code, 130, cli.stderr());
  assert.deepEqual(groupsOf(parent, cliPid), []);
  assert.deepEqual(childrenOf(cliPid), []);
});
