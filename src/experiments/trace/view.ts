// What a trace shows: the answer first (the call sites that fork, then the processes: at what size, what it costs,
// what to change), then a table per process, the call sites (view-sites.ts), the chart of time in fork against RSS
// with this machine's measured lines, and how it was observed (tracer and recorders with their own cost, where the
// cost model comes from). The same blocks go to the terminal and reports.
import { blank, heading, note, table, text, type Block, type LatencyChart } from '../contract/view.js';
import { fmtPct, fmtUs } from '../../text/format.js';
import { hasModel, MECHANISM_WORDS, type ProcessSummary, type TraceSummary } from './summary.js';
import { MECHANISMS } from './model.js';
import { fmtDuration } from './duration.js';
import { coverageNotes, siteAnswer, siteBlocks } from './view-sites.js';

const base = (p: string | null) => (p ? p.split('/').pop()! : '?');
const fmtMb = (mb: number) => (mb >= 1024 ? `${(mb / 1024).toFixed(1)} GB` : `${mb.toFixed(0)} MB`);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The headline of one forking process: "node (pid 4242, 1.1 GB): 412 forks, 7.4 s in fork, …". */
export function answerLine(p: ProcessSummary, s: TraceSummary): string {
  const size = p.rssMb ? `, ${fmtMb(p.rssMb.median)}` : '';
  const fork = p.inCallByMechanism.fork;
  const parts = [`${base(p.program)} (pid ${p.pid}${size}): ${plural(p.byMechanism.fork, 'fork')}`];
  if (fork) parts.push(`${fmtDuration(fork.sumNs)} in fork${s.wallNs > 0 ? `, ${fmtPct(fork.sumNs / s.wallNs)} of wall time` : ''}`);
  let line = parts.join(', ');
  if (p.estimate) {
    const e = p.estimate;
    line += `; its launches ≈ ${fmtDuration(e.withForkNs)} here, with posix_spawn ≈ ${fmtDuration(e.withSpawnNs)}: saving ≈ ${fmtDuration(e.savingNs)}`;
    line += e.shareOfWall !== null ? ` (${fmtPct(e.shareOfWall)} of wall time)` : '';
  } else if (!p.rssMb) line += '; its size was never sampled (it forked too soon after starting), so no estimate';
  if (p.forksWithoutExec) line += `; ${p.forksWithoutExec === p.byMechanism.fork ? 'its' : p.forksWithoutExec} forks never exec'd (workers): posix_spawn cannot replace them`;
  if (p.advice) line += `: ${p.advice.change}`;
  return line;
}

function answer(s: TraceSummary): Block[] {
  const forking = s.processes.filter((p) => p.byMechanism.fork > 0).sort((a, b) => (b.estimate?.savingNs ?? 0) - (a.estimate?.savingNs ?? 0));
  if (s.totals.creations === 0) return [text('No process created a child while traced: nothing to change.')];
  if (!forking.length)
    return [
      text(
        `No process forked: all ${plural(s.totals.creations, 'child', 'children')} were started with vfork or clone(CLONE_VM), whose cost does not grow with the parent's memory. Nothing to change.`,
      ),
    ];
  const lines = forking.slice(0, 5).map((p) => text(answerLine(p, s)));
  if (forking.length > 5) lines.push(note(`… and ${forking.length - 5} more forking processes (table below)`));
  return lines;
}

function processTable(s: TraceSummary): Block {
  const mechs = MECHANISMS.filter((m) => s.processes.some((p) => p.byMechanism[m] > 0));
  const rows = s.processes.map((p) => [
    String(p.pid),
    base(p.program),
    p.runtime,
    ...mechs.map((m) => String(p.byMechanism[m])),
    p.inCall ? fmtDuration(p.inCall.sumNs) : '—',
    p.inCall ? fmtUs(p.inCall.medianNs) : '—',
    p.inCall ? fmtUs(p.inCall.maxNs) : '—',
    p.rssMb ? `${p.rssMb.median.toFixed(0)} / ${p.rssMb.max.toFixed(0)}` : '—',
    p.pteKb ? `${p.pteKb.median.toFixed(0)} / ${p.pteKb.max.toFixed(0)}` : '—',
    p.toExec ? fmtUs(p.toExec.medianNs) : '—',
    [...p.ran.slice(0, 3).map((r) => `${r.program} ×${r.children}`), ...(p.noExec ? [`no exec ×${p.noExec}`] : []), ...(p.helper ? [`via ${base(p.helper.path)}`] : [])].join(', '),
  ]);
  return table(['pid', 'program', 'runtime', ...mechs, 'in call', 'median µs', 'max µs', 'RSS MB med / max', 'VmPTE kB med / max', 'to exec µs', 'children ran'], rows, {
    leftAlign: [1, 2, 9 + mechs.length],
  });
}

/** Time in fork (median per process) against its RSS, with this machine's fork+exec and posix_spawn lines. */
function chart(s: TraceSummary): LatencyChart | null {
  const forking = s.processes.filter((p) => p.inCallByMechanism.fork && p.rssMb).slice(0, 5);
  if (!forking.length || !hasModel(s.model)) return null;
  const own = forking.map((p) => ({ method: `${base(p.program)} ${p.pid}`, rssMb: Math.round(p.rssMb!.median), medianNs: p.inCallByMechanism.fork!.medianNs }));
  const machine = s.model.points.map((pt) => ({
    method: pt.method === 'fork-exec' ? 'this machine: fork+exec' : 'this machine: posix_spawn',
    rssMb: pt.rssMb,
    medianNs: pt.medianNs,
  }));
  const order = [...own.map((p) => p.method), 'this machine: fork+exec', 'this machine: posix_spawn'];
  return { kind: 'latency-chart', points: [...own, ...machine], order, width: 64, height: 9 };
}

/** A line's slope as a signed term: '+ 16.93 µs/MB', '− 1.59 µs/MB' (a fit on a noisy machine may fall). */
const perMb = (nsPerMb: number) => `${nsPerMb < 0 ? '−' : '+'} ${(Math.abs(nsPerMb) / 1000).toFixed(2)} µs/MB`;

function modelNote(s: TraceSummary): string {
  if (!hasModel(s.model)) return `cost model: none (${s.model.reason})`;
  const m = s.model;
  const from = m.source.kind === 'stored' ? `the stored spawn run ${m.source.runId.slice(0, 8)} of ${m.source.startedAt.slice(0, 10)}` : 'a short spawn run made now';
  const sizes = [...new Set(m.points.map((p) => p.rssMb))].join(', ');
  return (
    `cost model: ${from} (THP ${m.thp}, parent RSS ${sizes} MB): fork+exec ${fmtUs(m.fork.interceptNs)} µs ${perMb(m.fork.nsPerMb)}, ` +
    `posix_spawn ${fmtUs(m.spawn.interceptNs)} µs ${perMb(m.spawn.nsPerMb)} per launch (start, exec, wait); each fork is priced by both ` +
    "lines at its creator's RSS and the saving is the difference (a fork costs more than its call: the child's exec tears the copied page tables down)"
  );
}

function tracerNote(s: TraceSummary): string {
  const t = `traced with ${s.tracer.name}${s.tracer.version ? ` ${s.tracer.version}` : ''}${s.tracer.args.includes('--seccomp-bpf') ? ' (--seccomp-bpf)' : ''}`;
  const o = s.overhead;
  if (o.state !== 'measured') return `${t}; its overhead was not measured (${o.reason}): times in the creating calls include the tracer's own stops`;
  if (o.tracedNs <= o.plainNs)
    return `${t}: no overhead this run could see (fork+exec of a small parent: ${fmtUs(o.tracedNs)} µs traced, ${fmtUs(o.plainNs)} µs not, median of ${o.rounds}×${o.iterations})`;
  return (
    `${t}: the tracer adds ≈ ${fmtUs(o.perCreationNs)} µs per traced creation (fork+exec of a small parent: ${fmtUs(o.tracedNs)} µs traced, ${fmtUs(o.plainNs)} µs not, ` +
    `median of ${o.rounds}×${o.iterations}); the times in the creating calls above include it`
  );
}

function endNote(s: TraceSummary): string {
  const wall = `wall time ${fmtDuration(s.wallNs)} under the tracer`;
  if (s.mode === 'attach') {
    const how = { duration: 'for the --duration asked', 'process-ended': 'until the process ended', interrupt: 'until interrupted', exit: 'until the tracer ended' }[s.endedBy];
    const killed = s.tracerKilled ? '; strace did not detach within 10 s of being asked and was killed (the process ran on)' : '';
    return `attached to pid ${s.pid} ${how}${killed}; ${wall}`;
  }
  const status = s.exit.signal ? `killed by ${s.exit.signal}` : `exit status ${s.exit.code}`;
  const left = s.leftEnded ? `; ${plural(s.leftEnded, 'process', 'processes')} it left running ended by forklab` : '';
  return `command ${status}${s.endedBy === 'interrupt' ? ' (interrupted)' : ''}${left}; ${wall}`;
}

export function traceView(s: TraceSummary): Block[] {
  const who = s.mode === 'attach' ? `pid ${s.pid}` : (s.command ?? []).join(' ');
  const blocks: Block[] = [heading(`forklab trace: ${who}`), ...siteAnswer(s), ...answer(s)];
  if (s.processes.length) {
    blocks.push(blank, heading(`Processes that created children (${s.totals.creations} children, ${plural(s.totals.forks, 'fork')})`), processTable(s));
    blocks.push(
      note(
        `mechanisms: ${MECHANISMS.filter((m) => s.processes.some((p) => p.byMechanism[m] > 0))
          .map((m) => `${m} = ${MECHANISM_WORDS[m]}`)
          .join('; ')}`,
      ),
    );
  }
  blocks.push(...siteBlocks(s));
  const c = chart(s);
  if (c) blocks.push(blank, heading("Median time in fork against the creator's RSS (µs), with this machine's measured launches"), c);
  const advice = new Map(s.processes.filter((p) => p.advice).map((p) => [p.runtime, p.advice!]));
  if (advice.size) {
    blocks.push(blank, heading('What to change'));
    for (const a of advice.values()) blocks.push(text(`${a.runtime}: ${a.change}`), note(`  (${a.why})`));
  }
  blocks.push(blank, note(endNote(s)), note(tracerNote(s)), ...coverageNotes(s), note(modelNote(s)));
  if (s.unreadLines) blocks.push(note(`${s.unreadLines} lines of the tracer's output could not be read and were skipped`));
  return blocks;
}
