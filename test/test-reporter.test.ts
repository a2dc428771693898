// npm test's reporter (scripts/test-reporter.mjs) with two files at a time: node:test then reports the file it
// is not showing live later, in one block (on Node 20 even after that file's own completion), and each file's
// line must still carry its own counts, its failures and what it printed; a file that fails outside any test
// counts once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './helpers/tmp.js';

const REPORTER = fileURLToPath(new URL('../scripts/test-reporter.mjs', import.meta.url));

function files(): string {
  const dir = tempDir('forklab-reporter-');
  // node:test shows the first file (by name) live: slow's, which runs longest, so quick's and crash's finish while
  // they wait to be shown.
  writeFileSync(
    join(dir, 'a-slow.test.mjs'),
    "import test from 'node:test';\ntest('slow one', async () => { await new Promise((r) => setTimeout(r, 600)); });\ntest('slow two', () => {});\n",
  );
  writeFileSync(
    join(dir, 'b-quick.test.mjs'),
    "import test from 'node:test';\ntest('says hello', () => { console.log('hello from quick'); });\ntest('skipped', { skip: 'no reason at all' }, () => {});\ntest('breaks', () => { throw new Error('broken on purpose'); });\n",
  );
  writeFileSync(join(dir, 'c-crash.test.mjs'), "import test from 'node:test';\nthrow new Error('crashed at load');\n");
  return dir;
}

function report(concurrency: number): string {
  const dir = files();
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT; // the child is a test runner of its own, not a file of this one
  delete env.NODE_OPTIONS;
  const r = spawnSync(process.execPath, ['--test', `--test-concurrency=${concurrency}`, `--test-reporter=${REPORTER}`, 'a-slow.test.mjs', 'b-quick.test.mjs', 'c-crash.test.mjs'], {
    cwd: dir,
    env,
    encoding: 'utf8',
    timeout: 60_000,
    killSignal: 'SIGKILL',
  });
  assert.equal(r.signal, null, `the child runner was killed: ${r.stderr}`);
  return r.stdout;
}

/** The block of one file: its line and what follows it up to the next file's line. */
function block(out: string, file: string): string {
  const lines = out.split('\n');
  const start = lines.findIndex((l) => /^[✔✖] /.test(l) && l.includes(` ${file} `));
  assert.ok(start >= 0, `no line for ${file} in:\n${out}`);
  let end = start + 1;
  while (end < lines.length && !/^[✔✖] /.test(lines[end]!) && lines[end] !== '') end++;
  return lines.slice(start, end).join('\n');
}

for (const concurrency of [1, 2]) {
  test(`reporter, ${concurrency} file(s) at a time: each file's line has its own counts, failures and output`, () => {
    const out = report(concurrency);
    assert.match(block(out, 'a-slow.test.mjs'), /^✔ a-slow\.test\.mjs {2}2 passed {2}\(/);
    const quick = block(out, 'b-quick.test.mjs');
    assert.match(quick, /^✖ b-quick\.test\.mjs {2}1 passed, 1 failed, 1 skipped {2}\(/);
    assert.match(quick, /✖ breaks\n\s+Error: broken on purpose/);
    assert.match(quick, /hello from quick/);
    const crash = block(out, 'c-crash.test.mjs');
    assert.match(crash, /^✖ c-crash\.test\.mjs {2}0 passed, 1 failed {2}\(/);
    assert.match(crash, /c-crash\.test\.mjs \(the file itself\)/);
    assert.match(crash, /crashed at load/);
    assert.match(out, /skipped:\n {2}- b-quick\.test\.mjs: skipped — no reason at all/);
    assert.match(out, /\n6 tests in 3 files, .*; 1 skipped\n3 passed, 2 failed\n$/);
  });
}
