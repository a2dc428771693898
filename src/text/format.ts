// Numbers as text: µs and ns with sensible precision, intervals, percentages, ratios. Every layer may use them
// to fill the cells of a table (src/experiments/ does; src/report/ renders the tables).

/** Whole numbers from 1,000 up with thousands separators, as every report writes them (never an exponent). */
/** (Rounded first, so 999.6 is written 1,000, not 1000.) */
const whole = (x: number) => Math.round(x).toLocaleString('en-US');

/** Microseconds from nanoseconds with sensible precision: 3.85 ms → "3,850", 154.2 µs → "154", 9.53 µs → "9.53". */
export function fmtUs(ns: number): string {
  const us = ns / 1000;
  if (us >= 100) return whole(us);
  if (us >= 10) return us.toFixed(1);
  return us.toFixed(2);
}

export function fmtNs(ns: number): string {
  if (ns >= 100) return whole(ns);
  if (ns >= 10) return ns.toFixed(1);
  return ns.toFixed(2);
}

/** "412 µs [405–420]" style: a median with its interval. */
export function fmtUsCi(medianNs: number, lowNs: number, highNs: number): string {
  return `${fmtUs(medianNs)} [${fmtUs(lowNs)}–${fmtUs(highNs)}]`;
}

export function fmtPct(fraction: number): string {
  return `${(fraction * 100).toFixed(fraction < 0.1 ? 1 : 0)} %`;
}

export function fmtRatio(x: number): string {
  return x >= 10 ? `${whole(x)}×` : `${x.toFixed(2)}×`;
}

/** Nanoseconds in a unit of `perNs` ns: ns (perNs 1) or µs (perNs 1000), with the precision of fmtNs / fmtUs. */
export function fmtIn(ns: number, unit: { perNs: number }): string {
  return unit.perNs === 1 ? fmtNs(ns) : fmtUs(ns);
}

/** "412 [405–420]" in the unit. */
export function fmtInCi(medianNs: number, lowNs: number, highNs: number, unit: { perNs: number }): string {
  return `${fmtIn(medianNs, unit)} [${fmtIn(lowNs, unit)}–${fmtIn(highNs, unit)}]`;
}
