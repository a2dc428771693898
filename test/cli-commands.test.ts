// Starting forklab loads only the command it runs: src/cli/commands.ts lists every command (name, usage, summary)
// without loading it. These tests hold that table to the commands the modules add, each registered experiment to
// its line in src/experiments/command-lines.ts, the usage it prints to the whole program's, and the start of the
// command line to the light modules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Help, type Command } from 'commander';
import { buildProgram, commandNamed, programFor } from '../src/cli/main.js';
import { COMMAND_GROUPS } from '../src/cli/commands.js';
import { EXPERIMENT_COMMAND_LINES, experimentEntry, type LinedExperiment } from '../src/experiments/command-lines.js';
import { EXPERIMENTS } from '../src/experiments/index.js';

const full = await buildProgram();
const LINES = COMMAND_GROUPS.flatMap((g) => g.commands);
const visible = (p: Command) => p.commands.filter((c) => !(c as unknown as { _hidden: boolean })._hidden);
const argv = (...args: string[]) => ['node', 'forklab', ...args];

test('the table lists the commands the modules add, in their order, with their usage and summary', () => {
  assert.deepEqual(
    LINES.map((l) => l.name),
    visible(full).map((c) => c.name()),
  );
  const help = new Help();
  for (const l of LINES) {
    const cmd = full.commands.find((c) => c.name() === l.name)!;
    assert.equal(l.summary, cmd.description(), `${l.name}: its summary`);
    assert.equal(`${l.name} ${l.usage}`.trim(), help.subcommandTerm(cmd), `${l.name}: its usage`);
    assert.equal(
      l.wide,
      cmd.options.some((o) => o.long === '--wide'),
      `${l.name}: --wide`,
    );
  }
});

test('each registered experiment has its line, and takes its name, article or source and summary line from it', () => {
  for (const e of EXPERIMENTS) {
    assert.ok(
      EXPERIMENT_COMMAND_LINES.some((l) => l.name === e.name),
      `${e.name}: a line in src/experiments/command-lines.ts`,
    );
    const { name, article, source, summaryLine } = e;
    assert.deepEqual({ name, article, source, summaryLine }, { source: undefined, ...experimentEntry(e.name as LinedExperiment) }, e.name);
  }
});

test('each group adds exactly the commands its lines name', async () => {
  for (const group of COMMAND_GROUPS) {
    const program = await programFor(argv(group.commands[0]!.name));
    const loaded = visible(program).filter((c) => c.options.length > 0 || c.commands.length > 0);
    assert.deepEqual(
      loaded.map((c) => c.name()),
      group.commands.map((c) => c.name),
    );
  }
});

test('the usage with nothing loaded is the whole program’s', async () => {
  const helpOf = (p: Command) => {
    p.configureOutput({ getOutHelpWidth: () => 80, getErrHelpWidth: () => 80 });
    return p.helpInformation();
  };
  const light = await programFor(argv('--help'));
  assert.ok(
    light.commands.every((c) => c.options.length === 0 && c.commands.length === 0),
    '--help loads no command',
  );
  assert.equal(helpOf(light), helpOf(full));
  assert.equal(helpOf(await programFor(argv('history'))), helpOf(full));
});

test('the command argv runs is the one loaded, wherever its flags are', async () => {
  for (const l of LINES) {
    for (const args of [[l.name], [l.name, '--help'], ['help', l.name], ['--', l.name], [l.name, '--db', 'x', 'y']]) {
      assert.equal(commandNamed(argv(...args)), l.name, args.join(' '));
    }
    const cmd = (await programFor(argv(l.name, '--help'))).commands.find((c) => c.name() === l.name)!;
    const whole = full.commands.find((c) => c.name() === l.name)!;
    assert.deepEqual(
      cmd.options.map((o) => o.flags),
      whole.options.map((o) => o.flags),
      l.name,
    );
  }
  assert.equal(commandNamed(argv('--help')), undefined);
  assert.equal(commandNamed(argv()), undefined);
  assert.equal(commandNamed(argv('help')), undefined);
});

test('starting the command line imports no layer below the commands until a command is chosen', () => {
  const SRC = fileURLToPath(new URL('../src/', import.meta.url));
  const seen = new Set<string>();
  const todo = [resolve(SRC, 'cli/main.ts')];
  while (todo.length) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    // Static imports that stay in the JavaScript (an `import type` is erased; `import(...)` loads later).
    for (const m of readFileSync(file, 'utf8').matchAll(/^(?:import|export)(?!\s+type\b)[^'";]*?from\s*'(\.[^']+)'/gm))
      todo.push(resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts')));
  }
  const below = [...seen].map((f) => relative(SRC, f)).filter((f) => !/^(cli|text)\/|^(errors|version)\.ts$|^experiments\/command-lines\.ts$/.test(f));
  assert.deepEqual(below, []);
  assert.ok(seen.has(resolve(SRC, 'cli/commands.ts')), 'the walk follows the imports');
});
