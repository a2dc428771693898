#!/usr/bin/env node
// Runs first at install time: checks that what building the C probe (and, on Node 20, better-sqlite3) needs is
// on this machine, and stops at once with one line naming what is missing and how to get it, instead of
// letting node-gyp fail at the bottom of its output.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const has = (cmd) => spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0;
const cc = process.env.CC || 'cc';
const missing = [];
if (!has(cc) && !has('gcc')) missing.push(['a C compiler (gcc)', 'gcc']);
if (!has('make')) missing.push(['make', 'make']);
const python = process.env.PYTHON || 'python3';
if (!has(python)) missing.push(['python3 (node-gyp runs it)', 'python3']);
// The static `return 0` target (forklab exec) links against static glibc.
const staticLibc = ['/usr/lib/x86_64-linux-gnu/libc.a', '/usr/lib/aarch64-linux-gnu/libc.a', '/usr/lib64/libc.a', '/usr/lib/libc.a'];
if (!staticLibc.some((f) => existsSync(f))) missing.push(['static glibc (libc.a)', 'libc6-dev']);
if (missing.length > 0) {
  const what = missing.map((m) => m[0]).join(', ');
  const pkgs = missing.map((m) => m[1]).join(' ');
  console.error(
    `forklab: cannot build the C probe: ${what} not found; install with \`sudo apt-get install ${pkgs}\` (Debian/Ubuntu; Fedora: gcc make python3 glibc-static), then run npm ci again`,
  );
  process.exit(1);
}
