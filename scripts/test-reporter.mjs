// npm test's reporter: one line per test file (✔ or ✖, its counts and time), what failed in full (name, error,
// what the file printed), the reasons of skipped and todo tests, and a summary whose last line is "N passed, N failed".
// The full TAP stays one command away: npm run test:tap.
// Works with node:test's events on Node 20 (each file a top-level test named by its path) and 22+ (tests of a
// file at nesting 0, each carrying its file).
import { relative } from 'node:path';

const cwd = process.cwd();
const rel = (f) => (f ? relative(cwd, f) || f : '(no file)');
const seconds = (ms) => (ms >= 60_000 ? `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s` : `${(ms / 1000).toFixed(1)} s`);

function errorText(err) {
  if (!err) return '';
  const e = err.cause ?? err;
  const lines = [];
  if (e?.stack) lines.push(String(e.stack));
  else if (e?.message) lines.push(String(e.message));
  else lines.push(String(e));
  if (e?.actual !== undefined || e?.expected !== undefined) {
    if (!String(e.stack ?? '').includes('actual')) lines.push(`actual: ${JSON.stringify(e.actual)}`, `expected: ${JSON.stringify(e.expected)}`);
  }
  return lines.join('\n');
}

const indent = (s, n = 4) =>
  s
    .split('\n')
    .map((l) => ' '.repeat(n) + l)
    .join('\n');

export default async function* reporter(source) {
  const files = new Map(); // file → { pass, fail, skip, todo, ms, failures: [], output: [] }
  const order = [];
  const skipped = [];
  const todos = [];
  const total = { pass: 0, fail: 0, skip: 0, todo: 0, cancelled: 0 };
  const started = Date.now();
  let summaryMs = null;
  const fileOf = (data) => {
    const f = rel(data.file);
    if (!files.has(f)) {
      files.set(f, { pass: 0, fail: 0, skip: 0, todo: 0, ms: 0, done: false, seen: false, complete: false, fileFailed: false, fileError: '', failures: [], output: [] });
      order.push(f);
    }
    return files.get(f);
  };
  // Each file ends with a test:complete of a test named by its path (Node 20 and 22+ alike). With more than one
  // file at a time, node:test reports the files it is not showing live only later, each in one block: on Node 20
  // even their tests' test:complete come after the file's own. So a file whose tests have not been seen when it
  // completes waits, and its line is printed when another file's tests start arriving, or at the end.
  const isFileWrapper = (data) => data.nesting === 0 && data.file && (data.name === data.file || rel(data.name) === rel(data.file));
  function* line(f) {
    const s = files.get(f);
    if (s.done) return;
    s.done = true;
    // A file that fails outside any test (a syntax error, a crash) has only this failure.
    if (s.fileFailed && s.fail === 0) {
      s.fail++;
      total.fail++;
      s.failures.push({ name: `${f} (the file itself)`, error: s.fileError });
    }
    const counts = [`${s.pass} passed`];
    if (s.fail) counts.push(`${s.fail} failed`);
    if (s.skip) counts.push(`${s.skip} skipped`);
    if (s.todo) counts.push(`${s.todo} todo`);
    yield `${s.fail ? '✖' : '✔'} ${f}  ${counts.join(', ')}  (${seconds(s.ms)})\n`;
    for (const x of s.failures) yield `  ✖ ${x.name}\n${indent(x.error)}\n`;
    if (s.fail && s.output.length) yield `  what ${f} printed:\n${indent(s.output.join('').trimEnd())}\n`;
  }
  function* flush() {
    for (const f of order) yield* line(f);
  }
  for await (const event of source) {
    const { type, data } = event;
    if (type === 'test:stdout' || type === 'test:stderr') {
      if (data.file) fileOf(data).output.push(data.message);
      continue;
    }
    if (type === 'test:summary') {
      if (data.file === undefined) summaryMs = data.duration_ms ?? null;
      continue;
    }
    if (type === 'test:complete' && isFileWrapper(data)) {
      const s = fileOf(data);
      s.ms = data.details?.duration_ms ?? 0;
      s.complete = true;
      if (data.details?.passed === false || data.details?.error) {
        s.fileFailed = true;
        s.fileError = errorText(data.details?.error);
      }
      if (s.seen) yield* line(rel(data.file));
      continue;
    }
    if (type !== 'test:pass' && type !== 'test:fail') continue;
    if (isFileWrapper(data) || data.details?.type === 'suite') continue;
    const s = fileOf(data);
    s.seen = true;
    // Another file's tests arriving: the files that completed before their tests were reported are done now.
    for (const f of order) if (files.get(f) !== s && files.get(f).complete && files.get(f).seen) yield* line(f);
    if (data.skip !== undefined) {
      s.skip++;
      total.skip++;
      skipped.push(`${rel(data.file)}: ${data.name}${typeof data.skip === 'string' ? ` — ${data.skip}` : ''}`);
    } else if (data.todo !== undefined) {
      s.todo++;
      total.todo++;
      todos.push(`${rel(data.file)}: ${data.name}${typeof data.todo === 'string' ? ` — ${data.todo}` : ''}${type === 'test:fail' ? ' (fails for now)' : ''}`);
    } else if (type === 'test:pass') {
      s.pass++;
      total.pass++;
    } else {
      if (data.details?.error?.failureType === 'cancelledByParent') total.cancelled++;
      s.fail++;
      total.fail++;
      s.failures.push({ name: data.name, error: errorText(data.details?.error) });
    }
  }
  yield* flush();
  if (skipped.length) yield `\nskipped:\n${skipped.map((l) => `  - ${l}\n`).join('')}`;
  if (todos.length) yield `\ntodo:\n${todos.map((l) => `  - ${l}\n`).join('')}`;
  const ms = summaryMs ?? Date.now() - started;
  const tests = total.pass + total.fail + total.skip + total.todo;
  yield `\n${tests} tests in ${order.length} files, ${seconds(ms)}${total.skip ? `; ${total.skip} skipped` : ''}${total.todo ? `; ${total.todo} todo` : ''}${total.cancelled ? `; ${total.cancelled} cancelled` : ''}\n`;
  yield `${total.pass} passed, ${total.fail} failed\n`;
}
