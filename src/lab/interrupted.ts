// What ends a run early: the signal the caller turned into an abort (Ctrl-C or SIGTERM), and how the run's
// life and the command line name it.
import { killAllGroups } from '../runner/processes.js';

/** Kills every probe process group still alive (and what it forked) at once: the command line's answer to Ctrl-C. */
export function killProbes(): void {
  killAllGroups();
}

/** What ended a run early: Ctrl-C (SIGINT) or SIGTERM; the AbortSignal's reason. */
export class Interrupted extends Error {
  constructor(readonly signal: 'SIGINT' | 'SIGTERM') {
    super(signal === 'SIGINT' ? 'interrupted (Ctrl-C)' : 'terminated (SIGTERM)');
    this.name = 'Interrupted';
  }
}

/** The conventional exit status of a run stopped by a signal: 128 + its number (130 for Ctrl-C, 143 for SIGTERM). */
export function interruptedStatus(signal: AbortSignal): number | null {
  if (!signal.aborted) return null;
  return signal.reason instanceof Interrupted && signal.reason.signal === 'SIGTERM' ? 143 : 130;
}

/** What stopped a run, in a word: Ctrl-C or SIGTERM. */
export type StoppedBy = 'interrupted' | 'terminated';

/** "interrupted" or "terminated", for the line that introduces what finished. */
export function interruptedWord(signal: AbortSignal): StoppedBy {
  return interruptedStatus(signal) === 143 ? 'terminated' : 'interrupted';
}
