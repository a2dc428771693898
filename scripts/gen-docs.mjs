// Rewrites the generated sections of docs/published-figures.md and docs/reproduce.md from data/published.json
// and the code (src/cli/docs.ts). Run with `npm run docs`; test/docs.test.ts fails when they are stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { applySections, generatedSections } from '../src/cli/docs.ts';

const root = new URL('../', import.meta.url);
for (const [file, sections] of Object.entries(generatedSections())) {
  const url = new URL(file, root);
  const before = readFileSync(url, 'utf8');
  const after = applySections(before, sections, file);
  if (after !== before) writeFileSync(url, after);
  process.stdout.write(`${file}: ${after === before ? 'up to date' : 'rewritten'}\n`);
}
