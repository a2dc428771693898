// --pin: a CPU, `none`, or absent (the experiment's own choice). spawn pins what it measures to the last CPU this
// process may run on unless told otherwise; the others float unless --pin names a CPU. The run document says
// which CPU held the probe (machine.pinnedCpu).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpusAllowed } from '../src/env/process.js';
import { findExperiment } from '../src/experiments/index.js';
import { pinnedCpuFor } from '../src/lab/experiment.js';
import { parsePin } from '../src/text/parse.js';
import { runCli, sandbox } from './helpers/cli.js';

test('parsePin: absent is the experiment’s default, none is no pin, a CPU must be one this process may run on', () => {
  assert.equal(parsePin('--pin', undefined, [0, 1]), 'default');
  assert.equal(parsePin('--pin', 'none', [0, 1]), null);
  assert.equal(parsePin('--pin', '1', [0, 1]), 1);
  assert.throws(() => parsePin('--pin', '3', [0, 1]), /--pin: CPU 3 is not one this process may run on/);
  assert.throws(() => parsePin('--pin', 'nope', [0, 1]), /--pin: expected a whole number/);
});

test('pinnedCpuFor: the last allowed CPU for an experiment that pins by default; what was asked otherwise', () => {
  const pins = { pinsByDefault: true };
  assert.equal(pinnedCpuFor(pins, 'default', [0, 2, 5]), 5);
  assert.equal(pinnedCpuFor(pins, 'default', null), null, 'no CPU list to choose from: not pinned');
  assert.equal(pinnedCpuFor(pins, null, [0, 1]), null, '--pin none');
  assert.equal(pinnedCpuFor(pins, 0, [0, 1]), 0);
  assert.equal(pinnedCpuFor({}, 'default', [0, 1]), null, 'an experiment that does not pin by default floats');
  assert.equal(pinnedCpuFor({}, 1, [0, 1]), 1);
});

test('of the experiments, spawn alone pins by default (a single-threaded probe whose child runs while it waits)', () => {
  assert.equal(findExperiment('spawn')?.pinsByDefault, true);
  for (const name of ['create', 'contend', 'cow', 'deadlock']) assert.notEqual(findExperiment(name)?.pinsByDefault, true, name);
});

const QUICK = ['spawn', '--methods', 'fork-exit', '--rss', '0', '--thp', 'off', '--repeats', '1', '--iterations', '8', '--ci-target', '0', '--no-store'];

test('forklab spawn records the CPU it pinned to: the last allowed by default, none with --pin none', () => {
  const box = sandbox();
  const allowed = cpusAllowed();
  const pinned = (extra: string[]) => {
    const file = join(box.dir, `run-${extra.join('-') || 'default'}.json`);
    const r = runCli(box, [...QUICK, ...extra, '--json', file]);
    assert.equal(r.code, 0, r.stderr);
    return (JSON.parse(readFileSync(file, 'utf8')) as { machine: { pinnedCpu: number | null } }).machine.pinnedCpu;
  };
  assert.equal(pinned([]), allowed ? allowed[allowed.length - 1] : null);
  assert.equal(pinned(['--pin', 'none']), null);
  if (allowed) assert.equal(pinned(['--pin', String(allowed[0])]), allowed[0]);
});
