// forklab/spawn/register: `node --import forklab/spawn/register app.js` (see docs/spawn.md).
export * from '@forklab/spawn/register';
