// Differences the campaign finds that are known defects of @forklab/spawn (issue 42), each matched narrowly
// (the Node line, the field, and nothing else differing in it), so that anything else is still a failure.
// Printed with the first case that showed it; --strict-known counts them as failures too.

const parse = (v) => (v === undefined ? undefined : JSON.parse(v));

/** Whether a subject run and a reference run agree once the async context each callback was given is left out. */
function onlyStores(diff, storeAt) {
  const strip = (v) => JSON.stringify(Array.isArray(v) ? v.map((e, i) => (storeAt === 'last' ? (Array.isArray(e) ? e.slice(0, -1) : e) : i === storeAt ? null : e)) : v);
  const refs = new Set(diff.reference.map((v) => strip(parse(v))));
  return diff.subject.some((v) => refs.has(strip(parse(v))));
}

export const KNOWN = {
  alsAfterGc: 'issue 42: AsyncLocalStorage lost in async callbacks on Node 20 and 22 (the napi_async_init resource is held weakly and collected)',
  syncTimeoutWhileWriting: "issue 42: spawnSync's timeout is not looked at while the child keeps writing",
  syncStdinClosed: "issue 42: spawnSync closes its end of the child's stdin where Node shuts it down for writing (a child writing to fd 0)",
  permissionSpoofed: 'issue 42: under the permission model, a replaced process.permission.has lets forklab start a child that Node refuses',
};

/** The name of the known defect that explains this difference, or null. */
export function knownDefect(kase, subject, diff, major) {
  const async = !kase.fn.endsWith('Sync');
  if (async && (major === 20 || major === 22) && kase.state.als) {
    if (diff.field === 'events' && onlyStores(diff, 'last')) return KNOWN.alsAfterGc;
    if (diff.field === 'callback' && onlyStores(diff, 3)) return KNOWN.alsAfterGc;
  }
  const served = subject === 'module' || subject === 'register';
  if (served && kase.fn.endsWith('Sync')) {
    if (kase.opts.timeout > 0 && kase.steps.some((s) => 'chatty' in s || 'out' in s || 'err' in s)) return KNOWN.syncTimeoutWhileWriting;
    if (kase.steps.some((s) => 'write0' in s)) return KNOWN.syncStdinClosed;
  }
  if (served && kase.state.permission === 'spoof') return KNOWN.permissionSpoofed;
  return null;
}
