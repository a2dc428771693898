// What Node's internals hand forklab, read into the addon's terms: the Process handle's spawn(...) arguments (one
// options object on Node 20 and 22, positional on 24 and 26), their stdio entries ({type: 'pipe' | 'ignore' | 'fd'
// | 'inherit' | 'wrap', ...}) and the spawn_sync binding's options. Plain functions of the values they are given:
// nothing here reaches into Node (internals.ts does). What is not recognised is a reason for Node to serve the call.
import { loopRings } from './loop-rings.js';
import { type NativeSyncRequest, STDIO_IGNORE, STDIO_PIPE } from './native.js';

export type HandleShape = 'options' | 'positional';

interface StdioSpec {
  type: string;
  fd?: number;
  handle?: { open?(fd: number): number; fd?: number };
}

/** A call decoded from the handle's spawn(...) arguments, in the addon's terms. */
export interface SpawnRequest {
  shape: HandleShape;
  file: string;
  /** converted as Node's handle converts them (handleStrings) */
  args: string[];
  cwd: string | null;
  /** null: the child inherits the parent's environ (Node's handle without envPairs) */
  envPairs: string[] | null;
  /** per stdio entry: STDIO_PIPE, STDIO_IGNORE or a descriptor */
  kinds: number[];
  stdio: StdioSpec[];
  detached: boolean;
  uid: number | undefined;
  gid: number | undefined;
  /** why Node's handle must serve it as far as its arguments tell (an unknown stdio entry), or null */
  why: string | null;
}

const DETACHED_FLAG = 1; // processConstants.kProcessFlagDetached on Node 24 and 26

function stdioWhy(s: StdioSpec): string | null {
  if (s.type === 'pipe' || s.type === 'overlapped') return typeof s.handle?.open === 'function' ? null : 'stdio pipe without a Pipe handle';
  if (s.type === 'wrap') return Number.isInteger(s.handle?.fd) && (s.handle?.fd as number) >= 0 ? null : 'stdio stream without a descriptor';
  if (s.type === 'fd' || s.type === 'inherit') return Number.isInteger(s.fd) ? null : `stdio ${s.type} without a descriptor`;
  return s.type === 'ignore' ? null : `stdio type ${s.type}`;
}

const kindOf = (s: StdioSpec): number =>
  s.type === 'pipe' || s.type === 'overlapped' ? STDIO_PIPE : s.type === 'ignore' ? STDIO_IGNORE : s.type === 'wrap' ? (s.handle?.fd as number) : (s.fd as number);

/** The call in either shape, or null when it is not one forklab knows. Converting its arguments throws what
 * Node's handle would throw (handleStrings). */
export function readRequest(a: unknown[]): SpawnRequest | null {
  let v: unknown[];
  let detached: boolean;
  let shape: HandleShape;
  if (a.length === 1 && typeof a[0] === 'object' && a[0] !== null) {
    const o = a[0] as Record<string, unknown>;
    shape = 'options';
    v = [o.file, o.args, o.cwd, o.envPairs, o.stdio, undefined, o.uid, o.gid];
    detached = Boolean(o.detached);
  } else if (a.length >= 6 && typeof a[5] === 'number') {
    // (windowsHide and windowsVerbatimArguments, flags 2 and 4, mean nothing on Linux: libuv ignores them)
    shape = 'positional';
    v = a;
    detached = ((a[5] as number) & DETACHED_FLAG) !== 0;
  } else return null;
  const [file, args, cwd, envPairs, stdio, , uid, gid] = v;
  if (typeof file !== 'string' || !Array.isArray(stdio)) return null;
  if ((args !== undefined && !Array.isArray(args)) || (envPairs != null && !Array.isArray(envPairs))) return null;
  const specs = stdio as StdioSpec[];
  return {
    shape,
    file,
    args: handleStrings((args as unknown[] | undefined) ?? []),
    cwd: typeof cwd === 'string' && cwd !== '' ? cwd : null, // as Node's handle: an empty cwd means none
    envPairs: envPairs == null ? null : handleStrings(envPairs as unknown[]),
    kinds: specs.map(kindOf),
    stdio: specs,
    detached,
    uid: uid == null ? undefined : (uid as number),
    gid: gid == null ? undefined : (gid as number),
    why: specs.map(stdioWhy).find((w) => w !== null) ?? null,
  };
}

/** Per stdio entry, the Pipe handle that takes a pipe's parent end (the addon calls its open(fd)), else null. */
export function pipeHandles(r: SpawnRequest): (object | null)[] {
  return r.stdio.map((s, i) => (r.kinds[i] === STDIO_PIPE && s.handle ? s.handle : null));
}

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/**
 * The arguments (or envPairs entries) as Node's Process handle converts them: String(x) for what converts (42 is
 * "42"); for what does not (a Symbol, an object whose toString throws) Node 22 and later pass an empty string
 * (their handle's conversion fails silently), and Node 20 converts them all and then throws the last failure's
 * error, as checked side by side.
 */
export function handleStrings(list: readonly unknown[]): string[] {
  let i = 0; // the usual case, every entry a string (envPairs has a hundred or more): the list itself, no copy
  while (i < list.length && typeof list[i] === 'string') i++;
  if (i === list.length) return list as string[];
  let failure: { error: unknown } | null = null;
  const out = list.map((x) => {
    try {
      return `${x}`;
    } catch (error) {
      failure = { error };
      return '';
    }
  });
  if (failure && NODE_MAJOR < 22) throw (failure as { error: unknown }).error;
  return out;
}

interface SyncStdio {
  type: string;
  fd?: number;
  writable?: boolean;
  input?: ArrayBufferView;
}

export interface SyncRead {
  uid: unknown;
  gid: unknown;
  cwd: string | null;
  detached: boolean;
  /** the request in the addon's terms; converting the arguments throws what Node's binding throws */
  build(): NativeSyncRequest;
}

/** The sync binding's options (what spawnSync builds) in the addon's terms, or why Node's binding must serve them. */
export function readSyncOptions(options: unknown): SyncRead | { why: string } {
  const o = options as Record<string, unknown> | null;
  if (!o || typeof o.file !== 'string' || !Array.isArray(o.stdio)) return { why: 'unrecognised spawn_sync options' };
  const stdio = o.stdio as SyncStdio[];
  for (const s of stdio) {
    if (s.type !== 'pipe' && s.type !== 'ignore' && !((s.type === 'inherit' || s.type === 'fd') && Number.isInteger(s.fd))) return { why: `stdio type ${s.type}` };
  }
  const cwd = (o.cwd as string | undefined) ?? null;
  const build = (): NativeSyncRequest => ({
    file: o.file as string,
    // as Node's sync spawner: entries that are not strings are converted (42 is "42"); without envPairs, environ
    args: ((o.args as unknown[] | undefined) ?? []).map((x) => `${x}`),
    envPairs: o.envPairs == null ? null : (o.envPairs as unknown[]).map((x) => `${x}`),
    cwd, // (an empty one fails with ENOENT, as Node's sync spawner: chdir(""))
    stdio: stdio.map((s) => (s.type === 'pipe' ? STDIO_PIPE : s.type === 'ignore' ? STDIO_IGNORE : (s.fd as number))),
    input: stdio.map((s) => (s.type === 'pipe' && s.input ? new Uint8Array(s.input.buffer, s.input.byteOffset, s.input.byteLength) : null)),
    readable: stdio.map((s) => s.type === 'pipe' && Boolean(s.writable)),
    detached: Boolean(o.detached),
    timeoutMs: (o.timeout as number | undefined) ?? 0,
    // as Node's sync spawner: a maxBuffer of 0 is no limit
    maxBuffer: typeof o.maxBuffer === 'number' && o.maxBuffer > 0 ? o.maxBuffer : Number.POSITIVE_INFINITY,
    killSignal: (o.killSignal as number | undefined) ?? 15,
    loopRings: loopRings(),
  });
  return { uid: o.uid, gid: o.gid, cwd, detached: Boolean(o.detached), build };
}
