// The settings `forklab reproduce` runs each experiment with live in each experiment's module (`presets`);
// this module hands them on under the names the claims and `reproduce` use.
import { EXPERIMENTS, presetFor } from '../experiments/index.js';
import type { Presets, RawOptions } from '../experiments/types.js';

export type { RawOptions };
export type Preset = Presets;

export const PRESETS: Readonly<Record<string, Preset>> = Object.fromEntries(EXPERIMENTS.map((e) => [e.name, e.presets]));

export { presetFor };
