// Every runtime driver against the probe protocol, read by the same runner as the C probe (hello with the
// package's version, info, ready, samples, end, usage, done), with a tiny heap; and the driver's usage errors.
// Runtimes are found as `forklab runtimes` finds them, with FORKLAB_TEST_RUNTIMES (.ci/fetch-runtimes.sh: other
// Node lines, Bun, Deno) as the cache. A runtime this machine does not have is skipped, and says so.
import { after, test } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDriver } from '../src/experiments/runtimes/build.js';
import assert from 'node:assert/strict';
import { runProbe, describeFailure } from '../src/runner/probe.js';
import { fixedPlan } from '../src/runner/plans.js';
import { discoverRuntimes, type FoundRuntime } from '../src/experiments/runtimes/discover.js';
import { FAMILIES, familySpec, type Family } from '../src/experiments/runtimes/registry.js';
import { nativePaths } from '../src/runner/paths.js';
import { parseLine } from '../src/runner/protocol.js';
import { addProbeUsage, emptyUsageTotals } from '../src/env/witness.js';

const target = nativePaths().targetStatic;
// Compiled drivers (Go, Rust) are built once per test run, into a temporary cache (never the user's); Deno's cache goes
// there too, and Bun's transpiler cache is off, so that no runtime writes under $HOME.
const buildRoot = mkdtempSync(join(tmpdir(), 'forklab-drivers-'));
process.env.DENO_DIR = join(buildRoot, 'deno');
process.env.BUN_RUNTIME_TRANSPILER_CACHE_PATH = '0';
after(() => rmSync(buildRoot, { recursive: true, force: true }));
const testCache = process.env.FORKLAB_TEST_RUNTIMES || null;
const found = discoverRuntimes({ cacheDir: testCache });
async function runtimeOf(family: Family): Promise<FoundRuntime | null> {
  const rt = (await found).find((e): e is FoundRuntime => e.state === 'found' && e.family === family && e.selected);
  return rt ? ready(rt) : null;
}

/** Every selected runtime of a family (each Node line found), or a reason to skip. */
async function runtimesOf(family: Family): Promise<FoundRuntime[]> {
  return Promise.all((await found).filter((e): e is FoundRuntime => e.state === 'found' && e.family === family && e.selected).map(ready));
}
const missing = (family: Family) =>
  `${family} is not installed here (${familySpec(family).install}${testCache ? '' : '; FORKLAB_TEST_RUNTIMES is unset: .ci/fetch-runtimes.sh DIR fetches Node 22/24/26, Bun and Deno'})`;

// A compiled driver is built first; a slow start (Java compiles the driver from source) is slower on a busy machine.
const timeoutMs = (family: Family) => (familySpec(family).traceTimeoutMs ? 240_000 : familySpec(family).build ? 120_000 : 60_000);
const FAMILIES_TESTED: readonly Family[] = FAMILIES.map((f) => f.family);

const builds = new Map<string, Promise<string>>();
async function ready(rt: FoundRuntime): Promise<FoundRuntime> {
  if (!familySpec(rt.family).build) return rt;
  const family = rt.family;
  if (!builds.has(rt.path))
    builds.set(
      rt.path,
      buildDriver(family, rt.path, rt.version, buildRoot, { note() {} }).then((b) => {
        assert.notEqual(b.state, 'failed', b.state === 'failed' ? b.why : '');
        return b.state === 'failed' ? '' : b.path;
      }),
    );
  return { ...rt, built: await builds.get(rt.path)! };
}

for (const family of FAMILIES_TESTED) {
  const spec = familySpec(family);
  for (const variant of spec.variants) {
    for (const heapKind of spec.heapKinds) {
      test(`${variant.id} (${heapKind}) speaks the probe protocol`, { timeout: 4 * timeoutMs(family) + 30_000 }, async (t) => {
        const all = await runtimesOf(family);
        if (all.length === 0) return t.skip(missing(family));
        for (const rt of all) {
          if (rt.unavailable[variant.caseName]) {
            t.diagnostic(`${rt.name}: ${variant.id} is unavailable (${rt.unavailable[variant.caseName]})`);
            continue;
          }
          const r = await runProbe({
            probePath: '/nonexistent',
            command: spec.driver!(rt, variant, 2),
            caseName: variant.caseName,
            args: { target, 'heap-mb': 2, 'heap-kind': heapKind },
            plan: fixedPlan(1, 3),
            timeoutMs: timeoutMs(family),
          });
          assert.equal(r.state, 'ok', r.state === 'failed' ? `${describeFailure(r.reason)}\n${r.stderr}` : '');
          assert.equal(r.series.length, 1);
          assert.equal(r.series[0]!.series, variant.caseName);
          assert.equal(r.series[0]!.samplesNs.length, 3, 'exactly the timed spawns asked for; the warm-up is not recorded');
          for (const ns of r.series[0]!.samplesNs) assert.ok(Number.isSafeInteger(ns) && ns > 0);
          assert.equal(r.info.runtime, family);
          assert.equal(typeof r.info.runtimeVersion, 'string');
          assert.equal(r.info.heapKind, heapKind);
          assert.equal(r.info.heapMb, 2);
          assert.ok(typeof r.info.rssKb === 'number' && r.info.rssKb > 2048, 'the heap is resident');
          assert.equal(r.info.runtimeVersion, rt.version, rt.name);
          assert.ok(r.usage, `${rt.name} ${variant.id} sends the usage line (the noise witness)`);
          assert.ok(Number.isSafeInteger(r.usage!.nivcsw) && Number.isSafeInteger(r.usage!.nvcsw));
        }
      });
    }
  }

  test(`the ${family} driver refuses an unknown case, an unknown key and a missing target`, { timeout: 3 * timeoutMs(family) }, async (t) => {
    const rt = await runtimeOf(family);
    if (!rt) return t.skip(missing(family));
    const v = spec.variants[0]!;
    const attempts: [string, Record<string, string | number>, RegExp][] = [
      ['no-such-case', { target }, /unknown case/],
      [v.caseName, { target, colour: 'blue' }, /unknown argument: colour/],
      [v.caseName, { 'heap-mb': 0 }, /missing argument: target/],
    ];
    for (const [caseName, args, message] of attempts) {
      const r = await runProbe({ probePath: '/nonexistent', command: spec.driver!(rt, v, 0), caseName, args, plan: fixedPlan(0, 1), timeoutMs: timeoutMs(family) });
      assert.equal(r.state, 'failed');
      if (r.state !== 'failed') continue;
      // An unknown case is reported by the driver as a usage error after a hello naming that case.
      assert.equal(r.reason.kind, 'probe-error', describeFailure(r.reason));
      if (r.reason.kind === 'probe-error') {
        assert.equal(r.reason.call, 'usage');
        assert.match(r.reason.message, message);
      }
    }
  });
}

for (const family of FAMILIES_TESTED) {
  test(`${family}: a target that cannot be started is an error line, not a hang or a fake sample`, { timeout: 2 * timeoutMs(family) + 30_000 }, async (t) => {
    const rt = await runtimeOf(family);
    if (!rt) return t.skip(missing(family));
    const spec = familySpec(family);
    // Every Node variant; one of each other runtime (Java starts slowly).
    for (const v of spec.variants.filter((x) => x.caseName !== 'forklab-spawn').slice(0, family === 'node' ? 2 : 1)) {
      const r = await runProbe({
        probePath: '/nonexistent',
        command: spec.driver!(rt, v, 0),
        caseName: v.caseName,
        args: { target: '/nonexistent/forklab-target' },
        plan: fixedPlan(0, 2),
        timeoutMs: timeoutMs(family),
      });
      assert.equal(r.state, 'failed');
      if (r.state === 'failed') assert.equal(r.reason.kind, 'probe-error', describeFailure(r.reason));
      assert.equal(r.series.length, 0);
    }
  });
}

test("a runtime driver's usage line may leave the children's switches out (null); the witness sums what it has", () => {
  const p = parseLine('{"type":"usage","nivcsw":4,"nvcsw":9,"childNivcsw":null,"migrations":1}');
  assert.ok(p.ok && p.message.type === 'usage');
  const totals = emptyUsageTotals();
  if (p.ok && p.message.type === 'usage') addProbeUsage(totals, p.message.usage, 100);
  addProbeUsage(totals, { nivcsw: 1, nvcsw: 1, childNivcsw: 3, migrations: null }, 100);
  assert.equal(totals.involuntarySwitches, 5);
  assert.equal(totals.childInvoluntarySwitches, 3);
  assert.equal(parseLine('{"type":"usage","nivcsw":4,"nvcsw":9,"childNivcsw":-2,"migrations":1}').ok, false);
});
