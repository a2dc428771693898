// Which configurations a claim's verdict rests on: the ones its check's selectors pick. What reproduce --settle
// measures again for an inconclusive verdict, and nothing else.
import type { Check, Claim } from '../reference/published.js';
import { matches } from './select.js';
import type { Config } from './data.js';

const SELECTOR_KEYS: ReadonlySet<string> = new Set(['series', 'minus', 'of', 'numerator', 'denominator', 'greater', 'lesser', 'operand', 'operands']);
type Sel = Record<string, string | number | boolean>;
const isSelector = (v: unknown): v is Sel => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x !== 'object');

/** Every selector a check reads configurations with ({} picks every configuration). */
export function selectorsOf(check: Check): Sel[] {
  const walk = (v: unknown, under: string): Sel[] => {
    if (Array.isArray(v)) return v.flatMap((x) => walk(x, under));
    if (typeof v !== 'object' || v === null) return [];
    if (SELECTOR_KEYS.has(under) && isSelector(v)) return [v];
    return Object.entries(v).flatMap(([k, x]) => walk(x, k));
  };
  if (check.type === 'boolean' && check.variant !== undefined) return [{ variant: check.variant }];
  const found = walk(check, '');
  return found.length ? found : [{}];
}

/** The configurations (of one experiment's data) behind the verdicts of some claims. */
export function configsBehind(claims: readonly Claim[], configs: readonly Config[]): Config[] {
  const sels = claims.flatMap((c) => selectorsOf(c.check));
  return configs.filter((cfg) => sels.some((s) => matches(cfg, s)));
}

/**
 * The run parameters narrowed to what some configurations need: every list parameter that names a configuration
 * key (rssMb, methods → method) keeps only the values those configurations have. Other parameters stay as they are.
 */
export function narrowParams<P>(params: P, behind: readonly Config[]): P {
  const out: Record<string, unknown> = { ...(params as Record<string, unknown>) };
  for (const [name, v] of Object.entries(out)) {
    if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'string' || typeof x === 'number')) continue;
    const key = behind.some((c) => c[name] !== undefined) ? name : name.endsWith('s') && behind.some((c) => c[name.slice(0, -1)] !== undefined) ? name.slice(0, -1) : null;
    if (key === null) continue;
    const keep = v.filter((x) => behind.some((c) => c[key] === x));
    if (keep.length > 0) out[name] = keep;
  }
  return out as P;
}
