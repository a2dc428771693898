// Which probe set runs (built here, the prebuilt one for this CPU, or FORKLAB_NATIVE_DIR's), what the machine
// record and doctor say of it, and the detection of an emulated CPU (qemu-user) from /proc/cpuinfo.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeOrigin, locateNative, probeFacts, probeRecordOf } from '../src/runner/paths.js';
import { cpuinfoFamily, detectEmulation } from '../src/env/emulation.js';
import { checkEmulation, checkProbe } from '../src/env/doctor-probe.js';
import type { DoctorFacts } from '../src/env/doctor-facts.js';
import { tempDir } from './helpers/tmp.js';

const NAMES = ['forklab-probe', 'forklab-loop', 'forklab-target-static', 'forklab-target-dynamic'];

function set(dir: string, names = NAMES, manifest?: object): string {
  mkdirSync(dir, { recursive: true });
  for (const n of names) writeFileSync(join(dir, n), '');
  if (manifest) writeFileSync(join(dir, 'BUILD.json'), JSON.stringify(manifest));
  return dir;
}

const X64 = { platform: 'linux-x64', buildId: 'linux-x64-0123456789ab', toolchain: { static: 'gcc 12, -static with glibc 2.36 (…)' } };

test('build/Release wins when all four binaries are there; else the prebuilt set of this CPU', () => {
  const root = tempDir('forklab-origin-');
  set(join(root, 'prebuilds', 'linux-x64'), NAMES, X64);
  set(join(root, 'prebuilds', 'linux-arm64'), NAMES, { ...X64, platform: 'linux-arm64', buildId: 'linux-arm64-ba9876543210' });
  set(join(root, 'build', 'Release'), NAMES.slice(0, 3)); // a half-done build: not used
  const pre = locateNative(root, {}, 'x64');
  assert.deepEqual(pre.origin, { kind: 'prebuilt', dir: join(root, 'prebuilds', 'linux-x64'), platform: 'linux-x64', buildId: X64.buildId, chosenBy: 'package' });
  assert.equal(pre.paths.probe, join(root, 'prebuilds', 'linux-x64', 'forklab-probe'));
  assert.equal(locateNative(root, {}, 'arm64').paths.targetDynamic, join(root, 'prebuilds', 'linux-arm64', 'forklab-target-dynamic'));
  assert.equal(describeOrigin(pre.origin), `prebuilt linux-x64, build id ${X64.buildId}`);
  assert.deepEqual(probeRecordOf(pre.origin), { origin: 'prebuilt', buildId: X64.buildId, dir: join(root, 'prebuilds', 'linux-x64') });
  assert.deepEqual(probeFacts(pre).libc, 'glibc 2.36');

  set(join(root, 'build', 'Release'));
  const built = locateNative(root, {}, 'x64');
  assert.deepEqual(built.origin, { kind: 'built-here', dir: join(root, 'build', 'Release') });
  assert.deepEqual(probeRecordOf(built.origin), { origin: 'built-here', buildId: null, dir: join(root, 'build', 'Release') });
});

test('no build and no prebuilt set for this CPU: build/Release paths, and doctor calls the probe missing', () => {
  const root = tempDir('forklab-origin-');
  set(join(root, 'prebuilds', 'linux-x64'), NAMES, X64);
  const r = locateNative(root, {}, 'riscv64');
  assert.equal(r.paths.probe, join(root, 'build', 'Release', 'forklab-probe'));
  const facts = probeFacts(r);
  assert.equal(facts.record, null);
  const check = checkProbe({
    files: {},
    now: { intervalMs: 0, statBefore: null, statAfter: null, pressureBefore: null, pressureAfter: null },
    uid: 0,
    arch: 'riscv64',
    probe: facts,
  });
  assert.equal(check?.status, 'warn');
  assert.match(check?.found ?? '', /no prebuilt probe for riscv64/);
  assert.match(check?.command ?? '', /npm rebuild forklab/);
});

test('FORKLAB_NATIVE_DIR: a prebuilt set keeps its build id; any other directory is named as such', () => {
  const root = tempDir('forklab-origin-');
  const pre = set(join(root, 'elsewhere'), NAMES, X64);
  const other = set(join(root, 'fake'));
  set(join(root, 'build', 'Release'));
  const a = locateNative(root, { FORKLAB_NATIVE_DIR: pre }, 'x64');
  assert.equal(a.origin.kind, 'prebuilt');
  assert.match(describeOrigin(a.origin), /build id linux-x64-0123456789ab \(chosen by FORKLAB_NATIVE_DIR\)/);
  const b = locateNative(root, { FORKLAB_NATIVE_DIR: other }, 'x64');
  assert.deepEqual(b.origin, { kind: 'native-dir', dir: other });
  assert.equal(b.paths.loop, join(other, 'forklab-loop'));
});

const facts = (arch: string, cpuinfo: string, probe?: DoctorFacts['probe']): DoctorFacts => ({
  files: { '/proc/cpuinfo': cpuinfo },
  now: { intervalMs: 0, statBefore: null, statAfter: null, pressureBefore: null, pressureAfter: null },
  uid: 0,
  arch,
  ...(probe ? { probe } : {}),
});
const X86_CPUINFO = 'processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse sse2 lm\n';
const ARM_CPUINFO = 'processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n';

test('emulation: an arm64 process reading an x86 cpuinfo (qemu-user here), or the reverse; never a native one', () => {
  assert.equal(cpuinfoFamily(X86_CPUINFO), 'x86');
  assert.equal(cpuinfoFamily(ARM_CPUINFO), 'arm');
  assert.equal(cpuinfoFamily('processor : 0\nhart : 0\nisa : rv64imafdc\n'), null);
  assert.equal(detectEmulation('x64', X86_CPUINFO), null);
  assert.equal(detectEmulation('arm64', ARM_CPUINFO), null);
  assert.equal(detectEmulation('riscv64', X86_CPUINFO), null);
  assert.equal(detectEmulation('arm64', null), null);
  assert.match(detectEmulation('arm64', X86_CPUINFO) ?? '', /^arm64 process on an x86 CPU \(\/proc\/cpuinfo\): qemu-user/);
  assert.match(detectEmulation('x64', ARM_CPUINFO) ?? '', /^x64 process on an ARM CPU/);
  const emulated = checkEmulation(facts('arm64', X86_CPUINFO));
  assert.equal(emulated.status, 'warn');
  assert.match(emulated.why, /vfork into a plain fork/);
  assert.equal(checkEmulation(facts('x64', X86_CPUINFO)).status, 'ok');
});

test("doctor's probe check: built here, or prebuilt with its build id and what differs", () => {
  const built = checkProbe(facts('x64', X86_CPUINFO, { record: { origin: 'built-here', buildId: null, dir: '/p/build/Release' }, libc: null }));
  assert.equal(built?.found, 'built here (/p/build/Release)');
  const pre = checkProbe(facts('x64', X86_CPUINFO, { record: { origin: 'prebuilt', buildId: 'linux-x64-0123456789ab', dir: '/p/prebuilds/linux-x64' }, libc: 'glibc 2.36' }));
  assert.equal(pre?.status, 'info');
  assert.match(pre?.found ?? '', /^prebuilt, build id linux-x64-0123456789ab/);
  assert.match(pre?.why ?? '', /static with glibc 2\.36: the posix_spawn, vfork and fork they time are that build's glibc.*the dynamic target runs this machine's own ld\.so/);
  assert.equal(checkProbe(facts('x64', X86_CPUINFO)), null, 'facts without the probe (recorded fixtures): no check');
});
