// The mechanism strace saw for a variant, carried in each of its measurements' observed fields, so that a stored
// run (forklab show, report) groups its variants by mechanism as the run itself did.
import type { Measurement } from '../contract/types.js';
import { measurementsOf } from '../contract/fields.js';
import { RUNTIMES_FIELDS, type MechanismObserved, type NoMechanismObserved } from './configuration.js';
import { SPAWN_MECHANISMS } from './mechanism.js';
import type { VariantMechanism } from './summary.js';

/** The observed fields for one variant's mechanism; none when it was not observed. */
export function mechanismFields(m: VariantMechanism | undefined): MechanismObserved | NoMechanismObserved {
  if (m?.result.state !== 'observed') return {};
  return {
    mechanism: m.result.mechanism,
    mechanismSyscall: m.result.syscall,
    mechanismFlags: m.result.flags,
    mechanismHelpers: m.result.helpers.join(' '),
    mechanismText: m.text,
  };
}

/** One entry per runtime × variant whose measurements carry a mechanism. */
export function mechanismsFromMeasurements(ms: readonly Measurement[]): VariantMechanism[] {
  const out = new Map<string, VariantMechanism>();
  for (const m of measurementsOf(RUNTIMES_FIELDS, ms)) {
    const o = m.observed;
    if (!('mechanism' in o)) continue;
    const kind = SPAWN_MECHANISMS.find((k) => k === o.mechanism);
    const key = `${m.identity.runtime}|${m.identity.variant}`;
    if (!kind || out.has(key)) continue;
    out.set(key, {
      runtime: String(m.identity.runtime),
      variant: String(m.identity.variant),
      result: {
        state: 'observed',
        mechanism: kind,
        syscall: String(o.mechanismSyscall ?? ''),
        flags: typeof o.mechanismFlags === 'string' ? o.mechanismFlags : null,
        helpers: typeof o.mechanismHelpers === 'string' && o.mechanismHelpers ? o.mechanismHelpers.split(' ') : [],
      },
      text: String(o.mechanismText ?? kind),
    });
  }
  return [...out.values()];
}
