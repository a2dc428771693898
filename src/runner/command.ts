// Runs a helper executable (not the probe protocol) in its own process group, with a timeout and
// cancellation; its group is killed whatever happens.
import { spawn } from 'node:child_process';
import { forgetGroup, installExitCleanup, killGroup, registerGroup } from './processes.js';

export type CommandResult = { state: 'ok'; stdout: string; stderr: string } | { state: 'failed'; why: string; stdout: string; stderr: string };

export function runCommand(
  file: string,
  args: string[],
  opts: { timeoutMs: number; signal?: AbortSignal; env?: NodeJS.ProcessEnv /** Written to its stdin, then closed; unset: no stdin. */; input?: string },
): Promise<CommandResult> {
  installExitCleanup();
  return new Promise((resolve) => {
    const stdin: 'ignore' | 'pipe' = opts.input === undefined ? 'ignore' : 'pipe';
    const child = spawn(file, args, { stdio: [stdin, 'pipe', 'pipe'] as ['ignore' | 'pipe', 'pipe', 'pipe'], detached: true, env: opts.env ?? process.env });
    if (child.stdin) {
      child.stdin.on('error', () => {
        /* EPIPE: it exited without reading; its exit status tells */
      });
      child.stdin.end(opts.input);
    }
    const pgid = child.pid ?? 0;
    if (pgid) registerGroup(pgid);
    let stdout = '';
    let stderr = '';
    let why: string | null = null;
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr!.on('data', (d: Buffer) => {
      if (stderr.length < 65536) stderr += d.toString('utf8');
    });
    const stop = (reason: string) => {
      why ??= reason;
      if (pgid) killGroup(pgid);
    };
    const timer = setTimeout(() => stop(`timed out after ${opts.timeoutMs} ms`), opts.timeoutMs);
    const onAbort = () => stop('cancelled');
    if (opts.signal?.aborted) onAbort();
    opts.signal?.addEventListener('abort', onAbort);
    const done = (code: number | null, sig: NodeJS.Signals | null, err?: Error) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (pgid) {
        killGroup(pgid);
        forgetGroup(pgid);
      }
      if (err) why ??= err.message;
      else if (sig) why ??= `killed by ${sig}`;
      else if (code !== 0) why ??= `exited with status ${code}${stderr ? `: ${stderr.trim().split('\n').pop()}` : ''}`;
      resolve(why ? { state: 'failed', why, stdout, stderr } : { state: 'ok', stdout, stderr });
    };
    child.on('error', (e) => done(null, null, e));
    child.on('close', (code, sig) => done(code, sig));
  });
}
