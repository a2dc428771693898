// A warning forklab writes carries one of its own codes (WarningCode): a misspelt code does not compile — the line
// under the @ts-expect-error below fails `tsc -p tsconfig.test.json` if it ever does. A document from another
// version may carry a code this one does not know: it is read, checked and shown as it is, the code kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseRunDocument } from '../src/document/validate.js';
import { runOfDocument } from '../src/document/run.js';
import type { StoredWarning, Warning } from '../src/experiments/contract/types.js';

test('a warning written with a code forklab does not know does not compile', () => {
  const written: Warning = { code: 'noise', message: 'noisy' };
  // @ts-expect-error a misspelt code (noisy for noise)
  const misspelt: Warning = { code: 'noisy', message: 'noisy' };
  const read: StoredWarning = misspelt;
  assert.deepEqual([written.code, read.code], ['noise', 'noisy']);
});

test('a document carrying a code from another version is read with that code kept', () => {
  const doc = JSON.parse(readFileSync(new URL('./fixtures/report/cow.json', import.meta.url), 'utf8')) as { warnings: StoredWarning[] };
  doc.warnings = [...doc.warnings, { code: 'a-code-of-another-version', message: 'kept as it is' }];
  const read = parseRunDocument(JSON.stringify(doc));
  assert.deepEqual(read.warnings.at(-1), { code: 'a-code-of-another-version', message: 'kept as it is' });
  assert.deepEqual(runOfDocument(read)?.warnings.at(-1), { code: 'a-code-of-another-version', message: 'kept as it is' });
});
