// The runtimes forklab knows, one spec each in families/ (how to find it, read its version, start or build its
// driver in drivers/, and the ways of starting a child it offers). Adding a runtime is its driver, its spec file
// and its line in FAMILIES; nothing else names a family (test/runtimes-registry.test.ts).
import { bun } from './families/bun.js';
import { deno } from './families/deno.js';
import { go } from './families/go.js';
import { java } from './families/java.js';
import { node } from './families/node.js';
import { perl } from './families/perl.js';
import { python } from './families/python.js';
import { ruby } from './families/ruby.js';
import { rust } from './families/rust.js';
import type { FamilySpec, Variant as FamilyVariant } from './spec.js';

export { DRIVERS_DIR, type DriverTarget, type FamilySpec } from './spec.js';

/** In the order runtimes are listed, their variants offered and their heap kinds named. */
export const FAMILIES = [node, python, java, perl, go, ruby, rust, bun, deno] as const;

export type Family = (typeof FAMILIES)[number]['family'];
export type Variant = FamilyVariant<Family>;

export function familySpec(f: Family): FamilySpec<Family> {
  return FAMILIES.find((s) => s.family === f)!;
}

export const ALL_VARIANTS: readonly Variant[] = FAMILIES.flatMap((f): Variant[] => f.variants);

/** The driver files in drivers/, those the families share once. */
export const DRIVER_FILES: readonly string[] = [...new Set(FAMILIES.flatMap((f) => f.driverFiles))];

/** "a, b or c". */
export const orList = (xs: readonly string[]): string => (xs.length > 1 ? `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}` : (xs[0] ?? ''));

/** The families, as --runtime's help and errors name them. */
export const FAMILY_NAMES = orList(FAMILIES.map((f) => f.family));

/** The family a --runtime name stands for, from how it begins ("python3.12" → python), or null. */
export function familyOfName(name: string): Family | null {
  const n = name.toLowerCase();
  return FAMILIES.find((f) => f.namePrefixes.some((p) => n.startsWith(p)))?.family ?? null;
}
