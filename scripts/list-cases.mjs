// Prints the probe's case files (native/case_*.c) for binding.gyp, one per line, sorted.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const dir = fileURLToPath(new URL('../native/', import.meta.url));
for (const f of readdirSync(dir)
  .filter((f) => /^case_[a-z0-9_]+\.c$/.test(f))
  .sort())
  console.log(`native/${f}`);
