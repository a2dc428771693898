// The doctor's look at this machine: its facts read (with the probe set forklab would run, and a prebuilt set's
// libc), then every check of src/env/doctor.ts. Printing and --apply are the command line's (src/cli/doctor.ts).
import { readDoctorFacts } from '../env/doctor-facts.js';
import { runDoctorChecks } from '../env/doctor.js';
import type { DoctorCheck } from '../env/doctor-check.js';
import { probeFacts } from '../runner/paths.js';

/** Every check of this machine; `intervalMs` apart the two readings of what runs now (default: the doctor's own). */
export async function examineMachine(o: { intervalMs?: number } = {}): Promise<DoctorCheck[]> {
  return runDoctorChecks(await readDoctorFacts({ ...o, probe: probeFacts() }));
}
