// `forklab trace` names the line of code: real Node and Python programs the tests write and run under the tracer
// with the call-site recorders, and the call sites, counts and joins with strace they must give. ES modules, CommonJS,
// a worker thread, a child_process call inside a dependency in node_modules, a compiled TypeScript program with its
// source map, @forklab/spawn served and falling back, a Python subprocess loop with preexec_fn, a dependency in
// site-packages, a fork and exec by hand, and the user's own sitecustomize. Structure only: no timing is asserted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, sandbox, startCli, waitFor, type Sandbox } from './helpers/cli.js';
import type { TraceSummary } from '../src/experiments/trace/summary.js';
import type { CallSite } from '../src/experiments/trace/site.js';

const LIMIT_MS = 240_000;
const hasStrace = spawnSync('strace', ['-V'], { timeout: 60_000 }).status === 0;
const stackTraces = hasStrace && /stack-trace=/.test(String(spawnSync('strace', ['-V'], { encoding: 'utf8', timeout: 60_000 }).stdout));
const python = spawnSync('python3', ['-c', 'import sys; assert sys.version_info >= (3, 8)'], { timeout: 60_000 }).status === 0 ? 'python3' : null;
const noStrace = hasStrace ? false : 'strace is not installed (apt-get install strace)';
const QUICK = ['--overhead-iterations', '0', '--model', 'none', '--no-store'];

function trace(box: Sandbox, args: string[], command: string[], env: NodeJS.ProcessEnv = {}) {
  const json = join(box.dir, `trace-${Math.random().toString(36).slice(2)}.json`);
  const r = runCli(box, ['trace', '--json', json, ...args, '--', ...command], { limitMs: LIMIT_MS, env });
  const doc = existsSync(json) ? JSON.parse(readFileSync(json, 'utf8')) : null;
  return { ...r, summary: (doc?.summary ?? null) as TraceSummary | null };
}

/** "file:line:column" of the first `needle` in file (1-based, as V8 and CPython report a call). */
function at(dir: string, file: string, needle: string): string {
  const lines = readFileSync(join(dir, file), 'utf8').split('\n');
  const i = lines.findIndex((l) => l.includes(needle));
  assert.ok(i >= 0, `${needle} is in ${file}`);
  return `${file}:${i + 1}:${lines[i]!.indexOf(needle) + 1}`;
}

const siteAt = (s: TraceSummary, place: string): CallSite => {
  const site = s.callSites!.find((c) => `${(c.own ?? c.at)!.file}:${(c.own ?? c.at)!.line}:${(c.own ?? c.at)!.column}` === place);
  assert.ok(site, `a call site at ${place} among ${s.callSites!.map((c) => c.label).join(' | ')}`);
  return site;
};

const NODE_APP = `import { spawn } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { writeFileSync } from 'node:fs';
import { buildAll } from './lib.cjs';
import git from 'fakegit';

writeFileSync(process.env.SEEN, JSON.stringify({ nodeOptions: process.env.NODE_OPTIONS }));
const keep = [];
for (let i = 0; i < 4; i++) keep.push(Buffer.alloc(16 << 20, 1));
async function collectChanges() {
  for (let i = 0; i < 4; i++) await new Promise((r) => spawn('/bin/true', [], { stdio: 'ignore' }).on('exit', r));
}
await collectChanges();
buildAll();
for (let i = 0; i < 3; i++) await git.status();
await new Promise((r) => new Worker(new URL('./worker.cjs', import.meta.url)).on('exit', r));
await new Promise((r) => spawn('/no/such/program').on('error', r));
process.stdout.write('app done\\n');
process.exitCode = 3;
`;
const NODE_LIB = `const { execFileSync } = require('node:child_process');
exports.buildAll = function buildAll() {
  for (let i = 0; i < 2; i++) execFileSync('/bin/true');
};
`;
const NODE_WORKER = `const { spawnSync } = require('node:child_process');
for (let i = 0; i < 2; i++) spawnSync('/bin/true');
`;
const NODE_DEP = `const { execFile } = require('child_process');
exports.status = function status() {
  return new Promise((resolve, reject) => execFile('/bin/true', [], (e) => (e ? reject(e) : resolve())));
};
`;

function nodeProgram(box: Sandbox): void {
  writeFileSync(join(box.dir, 'app.mjs'), NODE_APP);
  writeFileSync(join(box.dir, 'lib.cjs'), NODE_LIB);
  writeFileSync(join(box.dir, 'worker.cjs'), NODE_WORKER);
  mkdirSync(join(box.dir, 'node_modules', 'fakegit'), { recursive: true });
  writeFileSync(join(box.dir, 'node_modules', 'fakegit', 'package.json'), JSON.stringify({ name: 'fakegit', version: '1.0.0', main: 'index.js' }));
  writeFileSync(join(box.dir, 'node_modules', 'fakegit', 'index.js'), NODE_DEP);
}

test('node: ES module, CommonJS, a worker and a dependency: each call site, its count and its join with strace', { skip: noStrace, timeout: LIMIT_MS }, () => {
  const box = sandbox();
  nodeProgram(box);
  const seen = join(box.dir, 'seen.json');
  const r = trace(box, ['--overhead-iterations', '0', '--model', 'measure', '--no-store'], [process.execPath, 'app.mjs'], { SEEN: seen, NODE_OPTIONS: '--max-old-space-size=300' });
  // The program's own: output, exit status, and the user's NODE_OPTIONS first, the recorder appended.
  assert.equal(r.code, 3, r.stderr);
  assert.equal(r.stdout, 'app done\n');
  const nodeOptions = JSON.parse(readFileSync(seen, 'utf8')).nodeOptions as string;
  assert.match(nodeOptions, /^--max-old-space-size=300 --require=\S+\/rec\/node\/record\.cjs$/);
  const s = r.summary!;
  const own = siteAt(s, at(box.dir, 'app.mjs', "spawn('/bin/true'"));
  assert.equal(own.calls, 4);
  assert.equal(own.joined, 4);
  assert.equal(own.byMechanism.fork, 4);
  assert.equal(own.package, null);
  assert.equal(own.function, 'collectChanges');
  assert.deepEqual(own.functions, [{ name: 'spawn', calls: 4 }]);
  assert.equal(own.change.kind, 'replace-call');
  assert.ok(own.rssMb && own.rssMb.median > 48, `the creator's RSS at the forks (${JSON.stringify(own.rssMb)})`);
  assert.ok(own.savingNs !== null && own.savingNs >= 0);
  const cjs = siteAt(s, at(box.dir, 'lib.cjs', 'execFileSync('));
  assert.deepEqual([cjs.calls, cjs.joined, cjs.functions[0]!.name, cjs.function], [2, 2, 'execFileSync', 'buildAll']);
  const dep = siteAt(s, at(box.dir, 'app.mjs', 'status()'));
  assert.deepEqual([dep.calls, dep.joined, dep.package, dep.change.kind], [3, 3, 'fakegit', 'switch-process']);
  assert.match(dep.at!.file, /^node_modules\/fakegit\/index\.js$/);
  const worker = siteAt(s, at(box.dir, 'worker.cjs', 'spawnSync('));
  assert.deepEqual([worker.calls, worker.joined, worker.functions[0]!.name], [2, 2, 'spawnSync']);
  const failed = siteAt(s, at(box.dir, 'app.mjs', "spawn('/no/such/program')"));
  assert.equal(failed.calls, 1);
  const rec = s.recording!;
  assert.equal(rec.state, 'on');
  if (rec.state !== 'on') return;
  const node = rec.runtimes.find((x) => x.runtime === 'node')!;
  assert.equal(node.calls, 12);
  assert.equal(node.threads, 2, 'the main thread and the worker recorded');
  assert.ok(node.costUs && node.costUs.median > 0, 'the recorder measured its own cost');
  // Every call is accounted for: joined by pid, by time, or counted as seen by the recorder only.
  assert.equal(rec.joinedByPid + rec.joinedByTime + rec.recorderOnly, 12);
  assert.ok(rec.joinedByPid >= 9, `the calls that return their child's pid are joined by it (${rec.joinedByPid})`);
  assert.equal(rec.straceOnly, 0);
  assert.deepEqual(s.uncovered, []);
  // The answer leads with the call sites, and the report shows them.
  const lines = r.stderr.split('\n');
  assert.match(lines[lines.findIndex((l) => l.startsWith('forklab trace: /')) + 1]!, /^app\.mjs:\d+:\d+ spawn\('true'\) in collectChanges: 4 forks from \d+ MB/);
  assert.match(r.stderr, /Call sites \(\d+, most saving first\)/);
  assert.match(r.stderr, /fakegit +node +1 +3 +3/);
  assert.match(r.stderr, /call-site recorders: node in 1 process: ≈ \d+ µs per call/);
});

test('a compiled TypeScript program: its call site by the source map, read from the file or by Node itself', { skip: noStrace, timeout: 2 * LIMIT_MS }, () => {
  const box = sandbox();
  cpSync(new URL('./fixtures/trace/mapped/', import.meta.url), box.dir, { recursive: true });
  const want = at(box.dir, 'build.mts', 'spawn(step.program');
  for (const flags of [[], ['--enable-source-maps']]) {
    const r = trace(box, QUICK, [process.execPath, ...flags, 'build.mjs']);
    assert.equal(r.code, 0, r.stderr);
    const site = siteAt(r.summary!, want);
    assert.equal(site.calls, 2);
    assert.equal(site.function, 'runStep');
    assert.equal(site.own!.mapped, flags.length ? 'runtime' : 'file');
  }
});

test('@forklab/spawn in the program: the call sites say what it served and what fell back', { skip: noStrace, timeout: LIMIT_MS }, () => {
  const box = sandbox();
  const root = process.getuid?.() === 0;
  writeFileSync(
    join(box.dir, 'served.mjs'),
    `import { spawn } from 'node:child_process';
for (let i = 0; i < 3; i++) await new Promise((r) => spawn('/bin/true').on('exit', r));
${root ? "await new Promise((r) => spawn('/bin/true', [], { uid: 0 }).on('exit', r));" : ''}
`,
  );
  const register = import.meta.resolve('@forklab/spawn/register').replace(/\/register\.js$/, '/cjs/register.js');
  const r = trace(box, QUICK, [process.execPath, '-r', new URL(register).pathname, 'served.mjs']);
  assert.equal(r.code, 0, r.stderr);
  const served = siteAt(r.summary!, at(box.dir, 'served.mjs', "spawn('/bin/true')"));
  assert.deepEqual(served.forklab, { calls: 3, served: 3, forked: 0, reasons: {} });
  assert.equal(served.byMechanism['clone-vm-vfork'], 3);
  assert.equal(served.change.kind, 'none');
  if (root) {
    const uid = siteAt(r.summary!, at(box.dir, 'served.mjs', "spawn('/bin/true', [], { uid"));
    assert.deepEqual(uid.forklab, { calls: 1, served: 0, forked: 1, reasons: { uid: 1 } });
    assert.equal(uid.change.kind, 'change-call');
  }
});

const PY_DEP = `import subprocess


def status():
    return subprocess.run(['/bin/true'], preexec_fn=lambda: None).returncode
`;
const PY_LOOP = `import os
import subprocess
import fakepkg


def build():
    for _ in range(5):
        subprocess.run(['/bin/true'])


def isolated():
    for _ in range(2):
        subprocess.run(['/bin/true'], preexec_fn=lambda: None)


keep = bytearray(32 << 20)
build()
isolated()
for _ in range(2):
    fakepkg.status()
os.system('true')
pid = os.fork()
if pid == 0:
    os.execv('/bin/true', ['true'])
os.waitpid(pid, 0)
print('python done')
print(os.environ['PYTHONPATH'])
`;

test('python: a subprocess loop, preexec_fn in own code and in a dependency, fork and exec by hand; the user’s sitecustomize still runs', {
  skip: noStrace || (python ? false : 'python3 (3.8 or later) is not on PATH'),
  timeout: LIMIT_MS,
}, () => {
  const box = sandbox();
  mkdirSync(join(box.dir, 'site-packages', 'fakepkg'), { recursive: true });
  writeFileSync(join(box.dir, 'site-packages', 'fakepkg', '__init__.py'), PY_DEP);
  mkdirSync(join(box.dir, 'mine'));
  const mark = join(box.dir, 'sitecustomize-ran');
  writeFileSync(join(box.dir, 'mine', 'sitecustomize.py'), `open(${JSON.stringify(mark)}, 'w').write('yes')\n`);
  writeFileSync(join(box.dir, 'loop.py'), PY_LOOP);
  const userPath = `${join(box.dir, 'site-packages')}:${join(box.dir, 'mine')}`;
  const r = trace(box, QUICK, [python!, 'loop.py'], { PYTHONPATH: userPath });
  assert.equal(r.code, 0, r.stderr);
  const [done, seenPath] = r.stdout.trim().split('\n');
  assert.equal(done, 'python done');
  assert.match(seenPath!, new RegExp(`^\\S+/rec/python:${userPath}$`), 'the recorder first, the user’s PYTHONPATH after it');
  assert.equal(readFileSync(mark, 'utf8'), 'yes', 'the user’s sitecustomize ran');
  const s = r.summary!;
  const loop = siteAt(s, at(box.dir, 'loop.py', "subprocess.run(['/bin/true'])"));
  assert.deepEqual([loop.calls, loop.joined, loop.byMechanism.fork, loop.function, loop.change.kind], [5, 5, 0, 'build', 'none']);
  const pre = siteAt(s, at(box.dir, 'loop.py', "subprocess.run(['/bin/true'], preexec_fn"));
  assert.deepEqual([pre.calls, pre.joined, pre.byMechanism.fork, pre.change.kind], [2, 2, 2, 'change-call']);
  assert.match(pre.change.kind === 'change-call' ? pre.change.text : '', /drop preexec_fn/);
  const dep = siteAt(s, at(box.dir, 'loop.py', 'fakepkg.status()'));
  assert.deepEqual([dep.calls, dep.byMechanism.fork, dep.package, dep.change.kind], [2, 2, 'fakepkg', 'upgrade-dependency']);
  const system = siteAt(s, at(box.dir, 'loop.py', "os.system('true')"));
  assert.deepEqual([system.calls, system.joined, system.byMechanism.fork], [1, 1, 0]);
  const byHand = siteAt(s, at(box.dir, 'loop.py', 'os.fork()'));
  assert.deepEqual([byHand.calls, byHand.byMechanism.fork, byHand.change.kind], [1, 1, 'change-call']);
  const rec = s.recording!;
  assert.equal(rec.state, 'on');
  if (rec.state !== 'on') return;
  assert.equal(rec.joinedByTime, 11, 'Python names no child: every call is joined by its thread and time');
  assert.equal(rec.replacedItself, 1, 'os.execv in the forked child');
  assert.equal(rec.recorderOnly, 0);
});

test('--pid cannot inject a recorder: it says so and shows what strace alone sees', { skip: noStrace, timeout: LIMIT_MS }, async () => {
  const box = sandbox();
  const go = join(box.dir, 'go');
  const target = spawn('/bin/sh', ['-c', `while [ ! -e ${go} ]; do sleep 0.1; done; for i in 1 2 3; do /bin/true; done`], { stdio: 'ignore' });
  const kill = setTimeout(() => target.kill('SIGKILL'), LIMIT_MS);
  try {
    const json = join(box.dir, 'pid.json');
    const cli = startCli(box, ['trace', ...QUICK, '--pid', String(target.pid), '--json', json], { limitMs: LIMIT_MS });
    await waitFor('the tracer to attach', () => /^TracerPid:\s+[1-9]/m.test(readFileSync(`/proc/${target.pid}/status`, 'utf8')), 120_000);
    writeFileSync(go, '');
    const end = await cli.done;
    assert.equal(end.code, 0, cli.stderr());
    const s = JSON.parse(readFileSync(json, 'utf8')).summary as TraceSummary;
    assert.deepEqual(s.recording, {
      state: 'off',
      reason: '--pid: a running process cannot be given a recorder (it loads when the process starts), so this is what strace alone sees',
    });
    assert.equal(s.processes.find((p) => p.pid === target.pid)?.ran.find((x) => x.program === 'true')?.children, 3);
    assert.match(cli.stderr(), /call-site recorders: off \(--pid: a running process cannot be given a recorder/);
    // The shell may start one more `sleep 0.1` of its waiting loop after the tracer attached (how many depends on
    // the machine's load), so the children are counted above by program, and here only the words are checked.
    assert.match(cli.stderr(), /no call sites for pid \d+ \(\w+, \d+ children\): no call sites are available for shell/);
  } finally {
    clearTimeout(kill);
    target.kill('SIGKILL');
  }
});

test('--no-recorders leaves NODE_OPTIONS and PYTHONPATH as they are; the table says why there are no call sites', { skip: noStrace, timeout: LIMIT_MS }, () => {
  const box = sandbox();
  const seen = join(box.dir, 'env.txt');
  const r = trace(
    box,
    [...QUICK, '--no-recorders'],
    [
      process.execPath,
      '-e',
      `require('fs').writeFileSync(${JSON.stringify(seen)}, String(process.env.NODE_OPTIONS) + '|' + String(process.env.PYTHONPATH)); require('child_process').spawnSync('/bin/true')`,
    ],
    {
      NODE_OPTIONS: '--max-old-space-size=300',
      PYTHONPATH: '/nowhere',
    },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(seen, 'utf8'), '--max-old-space-size=300|/nowhere');
  assert.deepEqual(r.summary!.recording, { state: 'off', reason: '--no-recorders' });
  assert.deepEqual(r.summary!.callSites, []);
  assert.match(r.summary!.uncovered![0]!.why, /^no call sites are available for node: recorders off \(--no-recorders\)/);
});

test('--native-stacks: a program without a recorder gets native call sites from strace -k', {
  skip: noStrace || (stackTraces ? false : 'this strace has no -k'),
  timeout: LIMIT_MS,
}, () => {
  const box = sandbox();
  const r = trace(box, [...QUICK, '--native-stacks'], ['/bin/sh', '-c', 'for i in 1 2 3; do /bin/true; done']);
  assert.equal(r.code, 0, r.stderr);
  const native = r.summary!.callSites!.filter((c) => c.source === 'native');
  assert.ok(native.length > 0, r.stderr);
  assert.equal(
    native.reduce((a, c) => a + c.joined, 0),
    r.summary!.processes.reduce((a, p) => a + p.children, 0),
    'every creation of the shell is in a native call site',
  );
  assert.deepEqual(r.summary!.uncovered, []);
  assert.ok(r.summary!.tracer.args.includes('-k'));
});

test('a stored trace’s report: the call-site table and the chart of saving by call site, in HTML and Markdown', { skip: noStrace, timeout: 2 * LIMIT_MS }, () => {
  const box = sandbox();
  writeFileSync(
    join(box.dir, 'big.mjs'),
    `import { spawn } from 'node:child_process';
const keep = [];
for (let i = 0; i < 8; i++) keep.push(Buffer.alloc(16 << 20, 1));
function release() {
  return new Promise((r) => spawn('/bin/true').on('exit', r));
}
for (let i = 0; i < 4; i++) await release();
`,
  );
  const r = trace(box, ['--overhead-iterations', '0', '--model', 'measure'], [process.execPath, 'big.mjs']);
  assert.equal(r.code, 0, r.stderr);
  const id = /stored as run (\w+)/.exec(r.stderr)![1]!;
  const site = siteAt(r.summary!, at(box.dir, 'big.mjs', "spawn('/bin/true')"));
  const html = join(box.dir, 'trace.html');
  const rep = runCli(box, ['report', id, '--html', html], { limitMs: LIMIT_MS });
  assert.equal(rep.code, 0, rep.stderr);
  const page = readFileSync(html, 'utf8');
  assert.match(page, /<h3>Call sites \(1, most saving first\)<\/h3>/);
  assert.match(page, /<td>big\.mjs:\d+:\d+<\/td><td>spawn\(&#39;true&#39;\)<\/td><td>release<\/td>/);
  // The chart of saving is drawn when the model says the forks save something at this size (it may not, on a loaded machine).
  if ((site.savingNs ?? 0) > 0) assert.match(page, /<figure class="chart bars">\n<svg [^>]*role="img"[\s\S]*big\.mjs:\d+:\d+/);
  const md = runCli(box, ['report', id, '--markdown'], { limitMs: LIMIT_MS });
  assert.equal(md.code, 0, md.stderr);
  assert.match(md.stdout, /\| call site \| call \| in \| calls \| forks \|/);
});
