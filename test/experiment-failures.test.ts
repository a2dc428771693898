// The 'probe-failed' warning (experiments/shared/failures.ts): where, in the experiment's words, then the failure;
// ok measurements give none; `distinct` keeps one of equal messages, `advice` follows the failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { probeFailedWarnings } from '../src/experiments/shared/failures.js';
import type { Measurement } from '../src/experiments/contract/types.js';

const m = (series: string, repeat: number, failure: string | null): Measurement => ({
  series,
  identity: { thp: 'on' },
  observed: {},
  repeat,
  state: failure === null ? 'ok' : 'failed',
  failure,
  info: {},
  samplesNs: [],
  columns: {},
  stats: null,
});

test('one warning per failed measurement, in order, worded by the experiment', () => {
  const ms = [m('read', 1, null), m('read', 2, 'probe exited with status 3'), m('first-write', 2, 'probe exited with status 3'), m('read', 3, 'cancelled')];
  assert.deepEqual(
    probeFailedWarnings(ms, (x) => `${x.series}, THP ${x.identity.thp}, repeat ${x.repeat}`),
    [
      { code: 'probe-failed', message: 'read, THP on, repeat 2: probe exited with status 3' },
      { code: 'probe-failed', message: 'first-write, THP on, repeat 2: probe exited with status 3' },
      { code: 'probe-failed', message: 'read, THP on, repeat 3: cancelled' },
    ],
  );
  assert.deepEqual(
    probeFailedWarnings([m('read', 1, null)], () => 'never asked'),
    [],
  );
});

test('distinct: the series of one probe process that fail together give one warning; advice follows the failure', () => {
  const ms = [m('thread', 1, 'pthread_create failed'), m('fork', 1, 'pthread_create failed'), m('thread', 2, 'pthread_create failed')];
  const w = probeFailedWarnings(ms, (x) => `probe process ${x.repeat}`, { distinct: true, advice: 'Rerun.' });
  assert.deepEqual(
    w.map((x) => x.message),
    ['probe process 1: pthread_create failed. Rerun.', 'probe process 2: pthread_create failed. Rerun.'],
  );
});
