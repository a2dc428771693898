#!/usr/bin/env node
// forklab's command line, compiled from src/ to dist/ by `npm run build` (run by npm ci / npm install).
import('../dist/cli/main.js')
  .then((m) => m.main(process.argv))
  .catch((e) => {
    if (e && e.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes('dist/cli/main.js')) {
      console.error('forklab: not built yet (dist/ is missing). Run `npm run build` in the package directory.');
      process.exit(1);
    }
    throw e;
  });
