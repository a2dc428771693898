// `forklab fleet run`: what a pod, a Slurm task or an ssh session runs. It runs a reproduction in this process
// (nothing stored; the caller's `reproduce`), then prints every run document as framed lines on stdout and one
// status line, which it also writes where Kubernetes reads a termination message.

import { randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { RunDocument } from '../document/run.js';
import { encodeDocument, statusLine, type FleetStatus } from './frame.js';

export interface FleetRunOptions {
  /** The reproduction (unstored): its exit status and the run documents it measured (none when it could not start). */
  reproduce(): Promise<{ status: number; docs: RunDocument[] }>;
  /** Where the one-line status goes besides stdout (Kubernetes: /dev/termination-log); null: nowhere. */
  terminationLog: string | null;
  node: string | null;
  write: (text: string) => void;
}

/** The termination-message file when there is one: $FORKLAB_TERMINATION_LOG, else /dev/termination-log if present. */
export function terminationLogPath(env: NodeJS.ProcessEnv): string | null {
  if (env.FORKLAB_TERMINATION_LOG) return env.FORKLAB_TERMINATION_LOG;
  return existsSync('/dev/termination-log') ? '/dev/termination-log' : null;
}

/** The node's name: the downward API's NODE_NAME, Slurm's SLURMD_NODENAME, else the host name. */
export const nodeName = (env: NodeJS.ProcessEnv): string => env.NODE_NAME || env.SLURMD_NODENAME || hostname();

export async function fleetRun(o: FleetRunOptions): Promise<number> {
  const { status: code, docs: runs } = await o.reproduce();
  let printed = 0;
  for (const run of runs) {
    // Not stored, so no uuid yet: give each run its identity here, so collect and the history agree on it.
    run.runId ??= randomUUID();
    printed++;
    o.write(`${encodeDocument(JSON.stringify(run), printed, { runId: run.runId, node: o.node }).join('\n')}\n`);
  }
  const failed = runs.length === 0;
  const status: FleetStatus = {
    state: failed ? 'failed' : 'ok',
    documents: printed,
    node: o.node,
    exitCode: code,
    ...(failed ? { message: `forklab reproduce exited ${code} without run documents` } : code !== 0 ? { message: `forklab reproduce exited ${code}` } : {}),
  };
  const line = statusLine(status);
  o.write(`${line}\n`);
  if (o.terminationLog !== null) {
    try {
      writeFileSync(o.terminationLog, line);
    } catch {
      // A missing or read-only termination log loses only the copy; the status is on stdout.
    }
  }
  return status.state === 'ok' ? status.exitCode : 1;
}
