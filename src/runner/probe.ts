// Runs one fresh probe process: checks its protocol version, drives warm-up and timed batches as the
// sampling plan decides, and collects what it reports. A probe that fails, dies or hangs becomes a typed
// failure; the probe's whole process group is killed whatever happens.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { formatCommand, parseLine, PROTOCOL_VERSION, type InfoValue, type ProbeCommand, type ProbeMessage, type ProbeUsage } from './protocol.js';
import { FORKLAB_VERSION } from '../version.js';
import { forgetGroup, installExitCleanup, killGroup, registerGroup } from './processes.js';

export interface SeriesData {
  series: string;
  samplesNs: number[];
  columns: Record<string, number[]>;
}

/** Decides how many timed iterations to run next, from what has been measured so far; 0 stops. */
export interface SamplingPlan {
  warmupIterations: number;
  /** elapsedMs: time since the probe reported ready (setup excluded). */
  next(measured: ReadonlyMap<string, SeriesData>, elapsedMs: number): number;
}

export type FailureReason =
  | { kind: 'probe-error'; call: string; errno: number; message: string }
  | { kind: 'exit'; code: number }
  | { kind: 'signal'; signal: string }
  | { kind: 'timeout'; timeoutMs: number }
  | { kind: 'protocol'; message: string; line?: string }
  | { kind: 'version'; expected: number; got: number }
  /** The probe was built from another version of forklab than the one running it. */
  | { kind: 'probe-version'; expected: string; got: string }
  | { kind: 'cancelled' }
  | { kind: 'spawn'; message: string };

interface ProbeRunBase {
  caseName: string;
  args: Record<string, string>;
  info: Record<string, InfoValue>;
  series: SeriesData[];
  durationMs: number;
  stderr: string;
  /** The probe's own scheduling counters while it measured; absent when it did not report them (failed early). */
  usage?: ProbeUsage;
}
export type ProbeResult = (ProbeRunBase & { state: 'ok' }) | (ProbeRunBase & { state: 'failed'; reason: FailureReason });

export interface ProbeRequest {
  probePath: string;
  /**
   * A program that speaks the probe protocol in the probe's place (a runtime driver): executable and
   * leading arguments; the case name and key=value arguments follow them. Unset: the C probe.
   */
  command?: readonly string[];
  caseName: string;
  args: Record<string, string | number>;
  /** Passed after "--", as they are: the arguments of the user's program (user-target=PATH). */
  restArgs?: readonly string[];
  plan: SamplingPlan;
  timeoutMs: number;
  signal?: AbortSignal;
}

export function describeFailure(r: FailureReason): string {
  switch (r.kind) {
    case 'probe-error':
      return r.errno ? `${r.call} failed: ${r.message} (errno ${r.errno})` : `${r.call}: ${r.message}`;
    case 'exit':
      return `probe exited with status ${r.code} without finishing`;
    case 'signal':
      return r.signal === 'SIGKILL' ? 'probe was killed by SIGKILL (the OOM killer, or someone else)' : `probe was killed by ${r.signal}`;
    case 'timeout':
      return `probe did not finish within ${r.timeoutMs} ms and was killed`;
    case 'protocol':
      return `probe broke the protocol: ${r.message}${r.line !== undefined ? ` in line ${JSON.stringify(r.line.slice(0, 120))}` : ''}`;
    case 'version':
      return `probe speaks protocol ${r.got}, forklab expects ${r.expected}: rebuild the probe (npm rebuild forklab)`;
    case 'probe-version':
      return `probe is version ${r.got}, forklab is ${r.expected}: rebuild the probe (npm rebuild forklab)`;
    case 'cancelled':
      return 'cancelled';
    case 'spawn':
      return `probe could not be started: ${r.message}`;
  }
}

const MAX_STDERR = 8192;

/** What a probe has said so far. */
interface Transcript {
  sawHello: boolean;
  sawDone: boolean;
  /** When the probe reported ready (setup done); the plan's elapsed time counts from here. */
  readyAt: number;
  info: Record<string, InfoValue>;
  measured: Map<string, SeriesData>;
  usage?: ProbeUsage;
}

/** How the runner answers a probe: stop it with a reason, send it a command, ask the plan for the next batch. */
interface Channel {
  abort(reason: FailureReason): void;
  send(command: ProbeCommand): void;
  askNext(): void;
}

/** Timed samples are kept per series (warm-up ones are not), with their extra columns. */
function keepSamples(measured: Map<string, SeriesData>, m: Extract<ProbeMessage, { type: 'samples' }>): void {
  if (m.warmup) return;
  const s: SeriesData = measured.get(m.series) ?? { series: m.series, samplesNs: [], columns: {} };
  s.samplesNs.push(...m.ns);
  for (const [k, col] of Object.entries(m.columns)) {
    const kept = s.columns[k] ?? [];
    kept.push(...col);
    s.columns[k] = kept;
  }
  measured.set(m.series, s);
}

/** One line of the probe's output: checks the protocol, records what it reports, answers it. */
function onLine(t: Transcript, line: string, req: ProbeRequest, ch: Channel): void {
  const parsed = parseLine(line);
  if (!parsed.ok) {
    ch.abort({ kind: 'protocol', message: parsed.reason, line });
    return;
  }
  const m = parsed.message;
  if (!t.sawHello && m.type !== 'hello') {
    ch.abort({ kind: 'protocol', message: `expected hello first, got ${m.type}`, line });
    return;
  }
  switch (m.type) {
    case 'hello':
      if (t.sawHello) {
        ch.abort({ kind: 'protocol', message: 'second hello', line });
        return;
      }
      t.sawHello = true;
      if (m.protocol !== PROTOCOL_VERSION) {
        ch.abort({ kind: 'version', expected: PROTOCOL_VERSION, got: m.protocol });
        return;
      }
      if (m.probe !== FORKLAB_VERSION) {
        ch.abort({ kind: 'probe-version', expected: FORKLAB_VERSION, got: m.probe });
        return;
      }
      if (m.case !== req.caseName) {
        ch.abort({ kind: 'protocol', message: `probe runs case ${m.case}, asked for ${req.caseName}`, line });
        return;
      }
      return;
    case 'info':
      Object.assign(t.info, m.fields);
      return;
    case 'ready':
      t.readyAt = performance.now();
      if (req.plan.warmupIterations > 0) ch.send({ kind: 'warmup', iterations: req.plan.warmupIterations });
      else ch.askNext();
      return;
    case 'samples':
      keepSamples(t.measured, m);
      return;
    case 'end':
      ch.askNext();
      return;
    case 'error':
      ch.abort({ kind: 'probe-error', call: m.call, errno: m.errno, message: m.message });
      return;
    case 'usage':
      t.usage = m.usage;
      return;
    case 'done':
      t.sawDone = true;
      return;
  }
}

/** Why a probe that closed its output without a failure of ours did not finish well, or null when it did. */
function closeReason(t: Transcript, code: number | null, sig: NodeJS.Signals | null): FailureReason | null {
  if (sig) return { kind: 'signal', signal: sig };
  if (!t.sawHello) return { kind: 'protocol', message: `probe exited (status ${code}) without a hello line` };
  if (code !== 0) return { kind: 'exit', code: code ?? -1 };
  if (!t.sawDone) return { kind: 'protocol', message: 'probe exited without a done line' };
  return null;
}

export function runProbe(req: ProbeRequest): Promise<ProbeResult> {
  installExitCleanup();
  const args: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.args)) args[k] = String(v);
  const argv = [req.caseName, ...Object.entries(args).map(([k, v]) => `${k}=${v}`), ...(req.restArgs?.length ? ['--', ...req.restArgs] : [])];
  const started = performance.now();
  const t: Transcript = { sawHello: false, sawDone: false, readyAt: 0, info: {}, measured: new Map() };
  let stderr = '';

  return new Promise<ProbeResult>((resolve) => {
    let failure: FailureReason | null = null;
    let settled = false;
    let pgid = 0;

    const [file, ...lead] = req.command ?? [req.probePath];
    const child = spawn(file!, [...lead, ...argv], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    if (child.pid !== undefined) {
      pgid = child.pid;
      registerGroup(pgid);
    }

    const finish = (reason: FailureReason | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
      if (pgid) {
        killGroup(pgid); // children the probe may have left behind
        forgetGroup(pgid);
      }
      const base: ProbeRunBase = { caseName: req.caseName, args, info: t.info, series: [...t.measured.values()], durationMs: performance.now() - started, stderr };
      if (t.usage) base.usage = t.usage;
      resolve(reason ? { ...base, state: 'failed', reason } : { ...base, state: 'ok' });
    };

    const ch: Channel = {
      abort: (reason) => {
        if (!failure) failure = reason;
        if (pgid) killGroup(pgid);
      },
      send: (c) => {
        if (child.stdin.writable) child.stdin.write(formatCommand(c));
        if (c.kind === 'stop') child.stdin.end();
      },
      askNext: () => {
        const n = req.plan.next(t.measured, performance.now() - t.readyAt);
        ch.send(n > 0 ? { kind: 'run', iterations: Math.ceil(n) } : { kind: 'stop' });
      },
    };

    const timer = setTimeout(() => ch.abort({ kind: 'timeout', timeoutMs: req.timeoutMs }), req.timeoutMs);
    const onAbort = () => ch.abort({ kind: 'cancelled' });
    if (req.signal?.aborted) onAbort();
    req.signal?.addEventListener('abort', onAbort);

    child.on('error', (e) => {
      ch.abort({ kind: 'spawn', message: e.message });
      finish(failure);
    });
    child.stdin.on('error', () => {
      /* EPIPE: the probe died; its exit tells why */
    });
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < MAX_STDERR) stderr += d.toString('utf8').slice(0, MAX_STDERR - stderr.length);
    });
    createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (line) => {
      if (!failure) onLine(t, line, req, ch);
    });
    child.on('close', (code, sig) => finish(failure ?? closeReason(t, code, sig)));
  });
}
