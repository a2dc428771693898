// The RunContext an experiment test runs with: the real probe (build/Release or FORKLAB_NATIVE_DIR), no
// progress output, not pinned, seed 1.
import { nativePaths, requireNative } from '../../src/runner/paths.js';
import type { RunContext } from '../../src/experiments/contract/types.js';

export function testContext(signal: AbortSignal = new AbortController().signal): RunContext {
  return { native: requireNative(nativePaths()), signal, progress: { step() {}, note() {} }, pinCpu: null, seed: 1 };
}
