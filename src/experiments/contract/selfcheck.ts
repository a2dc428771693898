// What `forklab selfcheck` compares for an experiment: a series of its probe beside the articles' own method, a
// bare C loop of the same operation (native/loop.c), in the same conditions. Each experiment that has such pairs
// declares them (its `selfcheck`); the command runs, interleaves and judges them without knowing any by name.
import type { NativePaths } from '../../runner/paths.js';
import type { SeriesData } from '../../runner/probe.js';
import type { InfoValue } from '../../runner/protocol.js';

/** The probe side of a pair: which case and series, and (by default) its samples' means per block of calls. */
export interface SelfcheckProbe {
  caseName: string;
  args: Record<string, string | number>;
  series: string;
  /** The blocks of one probe process when they are not the series' samples in blocks of calls. */
  blocks?(s: SeriesData, info: Record<string, InfoValue>): number[] | null;
}

/** One comparison: a probe series against a bare loop of the same operation. */
export interface SelfcheckPair {
  label: string;
  /** The region the parent maps, in MB (the time limits grow with it). */
  regionMb: number;
  /** What both sides hold at their peak, in MB (the memory check before anything starts). */
  memoryMb: number;
  probe(n: NativePaths): SelfcheckProbe;
  /** native/loop.c's arguments before its warm-up and block: operation, MB, THP mode, calls, target. */
  loop(n: NativePaths, iterations: number): string[];
  /** Calls per process on both sides, from --iterations (default: --iterations itself). */
  calls?(iterations: number): number;
}

/** The choices `forklab selfcheck` offers a suite: the methods, parent sizes and THP modes of its --methods, --rss, --thp. */
export interface SelfcheckChoices {
  methods: readonly string[];
  rssMb: readonly number[];
  thp: readonly string[];
}

/** An experiment's pairs for the choices given. */
export type SelfcheckSuite = (c: SelfcheckChoices) => SelfcheckPair[];
