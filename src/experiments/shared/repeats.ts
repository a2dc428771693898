// The flags of adaptive repeats (sweep.ts AdaptiveRepeats), shared by the experiments that offer them.
import { parseInteger, str } from '../../text/parse.js';
import type { OptionSpec } from '../contract/types.js';
import { UsageError } from '../../errors.js';
import type { AdaptiveRepeats } from './sweep.js';
import type { RepeatsStop } from '../contract/types.js';

export interface RepeatParams {
  /** Most probe processes per configuration; more than --repeats only while a figure's interval is wider than the target. */
  maxRepeats: number;
  /** Target half-width of every figure's 95 % interval, as a fraction of its median (0.05 = ±5 %). */
  repeatsCiTarget: number;
  /** Wall-time budget for the repeats beyond --repeats, in seconds. */
  repeatsBudgetS: number;
}

export interface RepeatDefaults {
  /** Extra repeats allowed beyond --repeats when --max-repeats is not given. */
  extraRepeats: number;
  repeatsCi: string;
  repeatsBudgetS: string;
}

export function repeatOptions(d: RepeatDefaults): OptionSpec[] {
  return [
    {
      flags: '--max-repeats <n>',
      description: `adaptive repeats: at most this many probe processes per configuration — more than --repeats only while a figure's 95 % interval is wider than --repeats-ci, fewer (at least 2) once every one is within it (default: --repeats${d.extraRepeats ? ` + ${d.extraRepeats}` : ', i.e. exactly --repeats'})`,
      unit: 'processes',
    },
    {
      flags: '--repeats-ci <percent>',
      description: "the target for --max-repeats: every figure's 95 % interval within ±percent of its median",
      defaultValue: d.repeatsCi,
      unit: '%',
      param: 'repeatsCiTarget',
    },
    { flags: '--repeats-budget-s <s>', description: 'time budget in seconds for the repeats beyond --repeats', defaultValue: d.repeatsBudgetS, unit: 's' },
  ];
}

export function parseRepeatOptions(raw: Record<string, string | boolean | string[] | undefined>, repeats: number, d: RepeatDefaults): RepeatParams {
  const maxRepeats = parseInteger('--max-repeats', str(raw, 'maxRepeats', String(Math.min(1000, repeats + d.extraRepeats))), 1, 1000);
  if (maxRepeats < repeats) throw new UsageError('--max-repeats', `must be at least --repeats (${repeats}), got ${maxRepeats}`);
  const ci = str(raw, 'repeatsCi', d.repeatsCi).trim();
  const pct = Number(ci);
  if (ci === '' || !/^\d+(\.\d+)?$/.test(ci) || !(pct > 0) || pct > 100)
    throw new UsageError('--repeats-ci', `expected a percentage above 0 and at most 100, got ${JSON.stringify(ci)}`);
  return { maxRepeats, repeatsCiTarget: pct / 100, repeatsBudgetS: parseInteger('--repeats-budget-s', str(raw, 'repeatsBudgetS', d.repeatsBudgetS), 0, 86_400) };
}

/**
 * The sweep's adaptive plan when --max-repeats exceeds --repeats: early stop after min(2, repeats) rounds once
 * every figure is within the target, extra rounds up to maxRepeats while one is not. Undefined (exactly
 * --repeats) otherwise.
 */
export function adaptiveRepeats(repeats: number, p: RepeatParams): AdaptiveRepeats | undefined {
  if (p.maxRepeats <= repeats) return undefined;
  return { minRepeats: Math.min(2, repeats), maxRepeats: p.maxRepeats, targetCiFraction: p.repeatsCiTarget, budgetMs: p.repeatsBudgetS * 1000 };
}

/** One line for the render: how many repeats ran and why it stopped (from params.repeatsStop), or null. */
export function describeRepeatsStop(params: Partial<RepeatParams> & { repeats?: number; repeatsStop?: RepeatsStop }): string | null {
  const s = params.repeatsStop;
  if (!s || s.reason === 'planned') return null; // adaptive repeats off: nothing to explain
  const target = typeof params.repeatsCiTarget === 'number' ? `±${Math.round(params.repeatsCiTarget * 1000) / 10} %` : 'the target';
  const why = {
    planned: 'exactly --repeats (no --max-repeats)',
    'ci-reached': `every interval within ${target}`,
    'max-repeats': `--max-repeats reached with an interval still wider than ${target}`,
    budget: `--repeats-budget-s used up with an interval still wider than ${target}`,
    cancelled: 'cancelled',
  }[s.reason];
  const widest = s.widestCiFraction === null ? '' : `; widest interval ±${(s.widestCiFraction * 100).toFixed(1)} %`;
  return `repeats: ${s.rounds} (of ${String(params.repeats)} planned, at most ${String(params.maxRepeats)}) — stopped: ${why}${widest}`;
}
