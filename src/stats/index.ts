export { mulberry32 } from './random.js';
export { quantile, median, mean, stdev, describe } from './descriptive.js';
export type { Summary } from './descriptive.js';
export { bootstrapMedianCi, bootstrapRatioCi, ciHalfWidthFraction } from './bootstrap.js';
export type { Interval, RatioInterval, BootstrapOptions } from './bootstrap.js';
export { linearFit } from './regression.js';
export type { LinearFit } from './regression.js';
export { mannWhitneyU, normalCdf, erfc } from './mannwhitney.js';
export type { MannWhitneyResult } from './mannwhitney.js';
