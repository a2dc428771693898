export * from '@forklab/spawn/register';
