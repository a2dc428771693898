// Series, restrictions and keys as a verdict's plain line says them ("fork-exec, thp off, rss 1024 MB"), where the
// formula of --verbose writes "method=fork-exec,thp=off,rssMb=1024".
import type { Series } from '../reference/published.js';
import { keyValueWords } from '../text/words.js';
import { CONTEXT_KEYS, type Restriction } from './data.js';

/** Keys whose values name themselves (a method, a series, a variant): the value alone. */
const SELF_NAMED: ReadonlySet<string> = new Set(['method', 'series', 'variant']);

/** One key and value: "fork-exec", "thp off", "rss 1024 MB". */
export function plainPair(key: string, value: unknown): string {
  return SELF_NAMED.has(key) ? String(value) : keyValueWords(key, value);
}

/** A selector or restriction: "fork-exec, thp off"; an empty one is every configuration. */
export function plainSeries(sel: Series | Restriction): string {
  const parts = Object.entries(sel)
    .filter(([k]) => !CONTEXT_KEYS.includes(k))
    .map(([k, v]) => plainPair(k, v));
  return parts.length ? parts.join(', ') : 'every configuration';
}

/** "thp off: " before one restriction's figures, nothing when there is no restriction. */
export const plainWhere = (r: Restriction): string => (Object.keys(r).length ? `${plainSeries(r)}: ` : '');

/** A key's range: "rss 0–1024 MB". */
export const plainSpan = (key: string, from: number, to: number): string => keyValueWords(key, `${from}–${to}`);

/** The mark after a figure whose own part does not hold. */
export const plainMark = (o: 'holds' | 'differs' | 'inconclusive'): string => (o === 'holds' ? '' : o === 'differs' ? ' (does not hold)' : ' (undecided)');
