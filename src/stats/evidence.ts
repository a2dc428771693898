// What counts as a measured timing, shared by import (src/store/meaning.ts) and the verdicts (src/claims/evidence.ts).

/** A timed call takes more than 0 ns: a sample of 0 or below is a broken clock or a doctored document, never a measurement. */
export function timingProblem(ns: number): string | null {
  if (!Number.isFinite(ns)) return `${ns} is not a finite number of nanoseconds`;
  if (ns <= 0) return `${ns} ns is not a measured call (a timing is above 0 ns)`;
  return null;
}
