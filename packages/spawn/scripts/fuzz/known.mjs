// Differences the campaign finds that are known defects of @forklab/spawn (issue 42), each matched narrowly
// (the Node line, the field, and nothing else differing in it), so that anything else is still a failure.
// Printed with the first case that showed it; --strict-known counts them as failures too.

const parse = (v) => (v === undefined ? undefined : JSON.parse(v));

/** The same events (or callback arguments) but for the async context each was given. */
function onlyStores(diff, storeAt) {
  const strip = (v) => JSON.stringify(Array.isArray(v) ? v.map((e, i) => (storeAt === 'last' ? (Array.isArray(e) ? e.slice(0, -1) : e) : i === storeAt ? null : e)) : v);
  const refs = new Set(diff.reference.map((v) => strip(parse(v))));
  return diff.subject.every((v) => refs.has(strip(parse(v))));
}

export const KNOWN = {
  alsAfterGc: 'issue 42: AsyncLocalStorage lost in async callbacks on Node 20 and 22 (the napi_async_init resource is held weakly and collected)',
};

/** The name of the known defect that explains this difference, or null. */
export function knownDefect(kase, _subject, diff, major) {
  const async = !kase.fn.endsWith('Sync');
  if (async && (major === 20 || major === 22) && kase.state.als) {
    if (diff.field === 'events' && onlyStores(diff, 'last')) return KNOWN.alsAfterGc;
    if (diff.field === 'callback' && onlyStores(diff, 3)) return KNOWN.alsAfterGc;
  }
  return null;
}
