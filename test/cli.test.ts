// The command line through its real parser: errors name the flag and do no work; every flag of every command
// reaches the code that reads it; --help explains them; no test touches the user's home.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { buildProgram } from '../src/cli/main.js';
import { fewSamplesWarnings } from '../src/lab/warnings.js';
import { ForklabError } from '../src/errors.js';
import { EXPERIMENTS } from '../src/experiments/index.js';
import { runCli, sandbox, shortSpawnArgs } from './helpers/cli.js';

const box = sandbox();
const cli = (...args: string[]) => runCli(box, args);
const QUICK = ['--methods', 'fork-exit', '--rss', '0', '--thp', 'off', '--repeats', '1', '--iterations', '8', '--ci-target', '0'];

/** The message of the error the real parser and command give for argv, or null when the command ran. */
async function errorOf(args: string[]): Promise<string | null> {
  const program = await buildProgram();
  program.configureOutput({ writeErr: () => {}, writeOut: () => {} });
  for (const c of program.commands) c.configureOutput({ writeErr: () => {}, writeOut: () => {} });
  try {
    await program.parseAsync(['node', 'forklab', ...args]);
    return null;
  } catch (e) {
    if (e instanceof ForklabError || e instanceof CommanderError) return e.message;
    throw e;
  }
}

test('bad input: exit 2, a message naming the flag, nothing measured', () => {
  const cases: [string[], RegExp][] = [
    [['spawn', '--methods', 'fork-exec,teleport'], /--methods: unknown value "teleport"/],
    [['spawn', '--thp', 'maybe'], /--thp: unknown value "maybe"/],
    [['spawn', '--rss', '-1'], /--rss: must be at least 0/],
    [['spawn', '--rss', 'lots'], /--rss: expected a whole number/],
    [['spawn', '--iterations', '0'], /--iterations: must be at least 1/],
    [['spawn', '--rss', '4000000'], /--rss: 4000000 MB does not fit/],
    [['spawn', '--pin', '4000'], /--pin: CPU 4000 is not one this process may run on/],
    [['spawn', '--label', ' '], /--label: is empty/],
    [['cow', '--label', 'a\nb'], /--label: contains a line break/],
    [['spawn', '--ci-target', ''], /--ci-target: expected a percentage/],
    [['spawn', '--ci-target', ' '], /--ci-target: expected a percentage/],
    [['spawn', '--ci-target', '0x5'], /--ci-target: expected a percentage/],
    [['spawn', '--json', join(box.dir, 'no', 'such', 'dir', 'out.json')], /--json: directory .* does not exist/],
    [['spawn', '--json', ''], /--json: the file name is empty/],
    [['spawn', '--json', '/proc/forklab-x.json'], /--json: cannot create files in \/proc/],
    [['spawn', '--db', ''], /--db: the path is empty/],
    [['spawn', '--no-store', '--db', join(box.dir, 'x.db')], /--db: not used with --no-store/],
  ];
  for (const [args, why] of cases) {
    const r = cli(...args, ...(args[0] !== 'spawn' || args.includes('--methods') ? [] : ['--methods', 'fork-exit']));
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, why, args.join(' '));
    assert.equal(r.stdout, '', 'no table for bad input');
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  }
  assert.equal(existsSync(box.db), false, 'nothing stored for bad input');
});

test('every flag of every experiment command reaches its parser under its own name', async () => {
  // Values that are names looked up on the machine: an unknown one is a warning of the run, not an error.
  const LOOKED_UP = new Set(['runtimes --runtimes']);
  for (const exp of EXPERIMENTS) {
    for (const o of exp.options) {
      const flag = o.flags.split(' ')[0]!;
      // An empty --db is refused after the experiment's own flags and its preflight, before anything is
      // measured: every run that gets past them stops there.
      if (!o.flags.includes('<')) {
        assert.match((await errorOf([exp.name, flag, '--db', ''])) ?? 'ran', /--db: the path is empty/, `${exp.name} ${flag} is accepted`);
        continue;
      }
      if (!LOOKED_UP.has(`${exp.name} ${flag}`)) {
        const bad = await errorOf([exp.name, flag, 'bogus', '--db', '']);
        assert.ok(bad?.includes(`${flag}:`), `${exp.name} ${flag} bogus: ${bad}`);
      }
      if (o.defaultValue !== undefined) {
        const good = await errorOf([exp.name, flag, String(o.defaultValue), '--db', '']);
        assert.match(good ?? '', /--db: the path is empty/, `${exp.name} ${flag} ${o.defaultValue} is accepted`);
      }
    }
    const first = exp.options[0]!.flags.split(' ')[0]!;
    const common: [string[], RegExp][] = [
      [['--pin', 'bogus'], /--pin: expected a whole number/],
      [['--seed', '-1'], /--seed: must be at least 0/],
      [['--json', ''], /--json: the file name is empty/],
      [['--db', ' '], /--db: the path is empty/],
      [['--no-store', '--db', 'x.db'], /--db: not used with --no-store/],
      [['--no-color', '--no-store', '--seed', 'x'], /--seed:/],
      [['--frobnicate'], /unknown option '--frobnicate'/],
    ];
    for (const [args, why] of common) assert.match((await errorOf([exp.name, ...args])) ?? 'ran', why, `${exp.name} ${args.join(' ')}`);
    assert.ok(first);
  }
  const reproduce: [string[], RegExp][] = [
    [['--only', '999'], /--only:/],
    [['--quick', '--pin', 'x'], /--pin:/],
    [['--seed', 'x'], /--seed:/],
    [['--json', ''], /--json: the file name is empty/],
    [['--no-store', '--db', 'x.db'], /--db: not used with --no-store/],
    [['--no-color', '--quick', '--db', ''], /--db: the path is empty/],
    [['--quick', '--settle', '0'], /--settle: needs a budget in seconds/],
    [['--quick', '--settle', 'soon'], /--settle: needs a budget in seconds/],
  ];
  for (const [args, why] of reproduce) assert.match((await errorOf(['reproduce', ...args])) ?? 'ran', why, `reproduce ${args.join(' ')}`);
});

test('history, show, compare, export, import and report: every flag through the real command line', () => {
  const s = sandbox();
  const run = (...args: string[]) => runCli(s, args);
  assert.equal(run('history', '--json').stdout.trim(), '[]', 'no database yet: an empty list');
  for (const cmd of [['history'], ['show', '1'], ['compare', '1', '2'], ['export', '1'], ['report', '1']]) {
    const r = run(...cmd, '--db', '');
    assert.equal(r.code, 2, `${cmd.join(' ')} --db "": ${r.stderr}`);
    assert.match(r.stderr, /--db: the path is empty/);
  }
  const missing = run('import', join(s.dir, 'missing.json'), '--db', join(s.dir, 'h.db'));
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /cannot read .*missing\.json/);
  const measured = run('spawn', ...QUICK, '--db', join(s.dir, 'h.db'), '--json', join(s.dir, 'run.json'));
  assert.equal(measured.code, 0, measured.stderr);
  const imported = run('import', join(s.dir, 'run.json'), '--db', join(s.dir, 'other.db'));
  assert.equal(imported.code, 0, imported.stderr);
  assert.equal(imported.stdout.trim(), '1');
  // "1 run in PATH": a long temporary directory (TMPDIR) moves the path to a line of its own (lines wrap at 100
  // columns, continuations indented), so the lines are joined first.
  assert.match(run('history', '--db', join(s.dir, 'other.db'), '--no-color').stdout.replace(/\n +/g, ' '), /1 run in /);
  assert.equal(JSON.parse(run('show', '1', '--json', '--db', join(s.dir, 'h.db')).stdout).experiment, 'spawn');
  assert.equal(JSON.parse(run('export', 'latest', '--db', join(s.dir, 'h.db')).stdout).schema, 'forklab.run');
  // A run compared with itself is refused (exit 2): the flags of compare are checked on other tests' two runs.
  assert.match(run('compare', '1', '1', '--json', '--db', join(s.dir, 'h.db')).stderr, /are the same run/);
  const html = join(s.dir, 'r.html');
  const md = join(s.dir, 'r.md');
  const rep = run('report', '--input', join(s.dir, 'run.json'), '--html', html, '--markdown', md);
  assert.equal(rep.code, 0, rep.stderr);
  assert.match(readFileSync(html, 'utf8'), /^<!doctype html>/i);
  assert.match(readFileSync(md, 'utf8'), /^## forklab spawn/);
  assert.match(run('report', '1', '--db', join(s.dir, 'h.db'), '--markdown').stdout, /^## forklab spawn/);
  assert.match(run('report', '--compare', '1', '1', '--db', join(s.dir, 'h.db')).stdout, /against/);
  // An unknown run: the same status from show and report.
  const show = run('show', '99', '--db', join(s.dir, 'h.db'));
  const report = run('report', '99', '--db', join(s.dir, 'h.db'));
  assert.equal(show.code, 2, show.stderr);
  assert.equal(report.code, show.code, report.stderr);
  assert.match(report.stderr, /no run 99/);
});

test('a missing probe: exit 1, the problem, then a hint of what to do; no stack trace', () => {
  const r = runCli(box, ['spawn', '--rss', '0', '--iterations', '5'], { env: { FORKLAB_NATIVE_DIR: join(box.dir, 'home') } });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^forklab spawn: the C probe is not built \(.*forklab-probe is missing\)\n {2}hint: run `npm rebuild forklab`/);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.equal(r.stdout, '');
});

test('a damaged history database: one message with its hint, exit 2, no stack trace', () => {
  const bad = join(box.dir, 'not-a-db.db');
  writeFileSync(bad, 'this is not sqlite, just text that is long enough to have a header of sorts............');
  const r = cli('history', '--db', bad);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^forklab history: .*not a SQLite database/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});

test('an unknown command or option is a usage error', () => {
  assert.equal(cli('spwan').code, 2);
  const r = cli('spawn', '--frobnicate');
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown option '--frobnicate'/);
});

test('--help explains every flag with its default', () => {
  const r = cli('spawn', '--help');
  assert.equal(r.code, 0);
  for (const flag of ['--methods', '--rss', '--thp', '--iterations', '--repeats', '--warmup', '--ci-target', '--budget-ms', '--pin', '--json', '--db', '--no-store'])
    assert.ok(r.stdout.includes(flag), flag);
  const flat = r.stdout.replace(/\s+/g, ' ');
  assert.match(flat, /\(default: 0, 128, 512, 1024 MB\)/);
  assert.match(flat, /\(default: 600 ms\)/);
  assert.match(flat, /\(default: 2 %\)/);
  assert.doesNotMatch(flat, /default: "/, 'defaults are numbers with units, not quoted strings');
  const top = cli('--help');
  assert.match(top.stdout, /spawn/);
});

test('--db is explained in the same words by every command that takes it', () => {
  const texts = new Set<string>();
  for (const cmd of ['spawn', 'cow', 'exec', 'history', 'show', 'compare', 'export', 'import', 'report', 'reproduce']) {
    const flat = cli(cmd, '--help').stdout.replace(/\s+/g, ' ');
    const m = /--db <path> (.*?\.db\))/.exec(flat);
    assert.ok(m, `${cmd} --help has --db`);
    texts.add(m[1]!);
  }
  assert.equal(texts.size, 1, [...texts].join('\n'));
  assert.match([...texts][0]!, /\$FORKLAB_DB/);
});

test('--json writes one versioned document with raw samples per configuration; a failed run never clobbers it', () => {
  const out = join(box.dir, 'spawn.json');
  const r = cli(...shortSpawnArgs('fork-exit,posix-spawn', '0,32', '--json', out, '--label', 'json test'));
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /THP off: median µs/);
  const doc = JSON.parse(readFileSync(out, 'utf8'));
  assert.equal(doc.label, 'json test', 'the --label is in the document');
  const listed = JSON.parse(cli('history', '--json', '--label', 'json test').stdout) as { uuid: string; label: string }[];
  assert.deepEqual(
    listed.map((x) => x.uuid),
    [doc.runId],
    'and in the history, selected by history --label',
  );
  assert.equal(doc.schema, 'forklab.run');
  assert.equal(doc.schemaVersion, 1);
  assert.equal(doc.experiment, 'spawn');
  assert.equal(doc.complete, true);
  assert.equal(typeof doc.machine.kernel, 'string');
  assert.ok(doc.load.before && doc.load.after);
  assert.equal(doc.configurations.length, 4);
  for (const c of doc.configurations) {
    for (const k of ['method', 'rssMb', 'thp', 'repeat', 'hugePagesKb', 'samplesNs', 'stats']) assert.ok(k in c, k);
    assert.equal(c.samplesNs.length, 12);
    assert.ok(c.stats.medianNs > 0 && c.stats.ciLowNs <= c.stats.medianNs);
  }
  // Bad input afterwards: the existing file stays exactly as it was.
  const before = readFileSync(out, 'utf8');
  assert.equal(cli('spawn', '--methods', 'nope', '--json', out).code, 2);
  assert.equal(readFileSync(out, 'utf8'), before);
  assert.deepEqual(
    readdirSync(box.dir).filter((f) => f.includes('.forklab-')),
    [],
    'no temporary files left',
  );
});

test('a run stored with --db says how to read it back from that history, and the commands work', () => {
  const db = join(box.dir, 'named history.db');
  const r = cli('spawn', ...QUICK, '--db', db);
  assert.equal(r.code, 0, r.stderr);
  const id = /stored as run (\w+) in /.exec(r.stderr)?.[1];
  assert.ok(id, r.stderr);
  const said = r.stderr.split('\n').map((l) => l.trim());
  const show = said.find((l) => l.startsWith(`forklab show ${id} --db `));
  const report = said.find((l) => l.startsWith(`forklab report ${id} --db `));
  assert.ok(show && report?.endsWith('--html report.html'), r.stderr);
  if (!show || !report) return;
  // the advice is the command itself: its words (the path quoted for the shell) read the run back
  const words = (line: string) => [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!).slice(1);
  const shown = cli(...words(show));
  assert.equal(shown.code, 0, shown.stderr);
  const html = join(box.dir, 'advised.html');
  const reported = cli(...words(report).map((w) => (w === 'report.html' ? html : w)));
  assert.equal(reported.code, 0, reported.stderr);
  assert.match(readFileSync(html, 'utf8'), /<html/i);
});

test('a --json path that is a directory is refused', () => {
  const r = cli('spawn', '--json', box.dir);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--json: .* is a directory/);
});

test('the CLI helper keeps every run away from the home directory it was started with', () => {
  // A sentinel home stands for the user's: the helper's children get a temporary one and a temporary database.
  const user = sandbox();
  const s = sandbox({ ...process.env, HOME: user.home, XDG_DATA_HOME: join(user.home, '.local', 'share'), FORKLAB_DB: '' });
  const r = runCli(s, ['spawn', ...QUICK]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stderr.includes(`stored as run`) && r.stderr.includes(s.db), r.stderr);
  assert.deepEqual(readdirSync(user.home), [], 'the sentinel home is untouched');
  // And no test starts the CLI any other way.
  const dir = new URL('.', import.meta.url);
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.test.ts') && n !== 'cli.test.ts')) {
    const text = readFileSync(new URL(f, dir), 'utf8');
    for (const entry of ['cli-entry', 'bin/forklab', 'src/cli/main.ts', 'fixtures/store/cli'])
      assert.ok(!text.includes(entry), `${f} starts the CLI through ${entry}: use test/helpers/cli.ts`);
  }
});

test('--iterations 1: the run says an interval needs more samples instead of showing one as if it were', () => {
  // --wide: each warning on one line (by default they wrap at 100 columns)
  const r = cli('spawn', '--methods', 'fork-exit', '--rss', '0', '--thp', 'off', '--repeats', '1', '--iterations', '1', '--ci-target', '0', '--no-store', '--wide');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /warning: 1 configuration has fewer than 6 samples \(fork-exit; as few as 1\): a 95 % interval of a median needs at least 6/);
  assert.match(r.stderr, /Rerun with --iterations 6 or more/);
  const enough = cli('spawn', '--methods', 'fork-exit', '--rss', '0', '--thp', 'off', '--repeats', '1', '--iterations', '6', '--ci-target', '0', '--no-store');
  assert.doesNotMatch(enough.stderr, /fewer than 6 samples/);
});

test('too few samples in a series another flag sets: the advice names that flag (exec --ld-runs), and the defaults do not warn', () => {
  const few = cli('exec', '--iterations', '20', '--warmup', '2', '--repeats', '1', '--ld-runs', '3', '--no-store', '--wide');
  assert.equal(few.code, 0, few.stderr);
  assert.match(few.stderr, /fewer than 6 samples \(ld-startup; as few as 3\)/);
  assert.match(few.stderr, /Rerun with --ld-runs 6 or more\./);
  assert.doesNotMatch(few.stderr, /--iterations 6/);
  const defaults = cli('exec', '--iterations', '20', '--warmup', '2', '--repeats', '1', '--no-store');
  assert.equal(defaults.code, 0, defaults.stderr);
  assert.doesNotMatch(defaults.stderr, /fewer than 6 samples/);
});

test('too few samples: no warning for an experiment whose figures are outcomes (deadlock shows no interval)', () => {
  const m = (series: string) => ({ series, identity: { variant: series }, observed: {}, repeat: 1, state: 'ok' as const, failure: null, samplesNs: [5e8], columns: {}, info: {} });
  const run = (experiment: string) => ({ experiment, params: {}, measurements: [m('without-atfork'), m('with-atfork')], summary: null, warnings: [], complete: true });
  assert.deepEqual(fewSamplesWarnings(run('deadlock') as never), []);
  const timed = fewSamplesWarnings(run('create') as never);
  assert.equal(timed.length, 1, 'a timed experiment with one sample per configuration is warned');
  assert.match(timed[0]!.message, /2 configurations have fewer than 6 samples \(without-atfork, with-atfork; as few as 1\)/);
});
