// Each experiment owns its vocabulary: its name, its series, its fields. The layers that serve every experiment
// (store/, document/, claims/, report/, fleet/, lab/, cli/, reference/) ask the registry for them
// (src/experiments/contract/types.ts, chart.ts) and spell none of them out; a quoted experiment or field name there fails
// here, naming the file, the line and the name. The vocabulary is the registry's (EXPERIMENTS and the recorded
// kinds, trace), what the claims' fixtures observe, and the fields a trace records (its measurements from a
// recorded strace).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXPERIMENTS, RECORDED } from '../src/experiments/index.js';
import { TRACE_COLUMNS, TRACE_OBSERVED, traceMeasurements } from '../src/experiments/trace/summary.js';
import { buildModel } from '../src/experiments/trace/model.js';
import { processFigures } from '../src/experiments/trace/figures.js';
import { parseStrace } from '../src/experiments/trace/strace.js';
import { CONFIGURATION_KEYS } from '../src/document/run.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SHARED = ['src/store', 'src/document', 'src/claims', 'src/report', 'src/fleet', 'src/lab', 'src/cli', 'src/reference'];

/**
 * Names that are also words of the shared layers' own vocabulary, in the sense given: a literal of them there is
 * not an experiment's field.
 */
const PLAIN_WORDS: Readonly<Record<string, string>> = {
  run: 'a run of forklab (the compare chart colours points by run)',
  default: "a default value (the database location's source)",
  target: 'the --target PROGRAM contract every experiment with acceptsTarget shares (params.target, params.targetArgs)',
  variant: "a field of data/published.json's boolean check",
};

/** Names used in another sense in one file: file → name → the sense. */
const OTHER_SENSE: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'src/reference/types.ts': { pages: 'a unit of data/published.json' },
  // A trace's plan is either an attach ({ pid, durationMs }) or a command to run ({ command }): the keys its life reads to tell them apart.
  'src/lab/trace.ts': { pid: "TracePlan's attach form ('pid' in plan.mode)", command: "TracePlan's command form ('command' in plan.mode)" },
};

/**
 * Literals still awaiting their move into the experiments, by file: each entry names what is left. Emptying an
 * entry is progress; adding one needs a reason here.
 */
const PENDING: Readonly<Record<string, readonly string[]>> = {
  // The boolean check's evidence rule for a deadlock child and the count-per check's page count (the claims engine's).
  'src/claims/checks.ts': ['pages', 'childAcquired', 'childReported', 'childKilled', 'childResult'],
  // Keys whose value names itself in a verdict's plain line.
  'src/claims/plain.ts': ['method'],
};

function names(): Set<string> {
  const out = new Set<string>();
  const add = (xs: Iterable<string>) => {
    for (const x of xs) out.add(x);
  };
  // The experiments run through the sweep, and those reported like one (trace): their names, series and fields.
  for (const e of [...EXPERIMENTS, ...RECORDED]) {
    add([e.name, ...e.identity, ...e.series, ...Object.keys(e.valueOrder), ...Object.keys(e.fieldLabels ?? {}), ...(e.contextKeys ?? [])]);
    if (e.seriesField) add([e.seriesField]);
    if (e.thpCondition) add([e.thpCondition.field, e.thpCondition.regionMbField, e.thpCondition.hugePagesKbField, ...e.thpCondition.readings]);
  }
  // What a trace records beside its identity (its configurations' observed fields and columns).
  add([...TRACE_OBSERVED, ...TRACE_COLUMNS]);
  // What real documents observe besides (hugePagesKb, childAcquired, slabGrowthKb…): the claims' fixtures hold one run of each experiment.
  const fixtures = join(ROOT, 'test/claims-fixtures');
  const reserved = new Set<string>(CONFIGURATION_KEYS);
  for (const f of readdirSync(fixtures)) {
    const doc = JSON.parse(readFileSync(join(fixtures, f), 'utf8')) as { configurations: Record<string, unknown>[] };
    for (const c of doc.configurations) {
      add(Object.keys(c).filter((k) => !reserved.has(k)));
      add(Object.keys((c.columns ?? {}) as object));
    }
  }
  // What a trace records per process and mechanism: identity, observed fields and per-call columns.
  const strace = readFileSync(join(ROOT, 'test/fixtures/trace/node-child-process.strace'), 'utf8');
  for (const m of traceMeasurements(processFigures(buildModel(parseStrace(strace)), []), 1))
    add([m.series, ...Object.keys(m.identity), ...Object.keys(m.observed ?? {}), ...Object.keys(m.columns ?? {})]);
  for (const w of Object.keys(PLAIN_WORDS)) out.delete(w);
  return out;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return name.endsWith('.ts') ? [p] : [];
  });
}

/**
 * Every string literal of a source ('x', "x", and `x` without substitutions), with its line: a small scanner that
 * skips comments and follows template substitutions (the literals inside them count too).
 */
export function literalsOf(text: string): { line: number; value: string }[] {
  const out: { line: number; value: string }[] = [];
  const templates: number[] = []; // brace depth at which each open template's substitution started
  let depth = 0;
  let i = 0;
  const lineAt = (at: number) => text.slice(0, at).split('\n').length;
  /** Reads a template's text from i up to its end or a substitution; returns whether it ended. */
  const templateText = (): { ended: boolean; value: string } => {
    let value = '';
    while (i < text.length) {
      const ch = text[i]!;
      if (ch === '\\') {
        value += text.slice(i, i + 2);
        i += 2;
      } else if (ch === '`') {
        i++;
        return { ended: true, value };
      } else if (ch === '$' && text[i + 1] === '{') {
        i += 2;
        return { ended: false, value };
      } else {
        value += ch;
        i++;
      }
    }
    return { ended: true, value };
  };
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '/' && text[i + 1] === '/') i = text.indexOf('\n', i) < 0 ? text.length : text.indexOf('\n', i);
    else if (ch === '/' && text[i + 1] === '*') i = text.indexOf('*/', i + 2) < 0 ? text.length : text.indexOf('*/', i + 2) + 2;
    else if (ch === "'" || ch === '"') {
      const start = i;
      let value = '';
      i++;
      while (i < text.length && text[i] !== ch && text[i] !== '\n') {
        if (text[i] === '\\') value += text[i++];
        value += text[i++];
      }
      i++;
      out.push({ line: lineAt(start), value });
    } else if (ch === '`') {
      const start = i;
      i++;
      const t = templateText();
      if (t.ended) out.push({ line: lineAt(start), value: t.value });
      else templates.push(depth++);
    } else if (ch === '{') {
      depth++;
      i++;
    } else if (ch === '}') {
      depth--;
      i++;
      if (templates.length && templates.at(-1) === depth) {
        templates.pop();
        const t = templateText();
        if (!t.ended) templates.push(depth++);
      }
    } else i++;
  }
  return out;
}

test('literalsOf finds quoted strings and skips comments', () => {
  const sub = (code: string) => `$\{${code}}`; // a template substitution, written without one here
  const source = `const a = 'rssMb'; // 'vmas'\n/* 'cow' */ x("spawn", \`thp\`, \`the run's ${sub("f('exec')")} ${sub('{ a: 1 }.a')}\`, 'it')`;
  assert.deepEqual(
    literalsOf(source).map((l) => l.value),
    ['rssMb', 'spawn', 'thp', 'exec', 'it'],
  );
});

test('no experiment or field name is spelled out in store/, document/, claims/, report/, fleet/, lab/, cli/ or reference/', () => {
  const vocabulary = names();
  assert.ok(vocabulary.has('rssMb') && vocabulary.has('spawn') && vocabulary.has('hugePagesKb'), 'the vocabulary is read from the registry and the fixtures');
  assert.ok(vocabulary.has('trace') && vocabulary.has('toExecNs') && vocabulary.has('clone-vm-vfork'), "trace's name, columns and series are in it");
  assert.ok(vocabulary.has('trace') && vocabulary.has('pteKb') && vocabulary.has('toExecNs'), "trace's name and recorded fields are read");
  const found: string[] = [];
  const pendingSeen = new Set<string>();
  for (const dir of SHARED)
    for (const file of sources(join(ROOT, dir))) {
      const rel = relative(ROOT, file);
      for (const { line, value } of literalsOf(readFileSync(file, 'utf8'))) {
        if (!vocabulary.has(value) || OTHER_SENSE[rel]?.[value] !== undefined) continue;
        if (PENDING[rel]?.includes(value)) {
          pendingSeen.add(`${rel}:${value}`);
          continue;
        }
        found.push(`${rel}:${line}: '${value}'`);
      }
    }
  assert.deepEqual(found, [], `experiment vocabulary outside the experiments (ask the registry instead):\n${found.join('\n')}`);
  const stale = Object.entries(PENDING).flatMap(([f, vs]) => vs.filter((v) => !pendingSeen.has(`${f}:${v}`)).map((v) => `${f}: ${v}`));
  assert.deepEqual(stale, [], `PENDING lists literals that are gone; remove them from the list:\n${stale.join('\n')}`);
});
