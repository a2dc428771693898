// A small reader of 64-bit little-endian ELF files (x86-64, aarch64): what a prebuilt binary needs from the
// machine it runs on, and what it offers it, without objdump or readelf. Reads the program headers (PT_INTERP,
// PT_DYNAMIC, PT_TLS), the dynamic section (DT_NEEDED, DT_FLAGS, DT_FLAGS_1) and the dynamic symbols with their GNU
// version requirements (.gnu.version and .gnu.version_r), as `objdump -T`, `objdump -p`, `readelf -l` and
// `nm -D --defined-only` print them.
import { readFileSync } from 'node:fs';

const PT_DYNAMIC = 2;
const PT_INTERP = 3;
const PT_TLS = 7;
const STB_LOCAL = 0;
const STB_WEAK = 2;
const SHT_DYNSYM = 11;
const SHT_GNU_VERSYM = 0x6fffffff;
const SHT_GNU_VERNEED = 0x6ffffffe;
const DT_NEEDED = 1;
const DT_STRTAB = 5;
const DT_FLAGS = 30;
const DT_FLAGS_1 = 0x6ffffffb;
const DF_BIND_NOW = 0x8;
const DF_1_NOW = 0x1;
const MACHINES = { 62: 'x86-64', 183: 'aarch64' };

function cString(buf, off) {
  let end = off;
  while (end < buf.length && buf[end] !== 0) end++;
  return buf.toString('latin1', off, end);
}

/** The file offset of a virtual address, through the PT_LOAD segments. */
function offsetOf(phdrs, vaddr) {
  for (const p of phdrs) if (p.type === 1 && vaddr >= p.vaddr && vaddr < p.vaddr + p.filesz) return p.offset + (vaddr - p.vaddr);
  return null;
}

/**
 * Parses an ELF file (a path or its bytes):
 * { machine, type: 'exec' | 'dyn', interpreter, needed[], bindNow, tlsBytes, symbols: [{ name, undefined, weak, local,
 *   version, library }] }
 * version is e.g. 'GLIBC_2.17' for a symbol bound to a versioned definition, null for an unversioned one; tlsBytes
 * is the size of the PT_TLS segment (thread-local variables of the file's own), null without one.
 */
export function readElf(input) {
  const buf = typeof input === 'string' ? readFileSync(input) : input;
  if (buf.length < 64 || buf.readUInt32BE(0) !== 0x7f454c46) throw new Error('not an ELF file');
  if (buf[4] !== 2 || buf[5] !== 1) throw new Error('not a 64-bit little-endian ELF file');
  const eType = buf.readUInt16LE(16);
  const machine = MACHINES[buf.readUInt16LE(18)] ?? `machine ${buf.readUInt16LE(18)}`;
  const phoff = Number(buf.readBigUInt64LE(32));
  const shoff = Number(buf.readBigUInt64LE(40));
  const phentsize = buf.readUInt16LE(54);
  const phnum = buf.readUInt16LE(56);
  const shentsize = buf.readUInt16LE(58);
  const shnum = buf.readUInt16LE(60);
  const phdrs = [];
  for (let i = 0; i < phnum; i++) {
    const o = phoff + i * phentsize;
    phdrs.push({
      type: buf.readUInt32LE(o),
      offset: Number(buf.readBigUInt64LE(o + 8)),
      vaddr: Number(buf.readBigUInt64LE(o + 16)),
      filesz: Number(buf.readBigUInt64LE(o + 32)),
      memsz: Number(buf.readBigUInt64LE(o + 40)),
    });
  }
  const interpHdr = phdrs.find((p) => p.type === PT_INTERP);
  const interpreter = interpHdr ? cString(buf, interpHdr.offset) : null;
  const tlsHdr = phdrs.find((p) => p.type === PT_TLS);
  const tlsBytes = tlsHdr ? tlsHdr.memsz : null;

  const needed = [];
  let bindNow = false;
  const dynHdr = phdrs.find((p) => p.type === PT_DYNAMIC);
  if (dynHdr) {
    const entries = [];
    for (let o = dynHdr.offset; o + 16 <= dynHdr.offset + dynHdr.filesz; o += 16) {
      const tag = Number(buf.readBigInt64LE(o));
      if (tag === 0) break;
      entries.push([tag, Number(buf.readBigUInt64LE(o + 8))]);
    }
    const strtab = entries.find(([t]) => t === DT_STRTAB);
    const strOff = strtab ? offsetOf(phdrs, strtab[1]) : null;
    for (const [tag, val] of entries) {
      if (tag === DT_NEEDED && strOff !== null) needed.push(cString(buf, strOff + val));
      if (tag === DT_FLAGS && val & DF_BIND_NOW) bindNow = true;
      if (tag === DT_FLAGS_1 && val & DF_1_NOW) bindNow = true;
    }
  }

  const sections = [];
  for (let i = 0; i < shnum && shoff > 0; i++) {
    const o = shoff + i * shentsize;
    sections.push({
      type: buf.readUInt32LE(o + 4),
      offset: Number(buf.readBigUInt64LE(o + 24)),
      size: Number(buf.readBigUInt64LE(o + 32)),
      link: buf.readUInt32LE(o + 40),
      info: buf.readUInt32LE(o + 44),
      entsize: Number(buf.readBigUInt64LE(o + 56)),
    });
  }
  const symbols = [];
  const dynsym = sections.find((s) => s.type === SHT_DYNSYM);
  if (dynsym) {
    const strOff = sections[dynsym.link].offset;
    // Version index → [version name, library] from .gnu.version_r (the versions this file requires).
    const required = new Map();
    const verneed = sections.find((s) => s.type === SHT_GNU_VERNEED);
    if (verneed) {
      const vStr = sections[verneed.link].offset;
      let o = verneed.offset;
      for (let n = 0; n < verneed.info; n++) {
        const cnt = buf.readUInt16LE(o + 2);
        const file = cString(buf, vStr + buf.readUInt32LE(o + 4));
        let a = o + buf.readUInt32LE(o + 8);
        for (let k = 0; k < cnt; k++) {
          required.set(buf.readUInt16LE(a + 6) & 0x7fff, [cString(buf, vStr + buf.readUInt32LE(a + 8)), file]);
          a += buf.readUInt32LE(a + 12);
        }
        const next = buf.readUInt32LE(o + 12);
        if (next === 0) break;
        o += next;
      }
    }
    const versym = sections.find((s) => s.type === SHT_GNU_VERSYM);
    const count = dynsym.size / (dynsym.entsize || 24);
    for (let i = 1; i < count; i++) {
      const o = dynsym.offset + i * 24;
      const name = cString(buf, strOff + buf.readUInt32LE(o));
      const info = buf[o + 4];
      const shndx = buf.readUInt16LE(o + 6);
      const idx = versym ? buf.readUInt16LE(versym.offset + i * 2) & 0x7fff : 0;
      const req = required.get(idx);
      const bind = info >> 4;
      symbols.push({ name, undefined: shndx === 0, weak: bind === STB_WEAK, local: bind === STB_LOCAL, version: req ? req[0] : null, library: req ? req[1] : null });
    }
  }
  return { machine, type: eType === 2 ? 'exec' : eType === 3 ? 'dyn' : `type ${eType}`, interpreter, needed, bindNow, tlsBytes, symbols };
}

/** Compares dotted versions ('2.17' < '2.2.5'? no: 2.2.5 < 2.17). */
export function compareVersions(a, b) {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * What a binary needs of the C library where it runs, and what it exports:
 * { linkage: 'static' | 'dynamic', glibcFloor: highest GLIBC_x.y required (null: none), unversioned: names of
 *   undefined, non-weak symbols bound to no version (in an addon, Node's own napi_ and uv_ functions are expected),
 *   binds: names of all undefined symbols, exported: names of the symbols it defines for others (what
 *   `nm -D --defined-only` lists), tlsBytes: its PT_TLS segment's size, null without one }
 */
export function glibcNeeds(input) {
  const elf = readElf(input);
  const isStatic = elf.interpreter === null && elf.needed.length === 0;
  let floor = null;
  for (const s of elf.symbols) {
    const m = s.undefined && s.version ? /^GLIBC_([0-9.]+)$/.exec(s.version) : null;
    if (m && (floor === null || compareVersions(m[1], floor) > 0)) floor = m[1];
  }
  const unversioned = elf.symbols.filter((s) => s.undefined && !s.weak && s.version === null).map((s) => s.name);
  const binds = elf.symbols.filter((s) => s.undefined && s.name !== '').map((s) => s.name);
  const exported = elf.symbols.filter((s) => !s.undefined && !s.local && s.name !== '').map((s) => s.name);
  return {
    machine: elf.machine,
    linkage: isStatic ? 'static' : 'dynamic',
    interpreter: elf.interpreter,
    needed: elf.needed,
    bindNow: elf.bindNow,
    glibcFloor: floor,
    unversioned,
    binds,
    exported,
    tlsBytes: elf.tlsBytes,
  };
}

/** What an N-API addon must export: its registration (node_api.h's NAPI_MODULE_INIT). Nothing else. */
export const NAPI_EXPORTS = ['napi_register_module_v1', 'node_api_module_get_api_version_v1'];

/**
 * C library functions an addon binds from the C library, never from a copy linked into it: Zig's compiler_rt (one
 * object, pulled in whole when any of its helpers is needed, e.g. an outlined atomic on aarch64) defines weak
 * memcpy and memset that then take glibc's place, even where the linker keeps them from being exported.
 */
export const ADDON_LIBC_BINDS = ['memcpy', 'memset'];

/**
 * What is wrong with an addon's exports and thread-local storage, as sentences ([] when nothing): any exported name
 * besides N-API's registration (a C library function such as stat or __fstatat64, an errno, or a name of its own
 * that could interpose on another library's), and a PT_TLS segment (a thread-local variable of its own: Zig 0.11
 * put a private errno there). Also, when it binds any C library function at all, that it binds __errno_location
 * (errno must be the C library's) and ADDON_LIBC_BINDS (no copy of them of its own).
 */
export function addonExportProblems(needs) {
  const problems = [];
  const extra = needs.exported.filter((n) => !NAPI_EXPORTS.includes(n)).sort();
  if (extra.length > 0) problems.push(`exports ${extra.join(', ')} (an addon exports only ${NAPI_EXPORTS.join(' and ')})`);
  if (needs.tlsBytes !== null) problems.push(`has a PT_TLS segment of ${needs.tlsBytes} bytes (thread-local storage of its own, e.g. a private errno)`);
  const libc = needs.binds.filter((n) => !/^(napi_|node_api_|uv_)/.test(n));
  if (libc.length > 0 && !needs.binds.includes('__errno_location')) problems.push("does not bind __errno_location (its errno is not the C library's)");
  const own = ADDON_LIBC_BINDS.filter((n) => !needs.binds.includes(n));
  if (libc.length > 0 && own.length > 0)
    problems.push(
      `does not bind ${own.join(' and ')} from the C library (a copy of its own is linked in, such as the compiler runtime's: Zig's compiler_rt comes with an aarch64 atomic read-modify-write compiled outside FL_INLINE_ATOMICS, native/compat.h)`,
    );
  return problems;
}
