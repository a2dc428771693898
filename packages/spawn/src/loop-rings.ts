// How many io_uring rings Node's libuv sets up with each new loop, as Node's spawnSync makes one per call: each
// ring is a descriptor, so near the descriptor limit child_process's spawnSync fails with EMFILE one or two
// descriptors sooner than it would without. The addon holds as many (native/sync_binding.c), so that a call
// fails where child_process's fails and nowhere else (test/nofile.test.ts).
//
// libuv 1.49 and later set up one ring (for batching epoll_ctl) with every loop wherever the kernel lets them
// (Node 22 and later); 1.45-1.48 set up two (that one and an SQPOLL ring), which Node 20 ships patched to do only
// when UV_USE_IO_URING asks. Whether the kernel lets them (io_uring can be off by sysctl, or refused by a
// seccomp filter, as in many containers) is read from this process: Node's own loop, made at its start, holds
// a ring among its first descriptors if and only if libuv could set one up.

import { readlinkSync } from 'node:fs';

const FIRST_FDS = 64;

let rings: number | undefined;

function ownLoopHasRing(): boolean {
  for (let fd = 0; fd < FIRST_FDS; fd++) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === 'anon_inode:[io_uring]') return true;
    } catch {
      // not open, /proc not there, or not readable under the permission model: no ring seen
    }
  }
  return false;
}

function uvAtLeast(major: number, minor: number): boolean {
  const [a = 0, b = 0] = (process.versions.uv ?? '0.0').split('.').map(Number);
  return a > major || (a === major && b >= minor);
}

/** The descriptors beyond its four that each loop of Node's libuv holds from its start: 0, 1 or 2. */
export function loopRings(): number {
  if (rings === undefined) rings = !uvAtLeast(1, 45) || !ownLoopHasRing() ? 0 : uvAtLeast(1, 49) ? 1 : 2;
  return rings;
}
