// A document's keys in words, for every layer that shows one to a reader: "slabGrowthKb" → "slab growth (kB)",
// "minorFaults" → "minor faults".

const UNITS: Record<string, string> = { Kb: 'kB', Mb: 'MB', Bytes: 'bytes', Ns: 'ns', Ms: 'ms' };

/** A key's unit suffix and the rest: "rssMb" → { base: "rss", unit: "MB" }; no suffix → unit null. */
function splitUnit(key: string): { base: string; unit: string | null } {
  const suffix = /(Kb|Mb|Bytes|Ns|Ms)$/.exec(key)?.[1];
  return suffix ? { base: key.slice(0, -suffix.length), unit: UNITS[suffix]! } : { base: key, unit: null };
}

/** camelCase → lower-case words, without the unit: "slabGrowthKb" → "slab growth". */
export function baseWords(key: string): string {
  return splitUnit(key)
    .base.replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase();
}

/** camelCase → words, with a unit suffix made a unit: "slabGrowthKb" → "slab growth (kB)". */
export function words(key: string): string {
  const { unit } = splitUnit(key);
  return unit ? `${baseWords(key)} (${unit})` : baseWords(key);
}

/** A key and its value as a reader says them: "rssMb", 1024 → "rss 1024 MB"; "thp", "off" → "thp off". */
export function keyValueWords(key: string, value: unknown): string {
  const { unit } = splitUnit(key);
  return `${baseWords(key)} ${String(value)}${unit ? ` ${unit}` : ''}`;
}
