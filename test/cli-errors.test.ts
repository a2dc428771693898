// One way to raise a command's error: a ForklabError (UsageError, CliError, …) whose message says what went wrong;
// src/cli/errors.ts prints it once, prefixed with the command ("forklab report: "). A message that builds the
// prefix itself would print it twice: this test fails on one, naming the file and the line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { reportError } from '../src/cli/errors.js';
import { UsageError } from '../src/errors.js';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return name.endsWith('.ts') ? [p] : [];
  });
}

test('the printer prefixes the command once, then the hint', () => {
  const out: string[] = [];
  const status = reportError(new UsageError('--rss', 'expected a number', 'try --rss 128'), 'spawn', (s) => void out.push(s));
  assert.equal(status, 2);
  assert.deepEqual(out, ['forklab spawn: --rss: expected a number\n', '  hint: try --rss 128\n']);
});

test('no error message in src/ builds the "forklab COMMAND: " prefix itself', () => {
  const raised = /\b(?:Error|CliError|OutputError|ForklabError|UsageError|DocumentError|StoreError)\([^;]*?['"`]forklab [a-z-]+: /;
  const found: string[] = [];
  for (const file of sources(SRC))
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (raised.test(line)) found.push(`${relative(SRC, file)}:${i + 1}: ${line.trim()}`);
      });
  assert.deepEqual(found, [], `let src/cli/errors.ts add the prefix:\n${found.join('\n')}`);
});
