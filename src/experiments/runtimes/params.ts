// The options of `forklab runtimes`, parsed before any work: every problem names its flag.
import { isExecutable } from './locations.js';
import { FETCH_FORMS, parseFetchSpecs } from './fetch.js';
import { ALL_VARIANTS, FAMILIES, FAMILY_NAMES, familyOfName, type Family } from './registry.js';
import { node } from './families/node.js';
import { parseInteger, parseIntegerList, str } from '../../text/parse.js';
import { countOptions, parseCounts, type CountSpecs } from '../shared/counts.js';
import type { OptionSpec, Presets } from '../contract/types.js';
import { UsageError } from '../../errors.js';

export interface RuntimesParams {
  heapMb: number[];
  /** Runtime names (python3.13) or families (java) to run; null: every runtime selected by discovery. */
  only: string[] | null;
  /** Variant ids (node/spawn) or case names (spawnSync) to run; null: all. */
  variants: string[] | null;
  /** Heap kinds to build (buffers, objects, ...); null: every kind of each runtime. */
  heapKinds: string[] | null;
  /** --runtime NAME=PATH: added to what is found, or replacing the runtime of that name. */
  extra: { name: string; family: Family; path: string }[];
  /** --node 20,22: the Node release lines (majors) to run; null: every line found. */
  nodeLines: number[] | null;
  /** --fetch node@24,bun,deno: runtimes to install from the npm registry into forklab's cache first (checked labels). */
  fetch: string[];
  /** --offline: never reach the network (refuses --fetch). */
  offline: boolean;
  iterations: number;
  warmup: number;
  repeats: number;
  /** Fraction (0.05 = ±5 %); 0 runs every iteration. */
  ciTarget: number;
  budgetMs: number;
  strace: boolean;
  quick: boolean;
}

// One fresh process per configuration keeps the default run with every runtime under three minutes (a JVM
// compiling the driver at each start is most of it); --repeats 3 makes the intervals carry the spread between processes.
const DEFAULTS = { heapMb: '0,256,1024', iterations: '200', warmup: '3', repeats: '1', ciTarget: '5', budgetMs: '300' };
/** --quick: two heap sizes, one heap kind per runtime, one process each, a shorter budget. */
const QUICK = { heapMb: '0,256', iterations: '100', warmup: '2', repeats: '1', ciTarget: '5', budgetMs: '150' };

/**
 * What `forklab reproduce` runs for Node PR #48523's claim that spawn costs more from a larger heap: the Node running
 * forklab, child_process.spawn alone, a heap of Buffers (memory V8's MADV_DONTFORK does not cover), at no heap and
 * at the command's largest; only those runtimes' families are looked for.
 */
const FOR_NODE_CLAIM = {
  runtimes: node.family,
  node: 'current',
  variants: node.variants.find((v) => v.caseName === 'spawn')!.id,
  heapKinds: node.heapKinds[0]!,
};

/** Its presets are the command's default and --quick (every runtime found); reproduce runs the narrow run above. */
export const RUNTIMES_PRESETS: Presets = {
  full: { ...DEFAULTS },
  quick: { ...QUICK },
  note: "no article: every runtime found, each of its ways of starting a child, article 000's claim per variant; reproduce (not --quick) runs only the Node running forklab, its child_process.spawn from a heap of Buffers at 0 and 1024 MB, for Node PR #48523's claim",
  reproduce: {
    full: { ...FOR_NODE_CLAIM, heapMb: '0,1024', iterations: DEFAULTS.iterations, warmup: DEFAULTS.warmup, repeats: '2', ciTarget: DEFAULTS.ciTarget, budgetMs: DEFAULTS.budgetMs },
    // Measured on 2026-12-07 on a busy machine (load 20 to 30 on 2 CPUs): 20 s of wall time and 3 to 4 s of CPU beyond
    // forklab's own start, for 0 and 256 MB with one driver each; a quick reproduction gives it at most 3 s.
    quick:
      'not run by reproduce --quick: its narrowest run (one Node’s spawn at 0 and 256 MB) took 3 to 4 s of CPU, measured on a busy machine, at or over the 3 s a quick reproduction gives it; reproduce without --quick runs it, and forklab judge on a runtimes run judges these claims',
  },
};

/** Their defaults are --quick's or not, so --help states the full run's in the text. */
const COUNTS: CountSpecs = {
  iterations: { description: `most timed spawns per driver process (default ${DEFAULTS.iterations})`, max: 100_000 },
  warmup: { description: `warm-up spawns per driver process, not recorded (default ${DEFAULTS.warmup})`, max: 10_000 },
  repeats: { description: `fresh driver processes per configuration, interleaved (default ${DEFAULTS.repeats})`, max: 100 },
};

export const RUNTIMES_OPTIONS: OptionSpec[] = [
  { flags: '--heap-mb <list>', description: `the parent's heap in MB (MiB), comma-separated (default ${DEFAULTS.heapMb}; --quick ${QUICK.heapMb})` },
  {
    flags: '--runtime <NAME=PATH,...>',
    description: `add a runtime, or replace the one of that name: NAME begins with ${FAMILY_NAMES} (e.g. node24=/opt/node24/bin/node)`,
  },
  {
    flags: '--node <lines>',
    param: 'nodeLines',
    description: 'run these Node release lines (majors), comma-separated, e.g. 20,22,24,26, or current: the line of the Node running forklab (default: every line found)',
  },
  {
    flags: '--fetch <list>',
    description: `first install these from the npm registry (npm pack) into forklab's cache, $XDG_CACHE_HOME/forklab/runtimes: ${FETCH_FORMS} (printed as it happens)`,
  },
  { flags: '--offline', description: 'never reach the network: --fetch is refused, and a missing runtime is only named' },
  { flags: '--runtimes <list>', description: 'run only these runtimes: names as listed (python3.13, java25) or families (node, python, java, perl)', param: 'only' },
  { flags: '--variants <list>', description: `run only these variants: ${ALL_VARIANTS.map((v) => v.id).join(', ')} (or the part after the slash)` },
  { flags: '--heap-kinds <list>', description: `build only these heap kinds: ${[...new Set(FAMILIES.flatMap((f) => f.heapKinds))].join(', ')}` },
  ...countOptions(COUNTS),
  {
    flags: '--ci-target <percent>',
    description: `stop a driver once its median's 95 % interval is within ±percent; 0 runs every iteration (default ${DEFAULTS.ciTarget})`,
    unit: '%',
  },
  { flags: '--budget-ms <ms>', description: `time per driver process for timed spawns, after its heap is built (at least 15 spawns run); 0 = none (default ${DEFAULTS.budgetMs})` },
  { flags: '--no-strace', description: 'do not trace one spawn per variant to observe its system call' },
];

/** The release line of the Node running forklab: what `--node current` names. */
const CURRENT_LINE = process.versions.node.split('.')[0]!;

function parseNodeLines(raw: string | boolean | undefined): number[] | null {
  if (typeof raw !== 'string') return null;
  const lines = parseIntegerList('--node', raw.replace(/\bnode@?/g, '').replace(/\bcurrent\b/g, CURRENT_LINE), 0, 1000);
  if (lines.length === 0) throw new UsageError('--node', 'expected release lines such as 20,22,24,26, or current');
  return [...new Set(lines)].sort((a, b) => a - b);
}

function list(raw: Record<string, string | boolean | undefined>, key: string): string[] | null {
  const v = raw[key];
  if (typeof v !== 'string') return null;
  const parts = v
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
  return parts.length ? parts : null;
}

function parseExtra(raw: string | undefined): RuntimesParams['extra'] {
  if (raw === undefined) return [];
  const out: RuntimesParams['extra'] = [];
  for (const part of raw
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x)) {
    const eq = part.indexOf('=');
    if (eq <= 0 || eq === part.length - 1) throw new UsageError('--runtime', `expected NAME=PATH, got ${JSON.stringify(part)}`);
    const name = part.slice(0, eq);
    const path = part.slice(eq + 1);
    if (!/^[A-Za-z][A-Za-z0-9._-]*$/.test(name)) throw new UsageError('--runtime', `${JSON.stringify(name)} is not a name (letters, digits, . _ -)`);
    const family = familyOfName(name);
    if (!family) throw new UsageError('--runtime', `cannot tell which runtime ${JSON.stringify(name)} is: begin its name with ${FAMILY_NAMES}`);
    if (!isExecutable(path)) throw new UsageError('--runtime', `${name}: ${path} is not an executable file`);
    if (out.some((x) => x.name === name)) throw new UsageError('--runtime', `${name} is given twice`);
    out.push({ name, family, path });
  }
  return out;
}

export function parseRuntimes(raw: Record<string, string | boolean | undefined>): RuntimesParams {
  const quick = raw.quick === true;
  const d = quick ? QUICK : DEFAULTS;
  const ciPercent = Number(str(raw, 'ciTarget', d.ciTarget));
  if (!Number.isFinite(ciPercent) || ciPercent < 0 || ciPercent > 100)
    throw new UsageError('--ci-target', `expected a percentage from 0 to 100, got ${JSON.stringify(raw.ciTarget)}`);
  const variants = list(raw, 'variants');
  for (const v of variants ?? [])
    if (!ALL_VARIANTS.some((x) => x.id === v || x.caseName === v))
      throw new UsageError('--variants', `unknown variant ${JSON.stringify(v)}; expected one of ${ALL_VARIANTS.map((x) => x.id).join(', ')}`);
  const offline = raw.offline === true;
  const fetch = parseFetchSpecs(typeof raw.fetch === 'string' ? raw.fetch : undefined);
  if (offline && fetch.length)
    throw new UsageError('--fetch', `${fetch.map((f) => f.label).join(', ')} would be downloaded from the npm registry, and --offline forbids the network; leave one of them out`);
  const kinds = list(raw, 'heapKinds');
  const allKinds = new Set(FAMILIES.flatMap((f) => f.heapKinds));
  for (const k of kinds ?? []) if (!allKinds.has(k)) throw new UsageError('--heap-kinds', `unknown heap kind ${JSON.stringify(k)}; expected one of ${[...allKinds].join(', ')}`);
  return {
    heapMb: parseIntegerList('--heap-mb', str(raw, 'heapMb', d.heapMb), 0, 1 << 20).sort((a, b) => a - b),
    only: list(raw, 'runtimes'),
    variants,
    heapKinds: kinds,
    extra: parseExtra(typeof raw.runtime === 'string' ? raw.runtime : undefined),
    nodeLines: parseNodeLines(raw.node),
    fetch: fetch.map((f) => f.label),
    offline,
    ...parseCounts(raw, COUNTS, d),
    ciTarget: ciPercent / 100,
    budgetMs: parseInteger('--budget-ms', str(raw, 'budgetMs', d.budgetMs), 0, 86_400_000),
    strace: raw.strace !== false,
    quick,
  };
}
