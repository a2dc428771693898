// A flag given twice never silently keeps its last value: walks every command of the command line (a new flag is
// covered without a new test), gives each of its flags twice with the command's action replaced, and checks
// that a list gathers both values, a variadic flag both, a switch means what it means once, and any other flag
// is refused, naming it, before the action runs.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import type { Command, Option } from 'commander';
import { buildProgram } from '../src/cli/main.js';
import { repetitionOf } from '../src/cli/repeated.js';
import { UsageError } from '../src/errors.js';
import { EXPERIMENTS } from '../src/experiments/index.js';
import { runCli, sandbox } from './helpers/cli.js';

interface Leaf {
  path: string[];
  options: readonly Option[];
}

function leaves(c: Command, path: string[], into: Leaf[]): Leaf[] {
  if (c.commands.length === 0) into.push({ path, options: c.options });
  for (const s of c.commands) leaves(s, [...path, s.name()], into);
  return into;
}

function find(program: Command, path: readonly string[]): Command {
  return path.reduce((c, name) => c.commands.find((s) => s.name() === name)!, program);
}

/** A value commander accepts for the flag: its first choice, or a placeholder (the action never reads it). */
const valueFor = (o: Option, n: number) => o.argChoices?.[n % o.argChoices.length] ?? `v${n}`;

/** What the replaced action saw, or the error that ended the parse first. */
async function parse(path: readonly string[], args: string[]): Promise<{ opts: Record<string, unknown> } | { error: unknown }> {
  const program = await buildProgram();
  const silent = { writeOut: () => {}, writeErr: () => {} };
  const stack = [program];
  while (stack.length) {
    const c = stack.pop()!;
    c.configureOutput(silent);
    stack.push(...c.commands);
  }
  const cmd = find(program, path);
  let opts: Record<string, unknown> | null = null;
  cmd.action(function (this: Command) {
    opts = this.opts();
  });
  // What the command needs besides the flag under test: its required arguments and mandatory flags.
  const needed = [...cmd.registeredArguments.filter((a) => a.required).map(() => 'x')];
  try {
    await program.parseAsync([...path, ...needed, ...args], { from: 'user' });
  } catch (error) {
    return { error };
  }
  assert.ok(opts, `${path.join(' ')} ${args.join(' ')}: the action did not run`);
  return { opts };
}

const all = leaves(await buildProgram(), [], []);

/** The command's mandatory flags, given once, except the one under test. */
function mandatory(leaf: Leaf, except: Option): string[] {
  return leaf.options.filter((o) => o.mandatory && o !== except).flatMap((o) => [o.long!, valueFor(o, 0)]);
}

test('the walk reaches every command and every kind of flag', () => {
  assert.ok(all.length >= 25, `${all.length} commands`);
  const kinds = new Set(all.flatMap((l) => l.options.map(repetitionOf)));
  assert.deepEqual([...kinds].sort(), ['gathers', 'once', 'switch', 'variadic']);
});

test('a list flag given twice gathers both values, on every command', async () => {
  let n = 0;
  for (const leaf of all)
    for (const o of leaf.options.filter((x) => repetitionOf(x) === 'gathers')) {
      const r = await parse(leaf.path, [o.long!, 'a', o.long!, 'b,c', ...mandatory(leaf, o)]);
      assert.ok('opts' in r, `${leaf.path.join(' ')} ${o.long}: ${'error' in r ? String(r.error) : ''}`);
      assert.equal(r.opts[o.attributeName()], 'a,b,c', `${leaf.path.join(' ')} ${o.long}`);
      n++;
    }
  assert.ok(n >= 20, `${n} list flags`);
});

test('a single-value flag given twice is refused, naming it, before the command runs', async () => {
  let n = 0;
  for (const leaf of all)
    for (const o of leaf.options.filter((x) => repetitionOf(x) === 'once')) {
      const r = await parse(leaf.path, [o.long!, valueFor(o, 0), o.long!, valueFor(o, 1), ...mandatory(leaf, o)]);
      assert.ok('error' in r, `${leaf.path.join(' ')} ${o.long} given twice was taken`);
      assert.ok(r.error instanceof UsageError, `${leaf.path.join(' ')} ${o.long}: ${String(r.error)}`);
      assert.equal(r.error.flag, o.long);
      assert.match(r.error.message, /given twice \(.+ and .+\); it takes one value: give it once$/);
      n++;
    }
  assert.ok(n >= 150, `${n} single-value flags`);
});

test('a switch given twice means what it means once; a variadic flag gathers', async () => {
  for (const leaf of all)
    for (const o of leaf.options.filter((x) => repetitionOf(x) === 'switch' && x.long !== '--version' && x.long !== '--help')) {
      const once = await parse(leaf.path, [o.long!, ...mandatory(leaf, o)]);
      const twice = await parse(leaf.path, [o.long!, o.long!, ...mandatory(leaf, o)]);
      assert.ok('opts' in once && 'opts' in twice, `${leaf.path.join(' ')} ${o.long}`);
      assert.deepEqual(twice.opts, once.opts, `${leaf.path.join(' ')} ${o.long}`);
    }
  const report = all.find((l) => l.path.join(' ') === 'report')!;
  const r = await parse(report.path, ['--input', 'a.json', '--input', 'b.json']);
  assert.ok('opts' in r);
  assert.deepEqual(r.opts.input, ['a.json', 'b.json']);
});

test('a file flag given twice, with or without FILE, is refused', async () => {
  for (const args of [
    ['--json', '--json'],
    ['--json', 'a.json', '--json'],
  ]) {
    const r = await parse(['judge'], args);
    assert.ok('error' in r && r.error instanceof UsageError, args.join(' '));
    assert.match(r.error.message, /^--json: given twice/);
  }
  const thrice = await parse(['spawn'], ['--repeats', '1', '--repeats', '2', '--repeats', '3']);
  assert.ok('error' in thrice && thrice.error instanceof UsageError);
  assert.equal(thrice.error.message, '--repeats: given 3 times ("1", "2" and "3"); it takes one value: give it once');
});

test('runtimes --runtime A=PATH --runtime B=PATH measures both', async () => {
  const r = await parse(['runtimes'], ['--runtime', `node24=${process.execPath}`, '--runtime', `node26=${process.execPath}`]);
  assert.ok('opts' in r);
  const params = EXPERIMENTS.find((e) => e.name === 'runtimes')!.parse(r.opts as Record<string, string>) as { extra: { name: string }[] };
  assert.deepEqual(
    params.extra.map((x) => x.name),
    ['node24', 'node26'],
  );
});

test('forklab spawn --repeats 3 --repeats 5: exit 2, the flag named, nothing measured or stored', () => {
  const box = sandbox();
  try {
    const r = runCli(box, ['spawn', '--repeats', '3', '--repeats', '5', '--iterations', '1'], { limitMs: 60_000 });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, 'forklab spawn: --repeats: given twice ("3" and "5"); it takes one value: give it once\n');
    assert.equal(r.stdout, '');
    const history = runCli(box, ['history', '--json']);
    assert.equal(history.code, 0, history.stderr);
    assert.deepEqual(JSON.parse(history.stdout), []);
  } finally {
    rmSync(box.dir, { recursive: true, force: true });
  }
});
