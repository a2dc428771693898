// Call sites: the recorded calls grouped by the first frame of the user's own code and by the package the call came
// from, each with what strace saw of its children (mechanisms, time in the creating call, the creator's size), what
// its forks would save as posix_spawn launches here, what @forklab/spawn served, and the change that fits. Processes
// without a recorder give native call sites where strace -k unwound their calls. Pure: frames are read by the
// FrameReader the caller passes.
import { median } from '../../stats/descriptive.js';
import { forkSavingNs, type SpawnModel } from './cost.js';
import type { CallFigure, ProcessFigures } from './figures.js';
import type { JoinedCall, Join } from './join.js';
import { MECHANISMS, type Creation, type Mechanism, type Runtime } from './model.js';
import { where, type FrameReader, type SiteFrame } from './stack.js';
import { changeFor } from './change.js';
import type { CallSite } from './site.js';

const base = (p: string) => p.split('/').pop() || p;
const count = (xs: string[]) =>
  [...xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>())].map(([k, n]) => ({ k, n })).sort((a, b) => b.n - a.n || a.k.localeCompare(b.k));

/** The words of a frame in a label: "src/build.ts:42:7 in collectChanges". */
const frameWords = (f: SiteFrame) => `${where(f)}${f.fn ? ` in ${f.fn}` : ''}`;

/** What names a call site, before its calls are summed. */
type SiteHead = Pick<CallSite, 'label' | 'runtime' | 'source' | 'own' | 'at' | 'package' | 'function'>;

interface Member {
  runtime: Runtime;
  fn: string;
  command: string;
  creation: Creation | null;
  figure: CallFigure | null;
  processRssMb: number | null;
  forklab: { used: boolean; reasons: string[] } | null;
  pid: number;
}

function siteOf(frames: readonly SiteFrame[]): { own: SiteFrame | null; at: SiteFrame | null; package: string | null; function: string | null } {
  const at = frames.find((f) => f.kind !== 'forklab-spawn') ?? null;
  const i = frames.findIndex((f) => f.kind === 'own');
  const own = i >= 0 ? frames[i]! : null;
  const f = own ?? at;
  const named = f ? frames.slice(frames.indexOf(f)).find((x) => x.file === f.file && x.fn && x.fn !== '<module>') : undefined;
  return { own, at, package: at?.kind === 'dependency' ? at.package : null, function: named?.fn ?? null };
}

/** A native frame worth naming: the first outside the C library, the dynamic loader and the unwinder. */
export function nativeFrame(stack: readonly string[]): string | null {
  for (const f of stack) {
    const m = /^(\S+?)\(([^)]*)\)/.exec(f);
    const file = m?.[1] ?? f;
    if (/\/(libc|libpthread|ld-linux[^/]*|libunwind[^/]*)\.so/.test(file) || /\/ld-linux/.test(file)) continue;
    const sym = m?.[2] ?? '';
    const addr = /\[(0x[0-9a-f]+)\]/.exec(f)?.[1];
    return `${base(file)} ${sym && !/^\+0x0$/.test(sym) ? sym : (addr ?? '')}`.trim();
  }
  return null;
}

export function callSites(o: { join: Join; figures: readonly ProcessFigures[]; creations: readonly Creation[]; model: SpawnModel | null; reader: FrameReader }): CallSite[] {
  const figure = new Map<string, { call: CallFigure; p: ProcessFigures }>();
  for (const p of o.figures) for (const c of p.calls) figure.set(`${p.pid}|${c.child}`, { call: c, p });
  const groups = new Map<string, { site: SiteHead; members: Member[] }>();
  const add = (key: string, site: () => SiteHead, m: Member) => {
    const g = groups.get(key);
    if (g) g.members.push(m);
    else groups.set(key, { site: site(), members: [m] });
  };
  const member = (runtime: Runtime, fn: string, command: string, creation: Creation | null, pid: number, forklab: Member['forklab']): Member => {
    const f = creation ? figure.get(`${creation.pid}|${creation.child}`) : undefined;
    return { runtime, fn, command, creation, figure: f?.call ?? null, processRssMb: f?.p.rssMb?.median ?? null, forklab, pid };
  };
  for (const j of o.join.calls as JoinedCall[]) {
    const frames = j.call.frames.map((f) => o.reader.read(f));
    const s = siteOf(frames);
    const used = frames.some((f) => f.kind === 'forklab-spawn') || Boolean(j.call.forklab?.handle) || Boolean(j.call.forklab?.fallback.length);
    const runtime: Runtime = j.call.runtime;
    const key = s.own ? `own|${where(s.own)}|${s.package ?? ''}` : s.at ? `at|${where(s.at)}` : `none|${runtime}`;
    const label = () =>
      s.own ? frameWords(s.own) : s.at ? `${frameWords(s.at)} (no frame of your own code in the stack)` : `(no ${runtime} frame outside the runtime's own code)`;
    add(
      key,
      () => ({ label: label(), runtime, source: 'recorded', own: s.own, at: s.at, package: s.package, function: s.function }),
      member(runtime, j.call.fn, j.call.command, j.creation, j.call.pid, used ? { used, reasons: j.call.forklab?.fallback ?? [] } : null),
    );
  }
  // Processes without a recorder's calls: their creations by strace -k's first frame outside libc.
  const byPid = new Map(o.figures.map((p) => [p.pid, p]));
  for (const c of o.creations) {
    if (o.join.recordedPids.has(c.pid) || !c.stack?.length) continue; // a recorded process's other creations are counted, not guessed at
    const frame = nativeFrame(c.stack);
    if (!frame) continue;
    const program = base(c.program ?? '?');
    const runtime = byPid.get(c.pid)?.runtime ?? 'other';
    add(
      `native|${program}|${frame}`,
      () => ({ label: `${frame} (${program}, native)`, runtime, source: 'native', own: null, at: null, package: null, function: null }),
      member(runtime, c.syscall, c.exec ? base(c.exec.path) : '', c, c.pid, null),
    );
  }
  const sites: CallSite[] = [];
  for (const { site, members } of groups.values()) {
    const byMechanism = Object.fromEntries(MECHANISMS.map((m) => [m, 0])) as Record<Mechanism, number>;
    let inCallNs = 0;
    let inForkNs = 0;
    let saving = 0;
    let forksWithoutExec = 0;
    const rss: number[] = [];
    for (const m of members) {
      const c = m.creation;
      if (!c) continue;
      byMechanism[c.mechanism]++;
      const d = m.figure?.durationNs ?? 0;
      inCallNs += d;
      if (c.mechanism !== 'fork') continue;
      inForkNs += d;
      const rssMb = m.figure?.rssKb != null ? m.figure.rssKb / 1024 : m.processRssMb;
      if (rssMb !== null) rss.push(rssMb);
      if (c.toExecS === null) forksWithoutExec++;
      else if (o.model && rssMb !== null) saving += forkSavingNs(o.model, rssMb).savingNs;
    }
    const fk = members.filter((m) => m.forklab);
    const reasons: Record<string, number> = {};
    for (const m of fk) for (const r of m.forklab!.reasons) reasons[r] = (reasons[r] ?? 0) + 1;
    const forklab = fk.length
      ? {
          calls: fk.length,
          served: fk.filter((m) => m.creation && m.creation.mechanism !== 'fork').length,
          forked: fk.filter((m) => m.creation?.mechanism === 'fork').length,
          reasons,
        }
      : null;
    const joined = members.filter((m) => m.creation).length;
    const partial: Omit<CallSite, 'change'> = {
      ...site,
      functions: count(members.map((m) => m.fn)).map(({ k, n }) => ({ name: k, calls: n })),
      commands: count(members.map((m) => base(m.command) || '?')).map(({ k, n }) => ({ command: k, calls: n })),
      calls: site.source === 'recorded' ? members.length : 0,
      joined,
      byMechanism,
      forksWithoutExec,
      inCallNs,
      inForkNs,
      rssMb: rss.length ? { median: median(rss), max: Math.max(...rss) } : null,
      savingNs: o.model ? saving : null,
      forklab,
      pids: [...new Set(members.map((m) => m.pid))].slice(0, 8),
    };
    const proc = byPid.get(members[0]!.pid);
    sites.push({ ...partial, change: changeFor(partial, proc ?? null) });
  }
  return sites.sort((a, b) => (b.savingNs ?? 0) - (a.savingNs ?? 0) || b.byMechanism.fork - a.byMechanism.fork || b.calls - a.calls || a.label.localeCompare(b.label));
}

/** The call sites summed by the package they come from (null: the user's own code), most saving first. */
export interface PackageSites {
  package: string | null;
  runtime: Runtime;
  sites: number;
  calls: number;
  forks: number;
  savingNs: number | null;
}

export function bySource(sites: readonly CallSite[]): PackageSites[] {
  const out = new Map<string, PackageSites>();
  for (const s of sites) {
    if (s.source !== 'recorded') continue;
    const k = `${s.runtime}|${s.package ?? ''}`;
    const p = out.get(k) ?? { package: s.package, runtime: s.runtime, sites: 0, calls: 0, forks: 0, savingNs: s.savingNs === null ? null : 0 };
    p.sites++;
    p.calls += s.calls;
    p.forks += s.byMechanism.fork;
    if (s.savingNs !== null) p.savingNs = (p.savingNs ?? 0) + s.savingNs;
    out.set(k, p);
  }
  return [...out.values()].sort((a, b) => (b.savingNs ?? 0) - (a.savingNs ?? 0) || b.forks - a.forks || b.calls - a.calls);
}
