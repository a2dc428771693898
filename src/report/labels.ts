// What a reader sees instead of the document's keys: parameters as the flags a user types (--rss 0,128, not
// rssMb), machine fields in words (page size, not pageSizeBytes), numbers without exponents and with thousands
// separators (1,110 µs, not 1.11e+3 µs).
import type { RunDocument } from '../document/run.js';
import { findSweep } from '../experiments/index.js';
import { words } from '../text/words.js';

/** A number for a reader: 3 significant digits below 1000, whole numbers with separators above, never an exponent. */
export function fmtNumber(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (Math.round(a) >= 1000) return Math.round(x).toLocaleString('en-US'); // 999.6 too: 1,000, not 1000
  if (a === 0) return '0';
  const decimals = Math.min(20, Math.max(0, 2 - Math.floor(Math.log10(a))));
  return x
    .toFixed(decimals)
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');
}

const MACHINE_LABELS: Record<string, string> = {
  pageSizeBytes: 'page size',
  cgroupMemoryLimitBytes: 'cgroup memory limit',
  vmMaxMapCount: 'most mappings per process (vm.max_map_count)',
  overcommitMemory: 'memory overcommit (vm.overcommit_memory)',
  cpuPressure: 'CPU pressure (PSI, share of time tasks waited)',
  clockSource: 'clock source',
  cpuGovernor: 'CPU frequency governor',
  collectedAt: 'recorded at',
  notes: 'notes',
};

/** A machine record field's label for a reader. */
export const machineLabel = (key: string): string => MACHINE_LABELS[key] ?? words(key);

const camel = (flag: string) => flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
const valueText = (v: unknown): string =>
  Array.isArray(v) ? v.map(valueText).join(',') : typeof v === 'number' ? fmtNumber(v).replace(/,/g, '') : typeof v === 'string' ? v : JSON.stringify(v);

/**
 * The run's parameters as the flags that give them: `--rss` for rssMb, `--ci-target 2` for a ciTarget of 0.02 (a
 * percentage flag stores a fraction), `--target PROGRAM -- ARGS` for the user's program. A parameter no flag sets is
 * an experiment's internal setting (`block`, `repeatsStop`): left out here, kept in the document; a recording's
 * settings (it has no flags of its own here) are said in words.
 */
export function paramFlags(doc: RunDocument): [string, string][] {
  const sweep = findSweep(doc.experiment);
  const options = sweep?.options ?? [];
  const out: [string, string][] = [];
  for (const [key, value] of Object.entries(doc.params)) {
    // Not given (a filter left open, an empty list): nothing to show.
    if (key === 'targetArgs' || value === null || (Array.isArray(value) && value.length === 0)) continue;
    if (key === 'target') {
      const args = Array.isArray(doc.params.targetArgs) ? (doc.params.targetArgs as string[]) : [];
      out.push(['--target', `${String(value)}${args.length ? ` -- ${args.join(' ')}` : ''}`]);
      continue;
    }
    const opt = options.find((o) => {
      if (o.param !== undefined) return o.param === key;
      const name = camel(o.flags.split(/[ ,]/)[0]!);
      return name === key || (key.startsWith(name) && /^(Mb|Kb|Ms|Ns|Bytes)$/.test(key.slice(name.length)));
    });
    if (!opt) {
      // A setting no flag gives: a sweep's own internals (how it lays out its probes, why its repeats stopped) stay in
      // the document; a kind of run without flags of its own (a recording) says its settings in words.
      if (sweep) continue;
      out.push([words(key), valueText(value)]);
      continue;
    }
    const percent = opt.unit === '%' && typeof value === 'number';
    out.push([opt.flags.split(/[ ,]/)[0]!, percent ? fmtNumber((value as number) * 100) : valueText(value)]);
  }
  return out;
}

/** A value in a published figure's unit: "1,110 µs", "16×", "54 ns/PTE", "12 %". */
export function fmtValue(x: number, unit: string): string {
  if (unit === 'ratio' || unit === '×') return `${fmtNumber(x)}×`;
  if (unit === '%') return `${fmtNumber(x)} %`;
  return `${fmtNumber(x)} ${unit.replace(/^us\b/, 'µs')}`;
}
