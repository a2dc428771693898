// The progress display: fits the terminal's width; one status line per step when stderr is not a terminal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { createProgress, progressLine } from '../src/cli/progress.js';

test('the progress line never reaches the last column, whatever the width', () => {
  const label = 'fork-exec rss=1024 MB thp=off #1';
  for (const cols of [200, 120, 80, 60, 40, 30, 20, 10, 1]) {
    const line = progressLine({ experiment: 'spawn', index: 5, total: 24, label, elapsedMs: 12_000, cols });
    assert.ok(line.length <= Math.max(0, cols - 1), `${cols} columns: ${JSON.stringify(line)} is ${line.length} long`);
  }
  const wide = progressLine({ experiment: 'spawn', index: 5, total: 24, label, elapsedMs: 12_000, cols: 200 });
  assert.ok(wide.includes(label) && wide.includes('6/24') && wide.includes('█'), wide);
  const narrow = progressLine({ experiment: 'spawn', index: 5, total: 24, label, elapsedMs: 12_000, cols: 50 });
  assert.ok(narrow.includes('6/24'), 'the step count survives when the bar and the label do not');
});

test('not a terminal: one short line per step, and notes on their own lines', () => {
  const stream = new PassThrough() as unknown as NodeJS.WriteStream & PassThrough;
  let text = '';
  stream.on('data', (d: Buffer) => (text += d.toString()));
  const p = createProgress('cow', stream);
  p.step('thp=off #1', 0, 2);
  p.note('thp=off #1: the probe failed');
  p.step('thp=on #1', 1, 2);
  p.end();
  const lines = text.trimEnd().split('\n');
  assert.equal(lines.length, 3, text);
  assert.match(lines[0]!, /^forklab cow: \[1\/2\] thp=off #1 \(\d+s\)$/);
  assert.match(lines[1]!, /^forklab cow: thp=off #1: the probe failed$/);
  assert.match(lines[2]!, /^forklab cow: \[2\/2\] thp=on #1 /);
  assert.ok(!text.includes('\r') && !text.includes('\x1b'), 'no terminal control codes in a pipe');
});
