// One meaning per flag: walks every command and subcommand of the command line and fails on a flag that is
// written differently (what it takes) anywhere, on a shared flag whose help differs from the one in
// src/cli/options.ts, and on a measuring command without the shared flags.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import type { Command, Option } from 'commander';
import { EXPERIMENTS } from '../src/experiments/index.js';
import { buildProgram } from '../src/cli/main.js';
import { runCli, sandbox } from './helpers/cli.js';
import { DB_HELP, FILE_FLAG_SUFFIX, LABEL_HELP, NO_COLOR_HELP, NO_STORE_HELP, ONLY_HELP, PIN_HELP, PRESET_HELP, QUICK_HELP, SEED_HELP, VERBOSE_HELP } from '../src/cli/options.js';
import { UsageError } from '../src/errors.js';

interface Seen {
  command: string;
  option: Option;
}

function walk(c: Command, path: string, into: Map<string, Seen[]>, commands: Map<string, Command>): void {
  commands.set(path, c);
  for (const o of c.options) {
    const key = o.long ?? o.flags;
    into.set(key, [...(into.get(key) ?? []), { command: path, option: o }]);
  }
  for (const s of c.commands) walk(s, `${path} ${s.name()}`, into, commands);
}

const flags = new Map<string, Seen[]>();
const commands = new Map<string, Command>();
walk(await buildProgram(), 'forklab', flags, commands);

/** The flag as written without its long name: '' (a switch), '<file>', '[file]'. */
const takes = (o: Option) => o.flags.replace(/^.*--[a-z0-9-]+\s*/, '');

const SHARED: Record<string, string> = {
  '--db': DB_HELP,
  '--label': LABEL_HELP,
  '--no-store': NO_STORE_HELP,
  '--seed': SEED_HELP,
  '--no-color': NO_COLOR_HELP,
  '--pin': PIN_HELP,
  '--quick': QUICK_HELP,
  '--only': ONLY_HELP,
  '--preset': PRESET_HELP,
  '--verbose': VERBOSE_HELP,
};
const FILE_FLAGS = ['--json', '--markdown', '--html', '--csv', '--yaml'];

test('the walk reaches every command', () => {
  for (const name of ['spawn', 'reproduce', 'judge', 'doctor', 'history', 'show', 'export', 'compare', 'report', 'trace', 'fleet collect', 'fleet manifest'])
    assert.ok(commands.has(`forklab ${name}`), name);
  assert.ok(flags.get('--json')!.length >= 15, 'every --json');
});

test('a flag takes the same thing on every command that has it', () => {
  const differ: string[] = [];
  for (const [flag, seen] of flags) {
    const forms = new Map<string, string[]>();
    for (const s of seen) forms.set(takes(s.option), [...(forms.get(takes(s.option)) ?? []), s.command]);
    if (forms.size > 1) differ.push(`${flag}: ${[...forms].map(([f, cs]) => `${JSON.stringify(f)} on ${cs.join(', ')}`).join('; ')}`);
  }
  assert.deepEqual(differ, []);
});

test('--json, --markdown, --html, --csv, --yaml: FILE, or standard output without it or with -, everywhere', () => {
  for (const flag of FILE_FLAGS)
    for (const s of flags.get(flag) ?? []) {
      assert.equal(takes(s.option), '[file]', `${s.command} ${flag}`);
      assert.ok(s.option.description.endsWith(FILE_FLAG_SUFFIX), `${s.command} ${flag}: "${s.option.description}"`);
    }
});

test('--db, --label, --no-store, --seed, --no-color, --pin, --quick, --only, --preset, --verbose: one help text, one default', () => {
  for (const [flag, help] of Object.entries(SHARED))
    for (const s of flags.get(flag) ?? []) {
      assert.equal(s.option.description, help, `${s.command} ${flag}`);
      if (flag === '--seed') assert.equal(s.option.defaultValue, '1', `${s.command} --seed default`);
      if (flag === '--preset') assert.deepEqual([s.option.defaultValue, s.option.argChoices], ['quick', ['quick', 'full']], `${s.command} --preset`);
    }
});

test('--iterations, --warmup, --repeats: the same least value and the same errors in every experiment', () => {
  const least: Record<string, number> = { iterations: 1, warmup: 0, repeats: 1 };
  let seen = 0;
  for (const exp of EXPERIMENTS)
    for (const [name, min] of Object.entries(least)) {
      if (!exp.options.some((o) => o.flags === `--${name} <n>`)) continue;
      seen++;
      const refused = (value: string) => {
        try {
          exp.parse({ [name]: value });
        } catch (e) {
          assert.ok(e instanceof UsageError, `${exp.name} --${name} ${value}: ${String(e)}`);
          return e.message;
        }
        return null;
      };
      assert.equal(refused(String(min - 1)), `--${name}: must be at least ${min}, got ${min - 1}`, `${exp.name} --${name}`);
      assert.equal(refused('two'), `--${name}: expected a whole number, got "two"`, `${exp.name} --${name}`);
      assert.equal(refused(String(min)), null, `${exp.name} --${name} ${min}`);
      assert.match(refused('100000000') ?? '', new RegExp(`^--${name}: must be at most \\d+, got 100000000$`), `${exp.name} --${name}`);
    }
  assert.ok(seen >= 22, `${seen} counts`);
});

test('every measuring command has --quick, --json [file], --label, --db, --no-store, --seed, --no-color', () => {
  for (const name of [...EXPERIMENTS.map((e) => e.name), 'reproduce']) {
    const c = commands.get(`forklab ${name}`)!;
    const have = new Set(c.options.map((o) => o.long));
    for (const f of ['--quick', '--json', '--label', '--db', '--no-store', '--seed', '--no-color']) assert.ok(have.has(f), `forklab ${name} ${f}`);
  }
});

test('--json FILE writes the file, --json alone prints: judge, history, doctor, export', () => {
  const box = sandbox();
  try {
    const run = fileURLToPath(new URL('./fixtures/report/exec.json', import.meta.url));
    const out = join(box.dir, 'verdicts.json');
    const toFile = runCli(box, ['judge', run, '--json', out]);
    assert.equal(toFile.code, 0, toFile.stderr);
    assert.equal(toFile.stdout, '');
    assert.equal(JSON.parse(readFileSync(out, 'utf8')).schema, 'forklab.verdicts');
    const toStdout = runCli(box, ['judge', run, '--json']);
    assert.equal(toStdout.code, 0, toStdout.stderr);
    assert.equal(JSON.parse(toStdout.stdout).schema, 'forklab.verdicts');
    assert.equal(JSON.parse(runCli(box, ['judge', run, '--json', '-']).stdout).schema, 'forklab.verdicts');
    const history = join(box.dir, 'history.json');
    assert.equal(runCli(box, ['history', '--json', history]).code, 0);
    assert.deepEqual(JSON.parse(readFileSync(history, 'utf8')), []);
    const imported = runCli(box, ['import', run]);
    assert.equal(imported.code, 0, imported.stderr);
    const csv = join(box.dir, 'samples.csv');
    assert.equal(runCli(box, ['export', 'latest', '--csv', csv]).code, 0);
    assert.match(readFileSync(csv, 'utf8'), /^series,/);
    const bad = runCli(box, ['judge', run, '--json', box.dir]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--json: .* is a directory/);
  } finally {
    rmSync(box.dir, { recursive: true, force: true });
  }
});
