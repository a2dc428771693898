// `forklab fleet run`: what a pod, a Slurm task or an ssh session runs. It runs `forklab reproduce` (the same CLI,
// a child process, nothing stored), then prints every run document as framed lines on stdout and one status line,
// which it also writes where Kubernetes reads a termination message.

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunDocument } from '../document/run.js';
import { encodeDocument, statusLine, type FleetStatus } from './frame.js';

export interface FleetRunOptions {
  preset: 'quick' | 'full';
  only: string | undefined;
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

function runReproduce(args: string[]): Promise<number> {
  return new Promise((resolve) => {
    // The same forklab, the same Node flags (tsx under test): the reproduce summary goes to stderr.
    const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, 'reproduce', ...args], { stdio: ['ignore', 2, 2] });
    const forward = (sig: NodeJS.Signals) => child.kill(sig);
    process.on('SIGTERM', forward);
    process.on('SIGINT', forward);
    child.on('close', (code, signal) => {
      process.off('SIGTERM', forward);
      process.off('SIGINT', forward);
      resolve(code ?? (signal === 'SIGINT' ? 130 : 143));
    });
    child.on('error', () => resolve(127));
  });
}

export async function fleetRun(o: FleetRunOptions): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'forklab-fleet-'));
  let status: FleetStatus;
  let printed = 0;
  try {
    const json = join(dir, 'reproduction.json');
    const args = ['--no-store', '--no-color', '--json', json, ...(o.preset === 'quick' ? ['--quick'] : []), ...(o.only ? ['--only', o.only] : [])];
    const code = await runReproduce(args);
    let runs: RunDocument[] = [];
    try {
      const doc = JSON.parse(readFileSync(json, 'utf8')) as { runs?: unknown[] };
      runs = (doc.runs ?? []).filter((r): r is RunDocument => typeof r === 'object' && r !== null);
    } catch {
      // No document: reproduce failed before writing; the status says so.
    }
    for (const run of runs) {
      // Not stored, so no uuid yet: give each run its identity here, so collect and the history agree on it.
      run.runId ??= randomUUID();
      printed++;
      o.write(`${encodeDocument(JSON.stringify(run), printed, { runId: run.runId, node: o.node }).join('\n')}\n`);
    }
    const failed = runs.length === 0;
    status = {
      state: failed ? 'failed' : 'ok',
      documents: printed,
      node: o.node,
      exitCode: code,
      ...(failed ? { message: `forklab reproduce exited ${code} without run documents` } : code !== 0 ? { message: `forklab reproduce exited ${code}` } : {}),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
