// Kept for src/cli/trace.ts and src/experiments/trace/, whose owner moves their imports to src/experiments/shared/measure.ts; remove then.
export * from './shared/measure.js';
