// The pure parts of the benches (bench/soak-verdict.mjs): reading /proc's text, the slope, and the soak's verdict,
// which must call a run flat only when descriptors, zombies, RSS and the event loop's delay all stay within its
// bounds, and name what grew otherwise. The benches themselves are not run here (they measure the machine).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type IdleSample, parseRssMb, parseStat, type SoakSample, slope, soakBounds, soakVerdict } from '../bench/soak-verdict.mjs';

test('parseStat reads the state and parent of a command whose name holds spaces and parentheses', () => {
  assert.deepEqual(parseStat('4242 (my (odd) name) Z 17 4242 4242 0 -1 4194560 0 0'), { pid: 4242, comm: 'my (odd) name', state: 'Z', ppid: 17 });
  assert.equal(parseStat('garbage'), null);
});

test('parseRssMb reads VmRSS in MiB', () => {
  assert.equal(parseRssMb('Name:\tnode\nVmRSS:\t  2048 kB\nThreads: 7\n'), 2);
  assert.equal(parseRssMb('Name:\tnode\n'), null);
});

test('slope is the least-squares slope', () => {
  assert.equal(slope([0, 1, 2, 3], [1, 3, 5, 7]), 2);
  assert.equal(slope([1, 1], [1, 2]), null);
});

const idle = (fds: number, zombies = 0): IdleSample => ({ fds, zombies, rssMb: 1100 });
function run(n: number, at: (i: number) => Partial<SoakSample>): SoakSample[] {
  return Array.from({ length: n }, (_, i) => ({ tS: i * 10, requests: (i + 1) * 1000, fds: 30, children: 5, zombies: 1, rssMb: 1100, loopP99Ms: 20, ...at(i) }));
}

test('a steady run is flat', () => {
  const v = soakVerdict(
    run(20, (i) => ({ fds: 30 + (i % 3) })),
    { before: idle(21), after: idle(21) },
    soakBounds(10, 20_000),
  );
  assert.equal(v.flat, true, JSON.stringify(v.checks));
  assert.deepEqual(v.leaked, []);
});

test('each kind of growth is named', () => {
  const b = soakBounds(10, 20_000);
  const quiet = { before: idle(21), after: idle(21) };
  assert.deepEqual(
    soakVerdict(
      run(20, (i) => ({ fds: 30 + 3 * i })),
      { before: idle(21), after: idle(80) },
      b,
    ).leaked,
    ['descriptors'],
  );
  assert.deepEqual(
    soakVerdict(
      run(20, () => ({})),
      { before: idle(21), after: idle(21, 3) },
      b,
    ).leaked,
    ['zombies'],
  );
  assert.deepEqual(
    soakVerdict(
      run(20, (i) => ({ rssMb: 1100 + 10 * i })),
      quiet,
      b,
    ).leaked,
    ['RSS'],
  );
  assert.deepEqual(
    soakVerdict(
      run(21, (i) => ({ loopP99Ms: i < 7 ? 20 : 200 })),
      quiet,
      b,
    ).leaked,
    ['event-loop delay'],
  );
});

test('descriptors that come back to their idle count only within the bound', () => {
  const b = soakBounds(10, 20_000);
  assert.equal(
    soakVerdict(
      run(20, () => ({})),
      { before: idle(21), after: idle(23) },
      b,
    ).flat,
    true,
  );
  assert.equal(
    soakVerdict(
      run(20, () => ({})),
      { before: idle(21), after: idle(24) },
      b,
    ).flat,
    false,
  );
});

test('too few samples after the warm-up are not judged flat', () => {
  assert.equal(
    soakVerdict(
      run(2, () => ({})),
      { before: idle(21), after: idle(21) },
      soakBounds(10, 2000),
    ).flat,
    false,
  );
});
