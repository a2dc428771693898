// The probe's JSON Lines protocol (version 1): the one place its types and its parser live.
// The probe writes one JSON object a line on stdout; the runner writes commands on its stdin.
// See docs/protocol.md.

export const PROTOCOL_VERSION = 1;

export type InfoValue = string | number | boolean | null;

export type ProbeMessage =
  | { type: 'hello'; protocol: number; probe: string; case: string | null; pid: number; cases?: string[] }
  | { type: 'info'; fields: Record<string, InfoValue> }
  | { type: 'ready' }
  | {
      type: 'samples';
      series: string;
      warmup: boolean;
      /** Raw per-iteration times in nanoseconds. */
      ns: number[];
      /** Extra per-iteration integer columns (e.g. minor faults), each as long as ns. */
      columns: Record<string, number[]>;
    }
  /** A batch (warm-up or timed) is finished: every samples line of it has been written. */
  | { type: 'end'; warmup: boolean }
  | { type: 'error'; call: string; errno: number; message: string }
  /** What the scheduler did to the probe between "ready" and now (sent just before "done"). */
  | { type: 'usage'; usage: ProbeUsage }
  | { type: 'done' };

/** Counters of the probe process from "ready" to its last command: the per-probe part of the noise witness. */
export interface ProbeUsage {
  /** Involuntary context switches of the probe (preempted while runnable): getrusage ru_nivcsw. */
  nivcsw: number;
  /** Voluntary context switches (blocked, e.g. in waitpid). */
  nvcsw: number;
  /** Involuntary context switches of the probe's reaped children; null from a runtime driver that cannot read them. */
  childNivcsw: number | null;
  /** CPU migrations of the probe's main thread (se.nr_migrations); null where the kernel does not show it. */
  migrations: number | null;
}

export type ParseResult = { ok: true; message: ProbeMessage } | { ok: false; reason: string };

export type ProbeCommand = { kind: 'warmup'; iterations: number } | { kind: 'run'; iterations: number } | { kind: 'stop' };

export function formatCommand(c: ProbeCommand): string {
  return c.kind === 'stop' ? 'stop\n' : `${c.kind} ${c.iterations}\n`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function countArray(v: unknown): number[] | null {
  if (!Array.isArray(v)) return null;
  for (const x of v) if (!isCount(x)) return null;
  return v as number[];
}

const fail = (reason: string): ParseResult => ({ ok: false, reason });

/** Parses one line of probe output. Never throws. */
export function parseLine(line: string): ParseResult {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return fail('not JSON');
  }
  if (!isRecord(v)) return fail('not a JSON object');
  switch (v.type) {
    case 'hello': {
      if (!isCount(v.protocol)) return fail('hello without an integer "protocol"');
      if (typeof v.probe !== 'string') return fail('hello without "probe"');
      if (v.case !== null && typeof v.case !== 'string') return fail('hello with a bad "case"');
      if (!isCount(v.pid)) return fail('hello without "pid"');
      const msg: ProbeMessage = { type: 'hello', protocol: v.protocol, probe: v.probe, case: v.case, pid: v.pid };
      if (Array.isArray(v.cases) && v.cases.every((c) => typeof c === 'string')) msg.cases = v.cases as string[];
      return { ok: true, message: msg };
    }
    case 'info': {
      const fields: Record<string, InfoValue> = {};
      for (const [k, x] of Object.entries(v)) {
        if (k === 'type') continue;
        if (x !== null && typeof x !== 'string' && typeof x !== 'number' && typeof x !== 'boolean') return fail(`info field "${k}" is not a scalar`);
        fields[k] = x;
      }
      return { ok: true, message: { type: 'info', fields } };
    }
    case 'ready':
      return { ok: true, message: { type: 'ready' } };
    case 'done':
      return { ok: true, message: { type: 'done' } };
    case 'end':
      if (typeof v.warmup !== 'boolean') return fail('end without boolean "warmup"');
      return { ok: true, message: { type: 'end', warmup: v.warmup } };
    case 'samples': {
      if (typeof v.series !== 'string' || v.series === '') return fail('samples without "series"');
      if (typeof v.warmup !== 'boolean') return fail('samples without boolean "warmup"');
      const ns = countArray(v.ns);
      if (!ns || ns.length === 0) return fail('samples without a non-empty "ns" array of non-negative integers');
      const columns: Record<string, number[]> = {};
      for (const [k, x] of Object.entries(v)) {
        if (k === 'type' || k === 'series' || k === 'warmup' || k === 'ns') continue;
        const col = countArray(x);
        if (!col || col.length !== ns.length) return fail(`samples column "${k}" is not ${ns.length} non-negative integers`);
        columns[k] = col;
      }
      return { ok: true, message: { type: 'samples', series: v.series, warmup: v.warmup, ns, columns } };
    }
    case 'usage': {
      if (!isCount(v.nivcsw) || !isCount(v.nvcsw)) return fail('usage without integer "nivcsw", "nvcsw"');
      if (v.childNivcsw !== null && !isCount(v.childNivcsw)) return fail('usage with a bad "childNivcsw"');
      if (v.migrations !== null && !isCount(v.migrations)) return fail('usage with a bad "migrations"');
      return { ok: true, message: { type: 'usage', usage: { nivcsw: v.nivcsw, nvcsw: v.nvcsw, childNivcsw: v.childNivcsw, migrations: v.migrations } } };
    }
    case 'error': {
      if (typeof v.call !== 'string') return fail('error without "call"');
      if (!isCount(v.errno)) return fail('error without integer "errno"');
      if (typeof v.message !== 'string') return fail('error without "message"');
      return { ok: true, message: { type: 'error', call: v.call, errno: v.errno, message: v.message } };
    }
    default:
      return fail(`unknown message type ${JSON.stringify(v.type)}`);
  }
}
