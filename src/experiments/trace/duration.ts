// How long something took, in the words a trace prints.

/** Seconds or milliseconds from ns: "7.4 s", "312 ms", "0.85 ms". */
export function fmtDuration(ns: number): string {
  if (ns >= 1e9) return `${(ns / 1e9).toFixed(ns >= 1e10 ? 0 : 1)} s`;
  const ms = ns / 1e6;
  return `${ms >= 10 ? ms.toFixed(0) : ms.toFixed(2)} ms`;
}
