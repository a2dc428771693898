// The call-site recorders (recorders/ at the package's root): what forklab adds to the traced command's
// environment so that Node and Python processes load them, and what they wrote back. The environment changes in
// two variables only, and never loses what the user had: NODE_OPTIONS gets `--require=…` appended, PYTHONPATH
// gets the recorder's directory prepended. The recorders write JSON lines into a directory of the trace's own.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the recorders are shipped (recorders/ beside src/ and dist/). */
const RECORDERS_DIR = fileURLToPath(new URL('../../../recorders/', import.meta.url));
const SOURCES = { node: join('node', 'record.cjs'), python: join('python', 'sitecustomize.py') } as const;

/** The runtimes a recorder exists for. */
export type RecordedRuntime = keyof typeof SOURCES;
export const RECORDED_RUNTIMES: readonly RecordedRuntime[] = ['node', 'python'];

/** A stack frame as a recorder saw it: file, line, column (null when the runtime has none), function, flags. */
export interface RawFrame {
  file: string;
  line: number;
  column: number | null;
  fn: string | null;
  /** Mapped by the runtime's own source map (Node with source maps enabled); the generated position. */
  generated: { file: string; line: number; column: number } | null;
  async: boolean;
}

/** One process or thread that loaded a recorder and recorded at least one call. */
export interface RecorderStart {
  runtime: RecordedRuntime;
  pid: number;
  ppid: number;
  /** Node's worker thread id (0: the main thread); null for Python. */
  thread: number | null;
  version: string;
  /** The recorder's own time to load, in the process (µs). */
  loadUs: number;
  /** Node only: source maps were enabled in the process (--enable-source-maps, process.setSourceMapsEnabled). */
  sourceMaps: boolean | null;
}

/** One call the recorder saw: a child_process function (Node) or an audit event (Python). */
export interface RecordedCall {
  runtime: RecordedRuntime;
  /** spawn, execFile, spawnSync… or subprocess.Popen, os.fork, os.system… */
  fn: string;
  /** The command as given (a file, or a shell command line) and the first arguments. */
  command: string;
  argv: string[];
  pid: number;
  /** Node: the worker thread id; Python: the OS thread id (as strace names threads). */
  thread: number;
  /** The child's pid, where the runtime hands it back (Node's ChildProcess, spawnSync); null otherwise. */
  child: number | null;
  /** Wall-clock seconds: when the call began and (Node) when it returned. */
  t0: number;
  t1: number | null;
  frames: RawFrame[];
  /** The error the call threw (its code), null when it did not. */
  error: string | null;
  /** @forklab/spawn's part in the call: its handle took the call, and what it published on 'forklab:spawn:fallback'. */
  forklab: { handle: boolean; fallback: string[] } | null;
  /** The recorder's own time in the call (µs): its stack capture and its write, not the call. */
  costUs: number;
}

export interface Records {
  starts: RecorderStart[];
  calls: RecordedCall[];
  /** Lines that could not be read (a process killed in the middle of a write). */
  unreadLines: number;
}

/** The recorders copied into dir (so the environment names files of this trace only), and the directory they write to. */
export function installRecorders(dir: string): { nodeRequire: string; pythonPath: string; outDir: string } | string {
  const missing = Object.values(SOURCES).filter((s) => !existsSync(join(RECORDERS_DIR, s)));
  if (missing.length) return `the recorders are not installed (${missing.map((m) => join(RECORDERS_DIR, m)).join(', ')} missing)`;
  const root = join(dir, 'rec');
  for (const r of RECORDED_RUNTIMES) mkdirSync(join(root, r), { recursive: true });
  const outDir = join(root, 'out');
  mkdirSync(outDir, { mode: 0o700 });
  for (const r of RECORDED_RUNTIMES) copyFileSync(join(RECORDERS_DIR, SOURCES[r]), join(root, SOURCES[r]));
  return { nodeRequire: join(root, SOURCES.node), pythonPath: join(root, 'python'), outDir };
}

/** A NODE_OPTIONS value for a path: quoted (Node's own NODE_OPTIONS quoting) when it holds a space or a quote. */
export function nodeOption(flag: string, path: string): string {
  return /[\s"\\]/.test(path) ? `${flag}="${path.replace(/(["\\])/g, '\\$1')}"` : `${flag}=${path}`;
}

/** The command's environment: the user's, with the Node recorder appended to NODE_OPTIONS and the Python one prepended to PYTHONPATH. */
export function recordingEnv(env: NodeJS.ProcessEnv, r: { nodeRequire: string; pythonPath: string }): NodeJS.ProcessEnv {
  const out = { ...env };
  const require = nodeOption('--require', r.nodeRequire);
  out.NODE_OPTIONS = env.NODE_OPTIONS?.trim() ? `${env.NODE_OPTIONS} ${require}` : require;
  out.PYTHONPATH = env.PYTHONPATH ? `${r.pythonPath}${delimiter}${env.PYTHONPATH}` : r.pythonPath;
  return out;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function frameOf(raw: unknown): RawFrame | null {
  if (!Array.isArray(raw) || typeof raw[0] !== 'string' || num(raw[1]) === null) return null;
  const flags = str(raw[4]) ?? '';
  const g = Array.isArray(raw[5]) && typeof raw[5][0] === 'string' ? { file: raw[5][0], line: num(raw[5][1]) ?? 0, column: num(raw[5][2]) ?? 0 } : null;
  return { file: raw[0], line: raw[1] as number, column: num(raw[2]), fn: str(raw[3]), generated: g, async: flags.includes('a') };
}

/** One line of a recorder's file; null when it is not a record (a torn last line). */
function parseLine(runtime: RecordedRuntime, line: string): RecorderStart | RecordedCall | null {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
  const pid = num(o.pid);
  if (pid === null) return null;
  if (o.k === 'start')
    return {
      runtime,
      pid,
      ppid: num(o.ppid) ?? 0,
      thread: runtime === 'node' ? (num(o.tid) ?? 0) : null,
      version: str(o.v) ?? '',
      loadUs: num(o.loadUs) ?? 0,
      sourceMaps: typeof o.sourceMaps === 'boolean' ? o.sourceMaps : null,
    };
  const t0 = num(o.t0);
  if (o.k !== 'call' || t0 === null || typeof o.fn !== 'string') return null;
  const fk = o.forklab as { handle?: unknown; fallback?: unknown } | undefined;
  return {
    runtime,
    fn: o.fn,
    command: str(o.cmd) ?? '',
    argv: Array.isArray(o.argv) ? o.argv.filter((a): a is string => typeof a === 'string') : [],
    pid,
    thread: num(o.tid) ?? pid,
    child: num(o.child),
    t0,
    t1: num(o.t1),
    frames: Array.isArray(o.frames) ? o.frames.map(frameOf).filter((f): f is RawFrame => f !== null) : [],
    error: str(o.err),
    forklab: fk ? { handle: fk.handle === true, fallback: Array.isArray(fk.fallback) ? fk.fallback.filter((x): x is string => typeof x === 'string') : [] } : null,
    costUs: num(o.costUs) ?? 0,
  };
}

/** Everything the recorders wrote (node-PID.jsonl, python-PID.jsonl), calls in time order. */
export function readRecords(outDir: string): Records {
  const out: Records = { starts: [], calls: [], unreadLines: 0 };
  if (!existsSync(outDir)) return out;
  for (const name of readdirSync(outDir).sort()) {
    const m = /^(node|python)-\d+\.jsonl$/.exec(name);
    if (!m) continue;
    const runtime = m[1] as RecordedRuntime;
    for (const line of readFileSync(join(outDir, name), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const r = parseLine(runtime, line);
      if (!r) out.unreadLines++;
      else if ('fn' in r) out.calls.push(r);
      else out.starts.push(r);
    }
  }
  out.calls.sort((a, b) => a.t0 - b.t0);
  return out;
}
