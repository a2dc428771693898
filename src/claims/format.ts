// Number formatting for verdict details and the reproduce summary: a few significant digits, units that
// follow the metric's name (…Kb → kB, …Bytes → bytes), times from nanoseconds in ns, µs or ms; a slope per one unit
// of the key it runs over, as the caller names that unit.

/** 3 significant digits, no exponent for ordinary magnitudes, thousands without separators. */
export function fmtNum(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a === 0) return '0';
  if (a >= 1000) return x.toFixed(0);
  if (a >= 100) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1);
  if (a >= 1) return x.toFixed(2);
  if (a >= 0.01) return x.toFixed(3);
  return x.toPrecision(2);
}

function fmtTimeNs(ns: number): string {
  const a = Math.abs(ns);
  if (a >= 1e6) return `${fmtNum(ns / 1e6)} ms`;
  if (a >= 1e3) return `${fmtNum(ns / 1e3)} µs`;
  return `${fmtNum(ns)} ns`;
}

/** The unit of a metric, from its name: pageTablesKb → kB, fileBytes → bytes, forkWaitNs → ns. */
function metricUnit(metric: string | undefined): string {
  if (metric === undefined) return 'ns';
  if (/Kb$/.test(metric)) return 'kB';
  if (/Bytes$/.test(metric)) return 'bytes';
  if (/Ns$/.test(metric)) return 'ns';
  return '';
}

/** A value of a metric (or a time in ns without one) with its unit. */
export function fmtMetric(value: number, metric: string | undefined): string {
  const unit = metricUnit(metric);
  if (unit === 'ns') return fmtTimeNs(value);
  return unit ? `${fmtNum(value)} ${unit}` : fmtNum(value);
}

/**
 * A slope of a metric over a key in words and units: "29.1 µs per MB", "0.26 kB per VMA", `per` being what one unit
 * of the key is called (its experiment declares it: src/claims/lines.ts, unitOfKey). A time per MB is said in µs, as
 * every growth table and conclusion gives it, so that one slope has one value wherever it is shown.
 */
export function fmtSlope(slope: number, metric: string | undefined, per: string): string {
  if (metricUnit(metric) === 'ns' && per === 'MB') return `${fmtNum(slope / 1000)} µs per MB`;
  return `${fmtMetric(slope, metric)} per ${per}`;
}

export function fmtFactor(x: number): string {
  return `${fmtNum(x)}×`;
}

export function fmtPercent(fraction: number): string {
  return `${fmtNum(fraction * 100)} %`;
}

/** A published value in its unit: "3850 µs", "96×", "16940 kB". */
export function fmtInUnit(value: number, unit: string): string {
  switch (unit) {
    case 'ratio':
      return fmtFactor(value);
    case 'us':
      return `${fmtNum(value)} µs`;
    case 'us/MB':
      return `${fmtNum(value)} µs/MB`;
    case '%':
      return `${fmtNum(value)} %`;
    default:
      return `${fmtNum(value)} ${unit}`;
  }
}
