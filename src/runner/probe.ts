// Runs one fresh probe process: checks its protocol version, drives warm-up and timed batches as the
// sampling plan decides, and collects what it reports. A probe that fails, dies or hangs becomes a typed
// failure; the probe's whole process group is killed whatever happens.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { formatCommand, parseLine, PROTOCOL_VERSION, type InfoValue, type ProbeCommand, type ProbeUsage } from './protocol.js';
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
      return r.signal === 'SIGKILL'
        ? 'probe was killed by SIGKILL (the OOM killer, or someone else)'
        : `probe was killed by ${r.signal}`;
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

export function runProbe(req: ProbeRequest): Promise<ProbeResult> {
  installExitCleanup();
  const args: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.args)) args[k] = String(v);
  const argv = [req.caseName, ...Object.entries(args).map(([k, v]) => `${k}=${v}`), ...(req.restArgs?.length ? ['--', ...req.restArgs] : [])];
  const started = performance.now();
  const info: Record<string, InfoValue> = {};
  const measured = new Map<string, SeriesData>();
  let stderr = '';

  return new Promise<ProbeResult>((resolve) => {
    let failure: FailureReason | null = null;
    let sawHello = false;
    let sawDone = false;
    let settled = false;
    let pgid = 0;
    let readyAt = 0;
    let usage: ProbeUsage | undefined;

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
      const base: ProbeRunBase = {
        caseName: req.caseName,
        args,
        info,
        series: [...measured.values()],
        durationMs: performance.now() - started,
        stderr,
      };
      if (usage) base.usage = usage;
      resolve(reason ? { ...base, state: 'failed', reason } : { ...base, state: 'ok' });
    };

    const abort = (reason: FailureReason) => {
      if (!failure) failure = reason;
      if (pgid) killGroup(pgid);
    };

    const send = (c: ProbeCommand) => {
      if (child.stdin.writable) child.stdin.write(formatCommand(c));
      if (c.kind === 'stop') child.stdin.end();
    };

    const askNext = () => {
      const n = req.plan.next(measured, performance.now() - readyAt);
      send(n > 0 ? { kind: 'run', iterations: Math.ceil(n) } : { kind: 'stop' });
    };

    const timer = setTimeout(() => abort({ kind: 'timeout', timeoutMs: req.timeoutMs }), req.timeoutMs);
    const onAbort = () => abort({ kind: 'cancelled' });
    if (req.signal?.aborted) onAbort();
    req.signal?.addEventListener('abort', onAbort);

    child.on('error', (e) => {
      abort({ kind: 'spawn', message: e.message });
      finish(failure);
    });
    child.stdin.on('error', () => {
      /* EPIPE: the probe died; its exit tells why */
    });
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < MAX_STDERR) stderr += d.toString('utf8').slice(0, MAX_STDERR - stderr.length);
    });

    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (failure) return;
      const parsed = parseLine(line);
      if (!parsed.ok) return abort({ kind: 'protocol', message: parsed.reason, line });
      const m = parsed.message;
      if (!sawHello && m.type !== 'hello') return abort({ kind: 'protocol', message: `expected hello first, got ${m.type}`, line });
      switch (m.type) {
        case 'hello':
          if (sawHello) return abort({ kind: 'protocol', message: 'second hello', line });
          sawHello = true;
          if (m.protocol !== PROTOCOL_VERSION) return abort({ kind: 'version', expected: PROTOCOL_VERSION, got: m.protocol });
          if (m.probe !== FORKLAB_VERSION) return abort({ kind: 'probe-version', expected: FORKLAB_VERSION, got: m.probe });
          if (m.case !== req.caseName) return abort({ kind: 'protocol', message: `probe runs case ${m.case}, asked for ${req.caseName}`, line });
          return;
        case 'info':
          Object.assign(info, m.fields);
          return;
        case 'ready':
          readyAt = performance.now();
          if (req.plan.warmupIterations > 0) send({ kind: 'warmup', iterations: req.plan.warmupIterations });
          else askNext();
          return;
        case 'samples': {
          if (!m.warmup) {
            const s = measured.get(m.series) ?? { series: m.series, samplesNs: [], columns: {} };
            s.samplesNs.push(...m.ns);
            for (const [k, col] of Object.entries(m.columns)) (s.columns[k] ??= []).push(...col);
            measured.set(m.series, s);
          }
          return;
        }
        case 'end':
          askNext();
          return;
        case 'error':
          return abort({ kind: 'probe-error', call: m.call, errno: m.errno, message: m.message });
        case 'usage':
          usage = m.usage;
          return;
        case 'done':
          sawDone = true;
          return;
      }
    });

    child.on('close', (code, sig) => {
      if (failure) return finish(failure);
      if (sig) return finish({ kind: 'signal', signal: sig });
      if (!sawHello) return finish({ kind: 'protocol', message: `probe exited (status ${code}) without a hello line` });
      if (code !== 0) return finish({ kind: 'exit', code: code ?? -1 });
      if (!sawDone) return finish({ kind: 'protocol', message: 'probe exited without a done line' });
      finish(null);
    });
  });
}
