// Parsers for option strings: each names the flag in its error.
import { UsageError } from '../errors.js';

export function parseInteger(flag: string, raw: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const s = raw.trim();
  if (!/^[+-]?\d+$/.test(s)) throw new UsageError(flag, `expected a whole number, got ${JSON.stringify(raw)}`);
  const v = Number(s);
  if (v < min) throw new UsageError(flag, `must be at least ${min}, got ${v}`);
  if (v > max) throw new UsageError(flag, `must be at most ${max}, got ${v}`);
  return v;
}

/** A plain decimal number ("2", "0.5", ".5"): no empty text, no hex ("0x5"), no exponent, no Infinity. */
export function parseDecimal(flag: string, raw: string, min: number, max: number, what = 'a number'): number {
  const s = raw.trim();
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(s)) throw new UsageError(flag, `expected ${what} from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  const v = Number(s);
  if (v < min || v > max) throw new UsageError(flag, `expected ${what} from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  return v;
}

export function parseIntegerList(flag: string, raw: string, min: number, max = Number.MAX_SAFE_INTEGER): number[] {
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => p === '')) throw new UsageError(flag, `expected a comma-separated list of numbers, got ${JSON.stringify(raw)}`);
  const values = parts.map((p) => parseInteger(flag, p, min, max));
  return [...new Set(values)];
}

export function parseChoiceList<T extends string>(flag: string, raw: string, allowed: readonly T[]): T[] {
  const parts = raw.split(',').map((p) => p.trim());
  const out: T[] = [];
  for (const p of parts) {
    if (!(allowed as readonly string[]).includes(p)) throw new UsageError(flag, `unknown value ${JSON.stringify(p)}; expected one of ${allowed.join(', ')}`);
    if (!out.includes(p as T)) out.push(p as T);
  }
  if (out.length === 0) throw new UsageError(flag, 'empty list');
  return out;
}

export function parseCpu(flag: string, raw: string | undefined, cpusAllowed: readonly number[] | null): number | null {
  if (raw === undefined) return null;
  const cpu = parseInteger(flag, raw, 0, 4095);
  if (cpusAllowed && !cpusAllowed.includes(cpu)) throw new UsageError(flag, `CPU ${cpu} is not one this process may run on (allowed: ${cpusAllowed.join(',')})`);
  return cpu;
}

/** --pin: a CPU this process may run on, `none` (not pinned), or absent ('default': the experiment's own choice). */
export function parsePin(flag: string, raw: string | undefined, cpusAllowed: readonly number[] | null): number | null | 'default' {
  if (raw === undefined) return 'default';
  if (raw === 'none') return null;
  return parseCpu(flag, raw, cpusAllowed);
}

export function str(raw: Record<string, string | boolean | string[] | undefined>, key: string, def: string): string {
  const v = raw[key];
  return typeof v === 'string' ? v : def;
}
