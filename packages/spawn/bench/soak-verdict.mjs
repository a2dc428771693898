// bench:soak's pure parts: reading /proc's text, the least-squares slope, the verdict on the samples (flat or not,
// naming what grew) and the table. No I/O here, so that they can be unit-tested (test/bench-helpers.test.ts).

/** { pid, comm, state, ppid } from the text of /proc/PID/stat (the command name may hold spaces and parentheses). */
export function parseStat(text) {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const rest = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  const pid = Number(text.slice(0, open).trim());
  const ppid = Number(rest[1]);
  if (!Number.isInteger(pid) || !Number.isInteger(ppid) || !rest[0]) return null;
  return { pid, comm: text.slice(open + 1, close), state: rest[0], ppid };
}

/** VmRSS in MiB from the text of /proc/PID/status (null when absent). */
export function parseRssMb(text) {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(text);
  return m ? Number(m[1]) / 1024 : null;
}

/** Least-squares slope of ys against xs (null with fewer than two distinct xs). */
export function slope(xs, ys) {
  const n = xs.length;
  if (n < 2 || ys.length !== n) return null;
  const mx = xs.reduce((a, x) => a + x, 0) / n;
  const my = ys.reduce((a, y) => a + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
  }
  return sxx === 0 ? null : sxy / sxx;
}

const median = (xs) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * The bounds a run is judged by, from its size: descriptors may move by what each connection holds in flight (its
 * socket, and its child's pidfd and pipe end: 3 per connection) plus 8, and must come back to their idle count within 2; zombies are
 * transient (at most one per connection while its exit is being handled) and none is left at idle; RSS may grow
 * by at most max(32 MiB, 0.25 KiB per request) along its fitted line (a leak of one small object per request is
 * about 0.1-0.2 KiB; a leaked child handle about 2 KiB) and move within 15 % of its first value plus 64 MiB; the
 * event loop's p99 delay in the last third of the samples at most twice that of the first third plus 10 ms.
 */
export function soakBounds(connections, requests) {
  return {
    fdMove: 3 * connections + 8,
    fdIdle: 2,
    zombiesInFlight: connections,
    rssGrowthMb: Math.max(32, (0.25 * requests) / 1024),
    rssRangeFraction: 0.15,
    rssRangeMb: 64,
    loopFactor: 2,
    loopPlusMs: 10,
  };
}

/**
 * samples: [{ tS, requests, fds, zombies, rssMb, loopP99Ms }] taken under load; idle: { before, after } each
 * { fds, zombies, rssMb } at rest before the load and after it. The first `warmup` fraction of the samples (by
 * requests) is left out of the slopes and ranges. Returns { flat, checks: [{ what, flat, detail }], leaked: [what] }.
 */
export function soakVerdict(samples, idle, bounds, warmup = 0.1) {
  const total = samples.length ? samples[samples.length - 1].requests : 0;
  const steady = samples.filter((s) => s.requests >= warmup * total);
  const checks = [];
  const xs = steady.map((s) => s.requests);
  const span = xs.length ? xs[xs.length - 1] - xs[0] : 0;
  const range = (k) => {
    const v = steady.map((s) => s[k]).filter((x) => typeof x === 'number');
    return v.length ? [Math.min(...v), Math.max(...v)] : [null, null];
  };
  // descriptors
  const fdSlope = slope(
    xs,
    steady.map((s) => s.fds),
  );
  const [fdLo, fdHi] = range('fds');
  const fdGrowth = fdSlope === null ? 0 : fdSlope * span;
  const fdIdleDelta = idle.after.fds - idle.before.fds;
  const fdFlat = fdGrowth <= bounds.fdMove && fdHi - fdLo <= bounds.fdMove && fdIdleDelta <= bounds.fdIdle;
  checks.push({
    what: 'descriptors',
    flat: fdFlat,
    detail: `${fdLo}-${fdHi} under load (bound: a range of ${bounds.fdMove}), fitted growth ${fdGrowth.toFixed(1)} over ${span} requests; idle ${idle.before.fds} before, ${idle.after.fds} after (bound +${bounds.fdIdle})`,
  });
  // zombies
  const zMax = Math.max(0, ...steady.map((s) => s.zombies));
  const zFlat = zMax <= bounds.zombiesInFlight && idle.after.zombies === 0;
  checks.push({ what: 'zombies', flat: zFlat, detail: `at most ${zMax} at a sample under load (bound ${bounds.zombiesInFlight}), ${idle.after.zombies} at idle after (bound 0)` });
  // RSS
  const rssSlope = slope(
    xs,
    steady.map((s) => s.rssMb),
  );
  const [rLo, rHi] = range('rssMb');
  const rssGrowth = rssSlope === null ? 0 : rssSlope * span;
  const rssRangeBound = bounds.rssRangeFraction * (steady[0]?.rssMb ?? 0) + bounds.rssRangeMb;
  const rFlat = rssGrowth <= bounds.rssGrowthMb && (rHi ?? 0) - (rLo ?? 0) <= rssRangeBound;
  checks.push({
    what: 'RSS',
    flat: rFlat,
    detail: `${rLo?.toFixed(0)}-${rHi?.toFixed(0)} MiB (bound: a range of ${rssRangeBound.toFixed(0)}), fitted growth ${rssGrowth.toFixed(1)} MiB over ${span} requests (bound ${bounds.rssGrowthMb.toFixed(0)})`,
  });
  // event loop
  const third = Math.max(1, Math.floor(steady.length / 3));
  const first = median(steady.slice(0, third).map((s) => s.loopP99Ms));
  const last = median(steady.slice(-third).map((s) => s.loopP99Ms));
  const lFlat = first === null || last === null || last <= bounds.loopFactor * first + bounds.loopPlusMs;
  checks.push({
    what: 'event-loop delay',
    flat: lFlat,
    detail: `p99 of a 10 ms timer's lateness: median ${first?.toFixed(1)} ms over the first third of the samples, ${last?.toFixed(1)} ms over the last (bound ${bounds.loopFactor}× + ${bounds.loopPlusMs} ms)`,
  });
  const leaked = checks.filter((c) => !c.flat).map((c) => c.what);
  return { flat: leaked.length === 0 && steady.length >= 3, checks, leaked, steadySamples: steady.length };
}

/** The samples as table rows (strings), a header first. */
export function sampleTable(samples) {
  const rows = ['   t s | requests | req/s | fds | children | zombies | RSS MiB | loop p99 / max ms'];
  for (const s of samples)
    rows.push(
      `${String(Math.round(s.tS)).padStart(6)} | ${String(s.requests).padStart(8)} | ${String(Math.round(s.rps ?? 0)).padStart(5)} | ${String(s.fds).padStart(3)} | ${String(s.children).padStart(8)} | ${String(s.zombies).padStart(7)} | ${s.rssMb.toFixed(0).padStart(7)} | ${(s.loopP99Ms ?? 0).toFixed(1)} / ${(s.loopMaxMs ?? 0).toFixed(1)}`,
    );
  return rows;
}
