// The change that fits one call site: replace this call with @forklab/spawn's (the user's own Node code), switch
// the whole process (a Node dependency's call, which the user does not edit), change the call (Python's
// preexec_fn, a fork followed by exec by hand), upgrade the dependency named (a Python package whose call forks,
// or @forklab/spawn itself when it does not know this Node), fix the setup (@forklab/spawn's addon did not load,
// or it was switched off), or nothing (the call does not fork, or its forks are workers that never exec).
import type { CallSite, SiteChange } from './site.js';
import { adviceFor, NODE_SWITCH } from './cost.js';
import type { ProcessFigures } from './figures.js';
import { FORKLAB_SPAWN } from './stack.js';
import { REPLACES_ITSELF } from './join.js';

const PREEXEC = 'preexec_fn (start_new_session=, process_group=, user=/group= do the same without a fork)';

export function changeFor(s: Omit<CallSite, 'change'>, proc: Pick<ProcessFigures, 'byMechanism' | 'forksWithoutExec' | 'runtime'> | null): SiteChange {
  const forks = s.byMechanism.fork;
  if (s.functions.every((f) => REPLACES_ITSELF.has(f.name))) return { kind: 'none', why: 'os.exec* replaces its process: no child is created' };
  if (s.joined === 0) return { kind: 'none', why: 'strace saw no child of these calls' };
  if (forks === 0)
    return {
      kind: 'none',
      why: s.forklab?.served ? `served by ${FORKLAB_SPAWN} (posix_spawn)` : "its children were started with vfork or clone(CLONE_VM): no copy of the parent's page tables",
    };
  if (forks === s.forksWithoutExec) return { kind: 'none', why: "its forks never exec'd (workers running the parent's code): posix_spawn cannot replace them" };
  if (s.source === 'native') {
    const a = proc ? adviceFor(proc) : null;
    return a && a.change !== 'nothing to change' ? { kind: 'switch-process', text: a.change } : { kind: 'none', why: a?.why ?? `no change known for ${s.runtime}` };
  }
  const fn = s.functions[0]?.name ?? 'spawn';
  if (s.runtime === 'node') {
    if (s.forklab?.forked) {
      const reasons = Object.keys(s.forklab.reasons);
      const internals = reasons.find((r) => r.startsWith('node internals'));
      if (internals)
        return { kind: 'upgrade-dependency', package: FORKLAB_SPAWN, text: `upgrade ${FORKLAB_SPAWN}: this version does not know this Node's child_process (${internals})` };
      const missing = reasons.find((r) => r.startsWith('unavailable'));
      if (missing) return { kind: 'fix-setup', text: `${FORKLAB_SPAWN} could not load its addon here (${missing}): rebuild it on this machine (npm rebuild ${FORKLAB_SPAWN})` };
      if (reasons.some((r) => r.startsWith('disabled')))
        return { kind: 'fix-setup', text: `FORKLAB_SPAWN=off was set, so ${FORKLAB_SPAWN} left every call to child_process: unset it` };
      const option = reasons.find((r) => r === 'uid' || r === 'gid');
      if (option)
        return {
          kind: 'change-call',
          text: `this call passes ${option}, which ${FORKLAB_SPAWN} leaves to child_process (a fork): start the child as this user if it can, or keep the fork`,
        };
      return {
        kind: 'change-call',
        text: `${FORKLAB_SPAWN} was in the call but child_process forked (its reason, said once per process, is on the channel 'forklab:spawn:fallback'; FORKLAB_SPAWN_LOG=1 prints it)`,
      };
    }
    if (s.package === null)
      return { kind: 'replace-call', text: `replace ${fn} from node:child_process with ${fn} from ${FORKLAB_SPAWN} (the same arguments); or switch the process: ${NODE_SWITCH}` };
    return { kind: 'switch-process', text: `switch the process: ${NODE_SWITCH}: it serves ${s.package}'s calls without a change to its code` };
  }
  if (s.runtime === 'python') {
    const byHand = fn === 'os.fork' || fn === 'os.forkpty';
    const what = byHand ? 'starts its child with os.fork and then os.exec*' : `passes ${PREEXEC.split(' ')[0]} (or another option that makes subprocess fork)`;
    if (s.package) return { kind: 'upgrade-dependency', package: s.package, text: `upgrade ${s.package}, or ask its maintainers to change the call: it ${what}` };
    return byHand
      ? { kind: 'change-call', text: 'start the child with subprocess.run/Popen (without preexec_fn) or os.posix_spawn instead of os.fork followed by os.exec*' }
      : { kind: 'change-call', text: `drop ${PREEXEC} at this call; keep close_fds at its default` };
  }
  return { kind: 'none', why: `no change known for ${s.runtime}` };
}

/** The change in words, for a table cell or an answer line. */
export const changeWords = (c: SiteChange): string => (c.kind === 'none' ? `nothing to change: ${c.why}` : c.text);
