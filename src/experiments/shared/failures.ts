// The 'probe-failed' warning, one definition: where a probe failed, in the experiment's own words for its
// configuration and repeat, then why (the measurement's failure).
import type { Measurement, Warning } from '../contract/types.js';

export interface ProbeFailedOptions {
  /** One warning per distinct message, where the series of one probe process fail together (create, exec). */
  distinct?: boolean;
  /** A sentence after the failure, e.g. what the failure means for the run. */
  advice?: string;
}

/** A 'probe-failed' warning for each failed measurement, in order: "WHERE: FAILURE" (then ". ADVICE"). */
export function probeFailedWarnings(ms: readonly Measurement[], where: (m: Measurement) => string, o: ProbeFailedOptions = {}): Warning[] {
  const out: Warning[] = [];
  const seen = new Set<string>();
  for (const m of ms) {
    if (m.state !== 'failed') continue;
    const message = `${where(m)}: ${m.failure}${o.advice ? `. ${o.advice}` : ''}`;
    if (o.distinct && seen.has(message)) continue;
    seen.add(message);
    out.push({ code: 'probe-failed', message });
  }
  return out;
}
