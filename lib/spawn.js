// forklab/spawn: the @forklab/spawn package, re-exported (see docs/spawn.md).
export * from '@forklab/spawn';
