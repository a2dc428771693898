// What a trace shows of its call sites: the answer lines (the call sites that fork, most saving first, each with
// its change), the table of every call site, the chart of saving by call site, the sums by package, and how the
// call sites were observed (the recorders' own cost, what was joined with strace and what was not, the processes
// without a call site and why).
import { blank, heading, note, table, text, type BarChart, type Block } from '../contract/view.js';
import { fmtPct } from '../../text/format.js';
import { changeWords } from './change.js';
import type { CallSite, SiteChange } from './site.js';
import { where, type SiteFrame } from './stack.js';
import type { CallSiteSummary } from './coverage.js';
import type { TraceSummary } from './summary.js';
import { fmtDuration } from './duration.js';

const bar = (bars: BarChart['bars'], unit: string): BarChart => ({ kind: 'bar-chart', bars, unit, width: 40 });

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
const mb = (x: number) => (x >= 1024 ? `${(x / 1024).toFixed(1)} GB` : `${x.toFixed(0)} MB`);

/** "spawn('git')", "execFile('git') ×3, spawn('ls')": the functions and commands of a site, most frequent first. */
function callWords(s: CallSite): string {
  const fn = s.functions[0]?.name ?? '?';
  const cmd = s.commands[0]?.command;
  const more = s.commands.length > 1 ? ` and ${plural(s.commands.length - 1, 'other command')}` : '';
  const arg = cmd && cmd !== '?' ? `'${cmd}'` : '';
  return s.source === 'native' ? `${fn}() → ${cmd ?? '?'}${more}` : `${fn}(${arg})${more}`;
}

/** Where a call site is: its frame in the user's code, "via PKG" when it came from a dependency. */
function siteWhere(s: CallSite): string {
  const f: SiteFrame | null = s.own ?? s.at;
  if (!f) return s.label;
  const via = s.package ? ` via ${s.package}` : '';
  const own = s.own ? '' : ' (no frame of your own code in the stack)';
  return `${where(f)}${via}${own}`;
}

/** "src/build.ts:42:7 spawn('git') in collectChanges: 1,200 forks from 540 MB, 14 s in fork, ≈ 13 s saved by posix_spawn: …" */
function siteLine(s: CallSite, wallNs: number): string {
  const head = s.source === 'native' ? `${s.label}: ${callWords(s)}` : `${siteWhere(s)} ${callWords(s)}${s.function ? ` in ${s.function}` : ''}`;
  const parts = [`${plural(s.byMechanism.fork, 'fork')}${s.rssMb ? ` from ${mb(s.rssMb.median)}` : ''}`];
  if (s.inForkNs > 0) parts.push(`${fmtDuration(s.inForkNs)} in fork`);
  if (s.savingNs !== null && s.savingNs > 0)
    parts.push(`≈ ${fmtDuration(s.savingNs)} saved by posix_spawn${wallNs > 0 ? ` (${fmtPct(Math.min(1, s.savingNs / wallNs))} of wall time)` : ''}`);
  else if (s.savingNs !== null) parts.push('no measurable saving at this size');
  return `${head}: ${parts.join(', ')}: ${changeWords(s.change)}`;
}

const SHORT: Record<SiteChange['kind'], (c: SiteChange) => string> = {
  none: () => 'nothing',
  'replace-call': () => 'replace the call',
  'switch-process': () => 'switch the process',
  'change-call': () => 'change the call',
  'upgrade-dependency': (c) => `upgrade ${(c as { package: string }).package}`,
  'fix-setup': () => 'fix the setup',
};

/** The answer's call-site lines: those that fork (and then exec), most saving first; [] when there are none. */
export function siteAnswer(s: TraceSummary): Block[] {
  const forking = (s.callSites ?? []).filter((c) => c.byMechanism.fork > c.forksWithoutExec);
  const lines = forking.slice(0, 5).map((c) => text(siteLine(c, s.wallNs)));
  if (forking.length > 5) lines.push(note(`… and ${plural(forking.length - 5, 'more call site')} that fork (table below)`));
  return lines;
}

function siteTable(sites: readonly CallSite[]): Block {
  const forklab = sites.some((c) => c.forklab);
  const rows = sites.map((c) => [
    siteWhere(c),
    callWords(c),
    c.function ?? '',
    String(c.source === 'native' ? c.joined : c.calls),
    String(c.byMechanism.fork),
    String(c.joined - c.byMechanism.fork),
    c.rssMb ? `${c.rssMb.median.toFixed(0)} / ${c.rssMb.max.toFixed(0)}` : '—',
    c.inForkNs > 0 ? fmtDuration(c.inForkNs) : '—',
    c.savingNs === null ? '—' : fmtDuration(c.savingNs),
    ...(forklab ? [c.forklab ? `${c.forklab.served} served, ${c.forklab.forked} forked` : ''] : []),
    SHORT[c.change.kind](c.change),
  ]);
  const header = ['call site', 'call', 'in', 'calls', 'forks', 'no fork', 'RSS MB med / max', 'in fork', 'saving ≈', ...(forklab ? ['@forklab/spawn'] : []), 'change'];
  return table(header, rows, { leftAlign: [0, 1, 2, ...(forklab ? [9, 10] : [9])] });
}

function packageTable(p: CallSiteSummary['packages']): Block {
  return table(
    ['from', 'runtime', 'call sites', 'calls', 'forks', 'saving ≈'],
    p.map((x) => [x.package ?? 'your own code', x.runtime, String(x.sites), String(x.calls), String(x.forks), x.savingNs === null ? '—' : fmtDuration(x.savingNs)]),
    { leftAlign: [0, 1] },
  );
}

/** How the call sites were observed: the recorders, their cost, the join, and what has no call site. */
export function coverageNotes(s: TraceSummary): Block[] {
  const r = s.recording;
  if (!r) return [];
  const out: Block[] = [];
  if (r.state === 'off') out.push(note(`call-site recorders: off (${r.reason})`));
  else {
    const parts = r.runtimes
      .filter((x) => x.calls > 0)
      .map((x) => {
        const cost = x.costUs ? `≈ ${x.costUs.median.toFixed(0)} µs per call (median of ${x.calls}, max ${fmtDuration(x.costUs.max * 1000)})` : '';
        const load = x.loadUs ? `, ≈ ${fmtDuration(x.loadUs.median * 1000)} to load per ${x.runtime === 'node' ? 'process or worker' : 'process'}` : '';
        return `${x.runtime} in ${plural(x.processes, 'process', 'processes')}: ${cost}${load}`;
      });
    out.push(
      note(
        `call-site recorders: ${parts.length ? parts.join('; ') : 'no call recorded'} (the recorder's own time around its work, measured by itself; it runs only when a process starts a child, and adds ${r.runtimes.some((x) => x.runtime === 'node' && x.calls) ? 'one frame to the stack of an error child_process throws' : 'nothing to the call itself'})`,
      ),
    );
    const calls = r.joinedByPid + r.joinedByTime + r.recorderOnly + r.replacedItself;
    out.push(
      note(
        `joined with strace: ${r.joinedByPid + r.joinedByTime} of ${plural(calls, 'recorded call')} (${r.joinedByPid} by the child's pid, ${r.joinedByTime} by thread and time); ` +
          `${plural(r.recorderOnly, 'call')} the recorders saw and strace did not (no child was created)` +
          `${r.replacedItself ? `; ${plural(r.replacedItself, 'os.exec* call')} replaced its process (no child)` : ''}; ` +
          `${plural(r.straceOnly, 'creation')} strace saw in those processes that no recorded call made${r.unreadLines ? `; ${r.unreadLines} recorder lines unreadable` : ''}`,
      ),
    );
  }
  // Processes without call sites, one line per reason and program: "no call sites for 22 bash processes (31 children): …".
  const groups = new Map<string, { program: string; pids: number[]; children: number; why: string }>();
  for (const u of s.uncovered ?? []) {
    const program = u.program?.split('/').pop() ?? '?';
    const g = groups.get(`${program}|${u.why}`) ?? { program, pids: [], children: 0, why: u.why };
    g.pids.push(u.pid);
    g.children += u.children;
    groups.set(`${program}|${u.why}`, g);
  }
  for (const g of groups.values()) {
    const kids = plural(g.children, 'child', 'children');
    const who = g.pids.length === 1 ? `pid ${g.pids[0]} (${g.program}, ${kids})` : `${g.pids.length} ${g.program} processes (${kids})`;
    out.push(note(`no call sites for ${who}: ${g.why}`));
  }
  return out;
}

/** The call-site blocks after the process table; [] for a trace without call sites (traceVersion 1, or none found). */
export function siteBlocks(s: TraceSummary): Block[] {
  const sites = s.callSites ?? [];
  if (!sites.length) return [];
  const out: Block[] = [blank, heading(`Call sites (${sites.length}, most saving first)`), siteTable(sites.slice(0, 40))];
  if (sites.length > 40) out.push(note(`… and ${sites.length - 40} more (forklab export, or --json, has every one)`));
  const saving = sites.filter((c) => (c.savingNs ?? 0) > 0).slice(0, 10);
  if (saving.length)
    out.push(
      blank,
      heading('Estimated saving by call site (posix_spawn launches instead of fork+exec, this machine’s model)'),
      bar(
        saving.map((c) => ({ label: siteWhere(c), value: c.savingNs! / 1e6, text: fmtDuration(c.savingNs!) })),
        'ms',
      ),
    );
  const changes = sites.filter((c) => c.change.kind !== 'none').slice(0, 8);
  if (changes.length) {
    out.push(blank, heading('What to change, call site by call site'));
    for (const c of changes) out.push(text(`${siteWhere(c)}: ${changeWords(c.change)}`));
  }
  if ((s.packages?.length ?? 0) > 1 || s.packages?.some((p) => p.package !== null)) out.push(blank, heading('By where the calls come from'), packageTable(s.packages!));
  return out;
}
