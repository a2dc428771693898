export * from '@forklab/spawn';
