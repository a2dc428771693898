// Two processes writing runs into the same history at the same time (WAL, busy timeout, IMMEDIATE
// transactions): both succeed and every run is there, whole.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSqlite } from '../src/store/sqlite.js';
import { Store } from '../src/store/db.js';

const WRITER = fileURLToPath(new URL('./fixtures/store/writer.ts', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'forklab-store-conc-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const RUNS = 12;

interface Outcome {
  code: number | null;
  pid: number;
  stderr: string;
  span: [number, number] | null;
}

function writer(path: string, atMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const args = ['--import', 'tsx', WRITER, path, 'loop', String(RUNS), String(atMs)];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000, killSignal: 'SIGKILL' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => {
      const m = /span (\d+) (\d+)/.exec(stdout);
      resolve({ code, pid: child.pid!, stderr, span: m ? [Number(m[1]), Number(m[2])] : null });
    });
  });
}

async function twoWriters(path: string, note: (s: string) => void): Promise<void> {
  // Both open the database at the same moment, once their Node has started.
  const at = Date.now() + 3000;
  const results = await Promise.all([writer(path, at), writer(path, at)]);
  for (const r of results) assert.equal(r.code, 0, `writer ${r.pid} failed: ${r.stderr}`);
  const [a, b] = results.map((r) => r.span!);
  // Not asserted (a slow start on a loaded machine would make them miss each other), but reported.
  note(`writers wrote during ${a![0] - at}–${a![1] - at} ms and ${b![0] - at}–${b![1] - at} ms after the start signal`);
  const store = Store.open(path);
  try {
    const rows = store.listRuns();
    for (const r of results) {
      const mine = rows.filter((x) => x.label?.startsWith(`${r.pid} #`));
      assert.equal(mine.length, RUNS, `runs of writer ${r.pid}`);
      assert.deepEqual(new Set(mine.map((x) => x.label)).size, RUNS);
      for (const x of mine) {
        assert.equal(x.status, 'complete');
        assert.equal(x.measurements, 6, `run ${x.id}: 3 batches of 2`);
        const doc = store.getDocument(x.id);
        assert.deepEqual(
          doc.configurations.map((c) => c.repeat),
          [0, 0, 1, 1, 2, 2],
          'batches kept whole and in order',
        );
      }
    }
  } finally {
    store.close();
  }
  const db = openSqlite(path, { readonly: true });
  assert.equal(db.pragma('integrity_check'), 'ok');
  db.close();
}

test('two processes create and fill a fresh database at the same time', async (t) => {
  await twoWriters(join(tmp, 'fresh', 'forklab.db'), (s) => t.diagnostic(s));
});

test('two processes write into an existing database at the same time', async (t) => {
  const path = join(tmp, 'existing.db');
  Store.open(path).close();
  await twoWriters(path, (s) => t.diagnostic(s));
});
