// Writes schemas/*.schema.json from the documents' TypeBox definitions (src/cli/schemas.ts) and removes any
// schemas/ file that no definition makes. Run with `npm run schemas`; test/schemas.test.ts fails when they are stale.
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { schemaFiles } from '../src/cli/schemas.ts';

const dir = new URL('../schemas/', import.meta.url);
mkdirSync(dir, { recursive: true });
const files = schemaFiles();
for (const [name, text] of Object.entries(files)) {
  const url = new URL(name, dir);
  let before = null;
  try {
    before = readFileSync(url, 'utf8');
  } catch {}
  if (before !== text) writeFileSync(url, text);
  process.stdout.write(`schemas/${name}: ${before === text ? 'up to date' : 'written'}\n`);
}
for (const name of readdirSync(dir))
  if (!(name in files)) {
    rmSync(new URL(name, dir));
    process.stdout.write(`schemas/${name}: removed (no document has it)\n`);
  }
