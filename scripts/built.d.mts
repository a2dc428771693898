// Types of built.mjs, for the test helpers written in TypeScript.
export interface Build {
  /** the sources' directory */
  src: string;
  /** the directories the build writes (each holds an output of every source) */
  outs: string[];
  /** the tsconfig files that make it */
  configs: string[];
}
export const BUILDS: { forklab: Build; spawn: Build };
export function staleBuild(build: Build): string | null;
