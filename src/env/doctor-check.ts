// What one of `forklab doctor`'s checks reports (doctor.ts and doctor-probe.ts make them): what it found, why it
// matters, and the change --apply may make.
export type CheckStatus = 'ok' | 'warn' | 'info';

/** A change --apply may make: write `value` to `path` (the previous value is saved for --reset). */
export interface FileChange {
  path: string;
  value: string;
}

export interface DoctorCheck {
  id: string;
  title: string;
  status: CheckStatus;
  found: string;
  why: string;
  /** The shell command that changes it (as root), or null when nothing needs or can be changed from here. */
  command: string | null;
  /** What --apply writes (only for status warn); empty when the change is left to the user. */
  apply: FileChange[];
}
