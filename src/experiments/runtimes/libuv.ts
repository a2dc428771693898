// Which way a Node's child_process starts a child on Linux is libuv's choice, so a Node's libuv version
// (process.versions.uv, which the Node driver reports) says whether it forks. Every libuv release up to 1.52.1
// forks; the Linux posix_spawn path (libuv/libuv#3520) was merged on libuv's v1.x branch on 2026-03-25, after
// 1.52.1, and is in no release yet. A later release may have it: then only the mechanism observed says.
import { compareVersions } from './discover.js';

/** The newest libuv release checked to fork on Linux (the v1.x merge of libuv/libuv#3520 came after it). */
const LAST_FORKING_LIBUV = '1.52.1';
const LIBUV_POSIX_SPAWN_PR = 'libuv/libuv#3520';

export type LibuvSpawn =
  /** A release up to LAST_FORKING_LIBUV: fork + exec on Linux. */
  | { state: 'forks'; version: string }
  /** Newer than every release checked: it may start children with posix_spawn (libuv/libuv#3520). */
  | { state: 'may-posix-spawn'; version: string }
  /** Not a Node, or a driver that did not report its libuv. */
  | { state: 'unknown' };

export function libuvSpawn(version: string | null | undefined): LibuvSpawn {
  if (!version || !/^\d+\.\d+\.\d+/.test(version)) return { state: 'unknown' };
  return compareVersions(version, LAST_FORKING_LIBUV) <= 0 ? { state: 'forks', version } : { state: 'may-posix-spawn', version };
}

/** "libuv 1.46.0" beside a Node's mechanism, with a mark when that libuv is newer than every forking release. */
export function libuvLabel(version: string | null | undefined): string {
  const l = libuvSpawn(version);
  if (l.state === 'unknown') return '';
  return l.state === 'forks' ? `libuv ${l.version}` : `libuv ${l.version} (newer than ${LAST_FORKING_LIBUV}: may have ${LIBUV_POSIX_SPAWN_PR})`;
}

/** What the libuv versions of a run mean, for the note under the answer; null when no Node reported one. */
export function libuvNote(versions: readonly (string | null)[]): string | null {
  const known = [...new Set(versions.filter((v): v is string => libuvSpawn(v).state !== 'unknown'))].sort(compareVersions);
  if (known.length === 0) return null;
  const newer = known.filter((v) => libuvSpawn(v).state === 'may-posix-spawn');
  const base =
    `libuv: Node's child_process starts children the way its libuv does (libuv ${known.join(', ')} here). ` +
    `Every libuv release up to ${LAST_FORKING_LIBUV} forks on Linux; its posix_spawn path (${LIBUV_POSIX_SPAWN_PR}) was merged on ` +
    'the v1.x branch on 2026-03-25 and is in no release yet. A Node whose libuv has it makes child_process flat by itself.';
  return newer.length ? `${base} libuv ${newer.join(', ')} is newer than every release checked: its mechanism column is what it did.` : base;
}
