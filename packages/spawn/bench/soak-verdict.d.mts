// Types of soak-verdict.mjs, for the unit test written in TypeScript.
export interface SoakSample {
  tS: number;
  requests: number;
  rps?: number;
  fds: number;
  children: number;
  zombies: number;
  rssMb: number;
  loopP99Ms: number | null;
  loopMaxMs?: number | null;
}
export interface IdleSample {
  fds: number;
  zombies: number;
  rssMb: number;
}
export interface SoakBounds {
  fdMove: number;
  fdIdle: number;
  zombiesInFlight: number;
  rssGrowthMb: number;
  rssRangeFraction: number;
  rssRangeMb: number;
  loopFactor: number;
  loopPlusMs: number;
}
export interface SoakCheck {
  what: string;
  flat: boolean;
  detail: string;
}
export function parseStat(text: string): { pid: number; comm: string; state: string; ppid: number } | null;
export function parseRssMb(text: string): number | null;
export function slope(xs: number[], ys: number[]): number | null;
export function soakBounds(connections: number, requests: number): SoakBounds;
export function soakVerdict(
  samples: SoakSample[],
  idle: { before: IdleSample; after: IdleSample },
  bounds: SoakBounds,
  warmup?: number,
): { flat: boolean; checks: SoakCheck[]; leaked: string[]; steadySamples: number };
export function sampleTable(samples: SoakSample[]): string[];
