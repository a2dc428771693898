// Framed documents through logs, and `forklab fleet collect` against an API server stand-in on 127.0.0.1 (pod
// lists, node objects, pod logs; a bearer token checked): a complete pod with a duplicated document, a log cut
// in the middle of a document, a corrupted chunk, a pod that failed; then the same through kubectl and from a
// directory of Slurm output files, and the import into the history.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:https';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHUNK_CHARS, decodeStream, encodeDocument, statusLine } from '../src/fleet/frame.js';
import { readCollect } from '../src/fleet/collect.js';
import { sandbox, startCli } from './helpers/cli.js';
import { tempDir } from './helpers/tmp.js';

const FIX = join(import.meta.dirname, 'fixtures', 'report');
const docText = (name: string, runId: string) => JSON.stringify({ ...JSON.parse(readFileSync(join(FIX, `${name}.json`), 'utf8')), runId });
const COW = docText('cow', '11111111-1111-4111-8111-111111111111');
const CREATE = docText('create', '22222222-2222-4222-8222-222222222222');
const SPAWN = docText('spawn', '33333333-3333-4333-8333-333333333333');
const VMA = docText('vma', '44444444-4444-4444-8444-444444444444');

const frames = (json: string, seq: number, node: string) => encodeDocument(json, seq, { runId: JSON.parse(json).runId, node });
const ok = (n: number, node: string) => statusLine({ state: 'ok', documents: n, node, exitCode: 0 });

test('frames: short lines that round-trip, with the program’s other output and timestamp prefixes around them', () => {
  const lines = frames(SPAWN, 1, 'n1');
  assert.ok(lines.length > 3);
  assert.ok(lines.every((l) => l.length <= CHUNK_CHARS + 60));
  assert.match(lines[0]!, /^forklab-frame\/1 begin 1 run=33333333-3333-4333-8333-333333333333 node=n1 chunks=\d+ bytes=\d+$/);
  const log = ['reproduce: measuring…', ...lines.map((l) => `2026-12-01T09:00:00.000000000Z ${l}`), ok(1, 'n1'), ''].join('\n');
  const d = decodeStream(log);
  assert.equal(d.documents.length, 1);
  assert.equal(d.documents[0]!.state, 'ok');
  assert.equal(d.documents[0]!.state === 'ok' && d.documents[0]!.json, SPAWN);
  assert.deepEqual(d.status, { state: 'ok', documents: 1, node: 'n1', exitCode: 0 });
});

test('frames: a missing chunk, a flipped character, a log cut short are each named', () => {
  const lines = frames(SPAWN, 1, 'n1');
  const gap = decodeStream([lines[0], ...lines.slice(2)].join('\n'));
  assert.equal(gap.documents[0]!.state, 'corrupt');
  assert.match(gap.documents[0]!.state === 'corrupt' ? gap.documents[0]!.reason : '', /chunk 1 is missing/);
  const flipped = lines.map((l, i) => (i === 2 ? l.slice(0, -5) + (l.at(-5) === 'A' ? 'B' : 'A') + l.slice(-4) : l));
  const bad = decodeStream(flipped.join('\n')).documents[0]!;
  assert.equal(bad.state, 'corrupt');
  assert.match(bad.state === 'corrupt' ? bad.reason : '', /gzip|sha256/);
  const cut = decodeStream(lines.slice(0, 3).join('\n'));
  assert.deepEqual(
    cut.documents.map((d) => d.state),
    ['truncated'],
  );
  assert.equal(cut.status, null);
});

test('frames: a status line that is not JSON, or whose keys are wrong, is named and not taken', () => {
  const lines = frames(SPAWN, 1, 'n1');
  const notJson = decodeStream([...lines, 'forklab-status/1 {"state":'].join('\n'));
  assert.equal(notJson.status, null);
  assert.deepEqual(notJson.problems, [`line ${lines.length + 1}: a status line that is not JSON`]);
  const wrong = decodeStream([...lines, 'forklab-status/1 {"state":"ok","documents":"1","node":"n1","exitCode":0}'].join('\n'));
  assert.equal(wrong.status, null);
  assert.deepEqual(wrong.problems, [`line ${lines.length + 1}: a status line that cannot be read: documents is not a finite number (got "1")`]);
  const state = decodeStream([...lines, 'forklab-status/1 {"state":"done","documents":1,"node":null,"exitCode":0}'].join('\n'));
  assert.match(state.problems[0] ?? '', /state is not "ok" or "failed" \(got "done"\)/);
});

interface Pod {
  name: string;
  node: string;
  phase: string;
  exitCode: number | null;
  message: string | null;
  log: string;
}

const PODS: Pod[] = [
  // A restarted container printed its create document twice.
  {
    name: 'fl-0',
    node: 'n1',
    phase: 'Succeeded',
    exitCode: 0,
    message: null,
    log: [...frames(COW, 1, 'n1'), ...frames(CREATE, 2, 'n1'), ...frames(CREATE, 3, 'n1'), ok(3, 'n1')].join('\n'),
  },
  // Log rotated away the end: the second document is cut, no status line.
  { name: 'fl-1', node: 'n2', phase: 'Succeeded', exitCode: 0, message: null, log: [...frames(SPAWN, 1, 'n2'), ...frames(VMA, 2, 'n2').slice(0, 2)].join('\n') },
  // One chunk damaged on the way.
  {
    name: 'fl-2',
    node: 'n3',
    phase: 'Succeeded',
    exitCode: 0,
    message: null,
    log: [...frames(VMA, 1, 'n3').map((l, i) => (i === 1 ? l.replace(/.{8}$/, 'AAAAAAAA') : l)), ok(1, 'n3')].join('\n'),
  },
  {
    name: 'fl-3',
    node: 'n4',
    phase: 'Failed',
    exitCode: 1,
    message: 'forklab-status/1 {"state":"failed","documents":0,"node":"n4","exitCode":2,"message":"forklab reproduce exited 2 without run documents"}',
    log: 'error: the C probe is not built\n',
  },
];

const TOKEN = 'stand-in-token';

const podObject = (p: Pod) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: p.name, namespace: 'lab', labels: { 'forklab.dev/pool': 'gp' } },
  spec: { nodeName: p.node, containers: [{ name: 'forklab', image: 'forklab:test' }] },
  status: {
    phase: p.phase,
    containerStatuses: [{ name: 'forklab', state: { terminated: { exitCode: p.exitCode, ...(p.message ? { message: p.message } : {}) } } }],
  },
});

// A TLS stand-in (kubectl sends a token only over https): a throw-away certificate for 127.0.0.1.
const TLS = tempDir('forklab-tls-');
const openssl = spawnSync(
  'openssl',
  [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    join(TLS, 'key.pem'),
    '-out',
    join(TLS, 'ca.pem'),
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  ],
  { encoding: 'utf8', timeout: 20_000 },
);
const noTls = openssl.status === 0 ? false : `openssl could not make a certificate for the stand-in: ${openssl.error?.message ?? openssl.stderr}`;

function standIn(): Promise<{ server: Server; url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer({ key: readFileSync(join(TLS, 'key.pem')), cert: readFileSync(join(TLS, 'ca.pem')) }, (req, res) => {
    requests.push(req.url ?? '');
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401).end('{"kind":"Status","code":401}');
      return;
    }
    const u = new URL(req.url ?? '/', 'http://x');
    const send = (v: unknown, type = 'application/json') => res.writeHead(200, { 'content-type': type }).end(typeof v === 'string' ? v : JSON.stringify(v));
    if (u.pathname === '/api/v1/namespaces/lab/pods') {
      if (u.searchParams.get('labelSelector') !== 'app.kubernetes.io/name=forklab,forklab.dev/pool=gp') return send({ apiVersion: 'v1', kind: 'PodList', metadata: {}, items: [] });
      return send({ apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '1' }, items: PODS.map(podObject) });
    }
    const one = /^\/api\/v1\/namespaces\/lab\/pods\/([^/]+)$/.exec(u.pathname);
    const pod = PODS.find((x) => x.name === one?.[1]);
    if (pod) return send(podObject(pod)); // kubectl logs reads the pod first
    // kubectl's discovery of the core group: the two resources collect reads.
    if (u.pathname === '/version') return send({ major: '1', minor: '32', gitVersion: 'v1.32.0' });
    if (u.pathname === '/apis') return send({ kind: 'APIGroupList', apiVersion: 'v1', groups: [] });
    if (u.pathname === '/api') return send({ kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
    if (u.pathname === '/api/v1')
      return send({
        kind: 'APIResourceList',
        groupVersion: 'v1',
        resources: [
          { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get', 'list'], shortNames: ['po'] },
          { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
          { name: 'nodes', singularName: 'node', namespaced: false, kind: 'Node', verbs: ['get', 'list'], shortNames: ['no'] },
        ],
      });
    const log = /^\/api\/v1\/namespaces\/lab\/pods\/([^/]+)\/log$/.exec(u.pathname);
    if (log) {
      const p = PODS.find((x) => x.name === log[1]);
      return p ? send(p.log, 'text/plain') : res.writeHead(404).end();
    }
    const node = /^\/api\/v1\/nodes\/([^/]+)$/.exec(u.pathname);
    if (node && node[1] !== 'n2')
      return send({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: node[1], labels: { 'node.kubernetes.io/instance-type': 'm7i.large', 'topology.kubernetes.io/zone': 'eu-1a' } },
        status: { nodeInfo: { kernelVersion: '6.8.0-1015-aws', osImage: 'Ubuntu 24.04', containerRuntimeVersion: 'containerd://1.7.2' } },
      });
    res.writeHead(403).end('{"kind":"Status","code":403}');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `https://127.0.0.1:${(server.address() as { port: number }).port}`, requests })));
}

async function collect(extra: string[]) {
  const { server, url, requests } = await standIn();
  const box = sandbox();
  writeFileSync(join(box.dir, 'token'), `${TOKEN}\n`);
  const out = join(box.dir, 'fleet');
  try {
    const cli = startCli(box, [
      'fleet',
      'collect',
      '--kubernetes',
      '--server',
      url,
      '--token-file',
      'token',
      '--ca-file',
      join(TLS, 'ca.pem'),
      '--namespace',
      'lab',
      '--selector',
      'app.kubernetes.io/name=forklab,forklab.dev/pool=gp',
      '--out',
      out,
      '--json',
      ...extra,
    ]);
    const end = await cli.done;
    return { box, out, end, stdout: cli.stdout(), stderr: cli.stderr(), requests };
  } finally {
    server.close();
  }
}

function checkOutcomes(r: Awaited<ReturnType<typeof collect>>) {
  assert.equal(r.end.code, 1, r.stderr); // not every pod is complete
  const got = readCollect(r.stdout, 'fleet collect --json');
  const by = Object.fromEntries(got.sources.map((s) => [s.source, s]));
  assert.equal(by['pod/fl-0']!.state, 'complete');
  assert.equal(by['pod/fl-0']!.documents, 2);
  assert.equal(by['pod/fl-0']!.duplicates, 1);
  assert.equal(by['pod/fl-1']!.state, 'partial');
  assert.equal(by['pod/fl-1']!.documents, 1);
  assert.ok(by['pod/fl-1']!.problems.some((p) => /document 2 \(run 44444444\) truncated: the log ends inside it/.test(p)));
  assert.ok(by['pod/fl-1']!.problems.some((p) => /no status line/.test(p)));
  assert.equal(by['pod/fl-2']!.state, 'partial');
  assert.equal(by['pod/fl-2']!.documents, 0);
  assert.ok(by['pod/fl-2']!.problems.some((p) => /document 1 \(run 44444444\) corrupt/.test(p)));
  assert.equal(by['pod/fl-3']!.state, 'failed');
  assert.ok(by['pod/fl-3']!.problems.some((p) => /termination message: .*without run documents/.test(p)));
  assert.deepEqual(got.import, { imported: 3, already: 0 });
  // One directory per machine, only verified documents, each with the node's labels the pod could not see.
  assert.deepEqual(readdirSync(r.out).sort(), ['n1', 'n2']);
  assert.deepEqual(readdirSync(join(r.out, 'n1')).sort(), ['cow-11111111.json', 'create-22222222.json']);
  const cow = JSON.parse(readFileSync(join(r.out, 'n1', 'cow-11111111.json'), 'utf8'));
  assert.deepEqual(cow.machine.placement, {
    engine: 'kubernetes',
    node: 'n1',
    pool: 'gp',
    labels: {
      'node.kubernetes.io/instance-type': 'm7i.large',
      'topology.kubernetes.io/zone': 'eu-1a',
      'nodeInfo.kernelVersion': '6.8.0-1015-aws',
      'nodeInfo.osImage': 'Ubuntu 24.04',
      'nodeInfo.containerRuntimeVersion': 'containerd://1.7.2',
    },
    source: 'pod/fl-0',
  });
  // No access to node n2 (403): its documents are kept, without labels.
  assert.deepEqual(JSON.parse(readFileSync(join(r.out, 'n2', 'spawn-33333333.json'), 'utf8')).machine.placement.labels, {});
}

test('fleet collect: the API with a token, four pods, each outcome named, verified documents written and imported', { skip: noTls }, async () => {
  const r = await collect([]);
  checkOutcomes(r);
  assert.ok(r.requests.every((u) => !u.includes('token')));
  // Collecting again writes the same files and imports nothing twice.
  const again = startCli(r.box, ['history', '--json']);
  assert.equal((await again.done).code, 0);
  const labels = (JSON.parse(again.stdout()) as { label?: string | null; note?: string | null }[]).map((x) => x.label ?? x.note);
  assert.ok(labels.includes('fleet gp/n1'), again.stdout().slice(0, 400));
});

const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8', timeout: 20_000 });
test('fleet collect: the same through kubectl', { skip: noTls || (kubectl.status === 0 ? false : 'kubectl is not installed (its client is enough)') }, async () => {
  checkOutcomes(await collect(['--kubectl', 'kubectl']));
});

test('fleet collect --dir: Slurm output files, and a bad flag is refused before any work', async () => {
  const box = sandbox();
  const dir = join(box.dir, 'results');
  mkdirSync(dir);
  writeFileSync(join(dir, 'forklab-7_0.out'), `${[...frames(COW, 1, 'c01'), ok(1, 'c01')].join('\n')}\n`);
  writeFileSync(join(dir, 'forklab-7_1.out'), `${[...frames(CREATE, 1, 'c02'), ok(1, 'c02')].join('\n')}\n`);
  writeFileSync(join(dir, 'notes.txt'), 'not a log\n');
  const cli = startCli(box, ['fleet', 'collect', '--dir', dir, '--engine', 'slurm', '--pool', 'hpc', '--out', join(box.dir, 'fleet')]);
  assert.equal((await cli.done).code, 0, cli.stderr());
  assert.match(cli.stdout(), /2 of 2 sources complete; 2 documents/);
  assert.match(cli.stdout(), /imported 2 into the history/);
  const placed = JSON.parse(readFileSync(join(box.dir, 'fleet', 'c02', 'create-22222222.json'), 'utf8')).machine.placement;
  assert.deepEqual(placed, { engine: 'slurm', node: 'c02', pool: 'hpc', labels: {}, source: join(dir, 'forklab-7_1.out') });
  const twice = startCli(box, ['fleet', 'collect', '--dir', dir, '--out', join(box.dir, 'fleet')]);
  assert.equal((await twice.done).code, 0);
  assert.match(twice.stdout(), /imported 0 into the history \(2 already there\)/);
  for (const [args, flag] of [
    [['fleet', 'collect'], /--kubernetes\/--dir: give exactly one/],
    [['fleet', 'collect', '--dir', join(box.dir, 'nope')], /--dir: .* is not a directory/],
    [['fleet', 'collect', '--kubernetes', '--server', 'ftp://x'], /--server: ftp:\/\/x: only http/],
    [['fleet', 'collect', '--kubernetes', '--token-file', 'x'], /--token-file: needs --server/],
  ] as const) {
    const bad = startCli(box, [...args]);
    assert.equal((await bad.done).code, 2, bad.stderr());
    assert.match(bad.stderr(), flag);
  }
});

test('fleet run: a measurement that cannot start still ends with a status line, also in the termination log', async () => {
  const box = sandbox();
  const term = join(box.dir, 'termination-log');
  box.env.FORKLAB_TERMINATION_LOG = term;
  box.env.NODE_NAME = 'node-a';
  const cli = startCli(box, ['fleet', 'run', '--only', '999']);
  assert.equal((await cli.done).code, 1);
  const line = 'forklab-status/1 {"state":"failed","documents":0,"node":"node-a","exitCode":2,"message":"forklab reproduce exited 2 without run documents"}';
  assert.equal(cli.stdout(), `${line}\n`);
  assert.match(cli.stderr(), /--only/);
  assert.equal(readFileSync(term, 'utf8'), line);
});
