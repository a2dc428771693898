// The version probes the family specs share: a version printed by the runtime itself, or the version and the
// unavailable cases a driver prints when run without a case (Node, Bun, Deno).
import { realpathSync } from 'node:fs';
import { parseLine } from '../../runner/protocol.js';
import type { Probe, ProbeRun } from './spec.js';

/** The path with symlinks resolved (a pyenv shim, /usr/bin/java → the JDK's), or the path itself when it cannot be. */
export function realPath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * Runs `exe args` and reads the version from the first group of `re` in its output. `keepPath`: the executable is
 * kept as given (rustup's rustc is a link to rustup itself, which picks the toolchain by the name it was called by).
 */
export async function versionFrom(exe: string, run: ProbeRun, args: string[], re: RegExp, keepPath = false): Promise<Probe> {
  const r = await run(exe, args);
  if (r.state === 'failed') return { why: r.why };
  const m = re.exec(r.stdout + r.stderr);
  return m ? { path: keepPath ? exe : realPath(exe), version: m[1]!, unavailable: {} } : { why: 'printed no version' };
}

/** Runs a driver without a case: it prints which cases this runtime can run, and the runtime's version. */
export async function listedByDriver(exe: string, command: string[], run: ProbeRun): Promise<Probe> {
  const [file, ...args] = command;
  const r = await run(file!, args);
  if (r.state === 'failed') return { why: r.why };
  let version = '';
  const unavailable: Record<string, string> = {};
  for (const line of r.stdout.split('\n')) {
    const p = parseLine(line);
    if (!p.ok || p.message.type !== 'info') continue;
    for (const [k, x] of Object.entries(p.message.fields)) {
      if (k === 'runtimeVersion') version = String(x);
      else if (k.startsWith('absent.')) unavailable[k.slice('absent.'.length)] = String(x);
    }
  }
  return version ? { path: realPath(exe), version, unavailable } : { why: 'its driver printed no version' };
}
