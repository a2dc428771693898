// dist/cjs/ holds the CommonJS build; this marks it as such for Node (the package itself is "type": "module").
import { writeFileSync } from 'node:fs';
writeFileSync(new URL('../dist/cjs/package.json', import.meta.url), '{ "type": "commonjs" }\n');
