// When each runtime changed the way it starts a child on Linux, with where that is documented. What a run
// observes (strace) is in its mechanism column; this is what the projects say, shown beside it so that a
// reader on another version knows what to expect. Each entry was checked against its source.
import type { Family } from './registry.js';

export interface MechanismChange {
  family: Family;
  /** The first version with the change ("3.8", "13", "1.9"), or "—" where the behaviour has no version boundary. */
  since: string;
  what: string;
  source: string;
}

const MECHANISM_HISTORY: readonly MechanismChange[] = [
  {
    family: 'node',
    since: '—',
    what: "child_process forks on Linux in every libuv release up to 1.52.1 (libuv uses posix_spawn on Apple platforms); libuv's Linux posix_spawn path was merged on its v1.x branch on 2026-03-25 and is in no release yet",
    source: 'libuv/libuv#3064, libuv/libuv#3520',
  },
  {
    family: 'node',
    since: '20 (18.x)',
    what: "V8's heap pages are MADV_DONTFORK, so a heap of objects costs fork less than one of Buffers",
    source: 'nodejs/node#48523, nodejs/node#50098',
  },
  { family: 'bun', since: '—', what: 'posix_spawn_bun() calls vfork() on Linux (fork on macOS)', source: 'oven-sh/bun src/bun.js/bindings/bun-spawn.cpp (oven-sh/bun#25415)' },
  {
    family: 'deno',
    since: '—',
    what: "subprocesses go through Rust's std::process::Command, which uses glibc's posix_spawn (clone CLONE_VM|CLONE_VFORK)",
    source: 'rust-lang/rust#48624 (observed here)',
  },
  {
    family: 'python',
    since: '3.8',
    what: 'subprocess uses posix_spawn when close_fds=False and no preexec_fn, pass_fds, cwd or start_new_session (glibc ≥ 2.24)',
    source: "What's New in Python 3.8; python/cpython#79718 (bpo-35537)",
  },
  {
    family: 'python',
    since: '3.10',
    what: '_posixsubprocess uses vfork() instead of fork() when it is safe (no preexec_fn, no uid/gid/groups change)',
    source: 'python/cpython#80004 (bpo-35823)',
  },
  {
    family: 'python',
    since: '3.13',
    what: 'posix_spawn also with close_fds=True (glibc ≥ 2.34, posix_spawn_file_actions_addclosefrom_np): plain subprocess.run',
    source: 'python/cpython#113117',
  },
  {
    family: 'java',
    since: '13',
    what: 'default launch mechanism on Linux becomes POSIX_SPAWN: posix_spawn of jspawnhelper, which execs the target (VFORK before)',
    source: 'JDK-8213192; JDK-8357180 recounts it',
  },
  { family: 'java', since: '25', what: '-Djdk.lang.Process.launchMechanism=VFORK is deprecated (a warning), removal planned for 26', source: 'JDK-8357179, JDK-8357089' },
  {
    family: 'go',
    since: '1.9',
    what: 'syscall.forkExec clones with CLONE_VFORK|CLONE_VM on linux/amd64 (other architectures followed)',
    source: 'golang/go#5838, golang/go#20732',
  },
  {
    family: 'ruby',
    since: '2.2',
    what: 'Process.spawn and system use vfork(), except in a privileged process (root, set-uid), which forks',
    source: 'ruby/ruby process.c retry_fork_async_signal_safe(); Perl/perl5#15355',
  },
  { family: 'perl', since: '—', what: 'system forks, then execs in the child', source: 'perlfunc, system; Perl/perl5#15355 (vfork proposed, open)' },
  {
    family: 'rust',
    since: '—',
    what: 'std::process::Command uses posix_spawn on glibc Linux when nothing needs code in the child (no pre_exec, uid, gid, ...), since 2018',
    source: 'rust-lang/rust#48624; rust-lang/rust#87764 (fork on glibc < 2.24)',
  },
];

export function historyOf(families: ReadonlySet<string>): MechanismChange[] {
  return MECHANISM_HISTORY.filter((h) => families.has(h.family));
}
