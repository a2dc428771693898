// `forklab fleet manifest`: the Job validated against the Kubernetes schemas (kubernetes-models), checked
// against the Pod Security Standards' restricted rules, kept equal to the kustomize base in deploy/k8s, and
// rendered with `kubectl kustomize` (skipped when kubectl is absent).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fleetJob, type ManifestOptions } from '../src/fleet/manifest.js';
import { toYaml } from '../src/fleet/yaml.js';
import { runCli, sandbox } from './helpers/cli.js';

const require = createRequire(import.meta.url);
const { Job } = require('kubernetes-models/batch/v1/Job') as { Job: new (o: unknown) => { validate(): void } };

const ROOT = join(import.meta.dirname, '..');
const base: ManifestOptions = {
  pool: 'gp',
  selector: { 'node.kubernetes.io/instance-type': 'm7i.large' },
  nodes: 3,
  preset: 'quick',
  seccomp: 'runtime-default',
  image: 'localhost/forklab:latest',
  namespace: 'default',
  cpus: 2,
  memory: '4Gi',
};

// biome-ignore lint/suspicious/noExplicitAny: walking a manifest
type Any = any;

/** The restricted profile's checks (kubernetes.io/docs/concepts/security/pod-security-standards), on one pod spec. */
function restrictedViolations(spec: Any): string[] {
  const v: string[] = [];
  const pod = spec.securityContext ?? {};
  for (const k of ['hostNetwork', 'hostPID', 'hostIPC']) if (spec[k]) v.push(k);
  const allowedVolumes = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];
  for (const vol of spec.volumes ?? []) for (const k of Object.keys(vol)) if (k !== 'name' && !allowedVolumes.includes(k)) v.push(`volume type ${k}`);
  for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
    const sc = c.securityContext ?? {};
    if (sc.privileged) v.push(`${c.name}: privileged`);
    if (sc.allowPrivilegeEscalation !== false) v.push(`${c.name}: allowPrivilegeEscalation is not false`);
    if (!(sc.capabilities?.drop ?? []).includes('ALL')) v.push(`${c.name}: capabilities do not drop ALL`);
    for (const add of sc.capabilities?.add ?? []) if (add !== 'NET_BIND_SERVICE') v.push(`${c.name}: adds ${add}`);
    if ((sc.runAsNonRoot ?? pod.runAsNonRoot) !== true) v.push(`${c.name}: runAsNonRoot is not true`);
    if ((sc.runAsUser ?? pod.runAsUser) === 0) v.push(`${c.name}: runs as uid 0`);
    const seccomp = (sc.seccompProfile ?? pod.seccompProfile)?.type;
    if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost') v.push(`${c.name}: seccomp ${seccomp ?? 'unset'}`);
    for (const p of c.ports ?? []) if (p.hostPort) v.push(`${c.name}: hostPort`);
  }
  return v;
}

test('manifest: an Indexed Job the Kubernetes schemas accept, one pod per node, Guaranteed whole CPUs', () => {
  for (const o of [base, { ...base, preset: 'full' as const }, { ...base, seccomp: 'unconfined' as const, nodes: 1 }]) {
    const job: Any = fleetJob(o);
    new Job(job).validate();
    assert.equal(job.kind, 'Job');
    assert.equal(job.spec.completionMode, 'Indexed');
    assert.equal(job.spec.completions, o.nodes);
    assert.equal(job.spec.parallelism, o.nodes);
    assert.equal(job.spec.ttlSecondsAfterFinished, undefined, 'the logs must outlive the Job until collect');
    const spec = job.spec.template.spec;
    assert.equal(spec.restartPolicy, 'Never');
    assert.deepEqual(spec.nodeSelector, o.selector);
    const anti = spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution;
    assert.deepEqual(anti, [{ labelSelector: { matchLabels: { 'app.kubernetes.io/name': 'forklab' } }, topologyKey: 'kubernetes.io/hostname' }]);
    assert.deepEqual(
      spec.topologySpreadConstraints.map((t: Any) => [t.topologyKey, t.whenUnsatisfiable]),
      [
        ['kubernetes.io/hostname', 'DoNotSchedule'],
        ['topology.kubernetes.io/zone', 'ScheduleAnyway'],
      ],
    );
    const [c] = spec.containers;
    assert.deepEqual(c.resources.requests, c.resources.limits);
    assert.match(c.resources.limits.cpu, /^[1-9]\d*$/);
    assert.deepEqual(c.env[0], { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } });
    assert.deepEqual(c.args, ['fleet', 'run', '--preset', o.preset]);
    assert.equal(job.metadata.labels['forklab.dev/pool'], 'gp');
    assert.equal(job.spec.template.metadata.labels['forklab.dev/pool'], 'gp');
  }
  // The schemas do refuse: a completion mode that does not exist, a container without an image name's type.
  const bad: Any = fleetJob(base);
  bad.spec.completionMode = 'Sometimes';
  assert.throws(() => new Job(bad).validate(), /completionMode/);
  const bad2: Any = fleetJob(base);
  bad2.spec.template.spec.containers[0].resources.limits.cpu = { two: 2 };
  assert.throws(() => new Job(bad2).validate(), /cpu/);
});

test('manifest: restricted Pod Security with RuntimeDefault; Unconfined breaks only the seccomp rule', () => {
  assert.deepEqual(restrictedViolations((fleetJob(base) as Any).spec.template.spec), []);
  const open: Any = fleetJob({ ...base, seccomp: 'unconfined' });
  assert.deepEqual(restrictedViolations(open.spec.template.spec), ['forklab: seccomp Unconfined']);
  assert.equal(open.metadata.annotations['forklab.dev/pod-security'], 'privileged');
});

test('manifest: the kustomize base is the generator’s output, and kubectl kustomize renders base and overlay', (t) => {
  const baseOpts: ManifestOptions = { ...base, pool: 'base', selector: { 'forklab.dev/measure': 'true' }, nodes: 1 };
  assert.equal(
    readFileSync(join(ROOT, 'deploy/k8s/base/job.yaml'), 'utf8'),
    toYaml(fleetJob(baseOpts)),
    'regenerate: forklab fleet manifest --pool base --selector forklab.dev/measure=true --nodes 1 --yaml deploy/k8s/base/job.yaml',
  );
  const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8', timeout: 20_000 });
  if (probe.status !== 0) {
    t.skip(`kubectl is not installed (${probe.error?.message ?? probe.stderr.trim()}); the schema checks above still ran`);
    return;
  }
  const render = (dir: string) => {
    const r = spawnSync('kubectl', ['kustomize', join(ROOT, dir)], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };
  const b = render('deploy/k8s/base');
  assert.match(b, /^kind: Job$/m);
  assert.match(b, /^ {2}name: forklab-base$/m);
  assert.match(b, /completionMode: Indexed/);
  const gp = render('deploy/k8s/overlays/gp');
  assert.match(gp, /^ {2}name: forklab-gp$/m);
  assert.match(gp, /^ {2}namespace: forklab$/m);
  assert.match(gp, /^ {2}completions: 3$/m);
  assert.match(gp, /^ {2}parallelism: 3$/m);
  assert.match(gp, /node\.kubernetes\.io\/instance-type: m7i\.large/);
  assert.equal((gp.match(/forklab\.dev\/pool: gp/g) ?? []).length, 4, gp);
  assert.doesNotMatch(gp, /forklab\.dev\/pool: base/);
  assert.doesNotMatch(gp, /DaemonSet/);
});

test('manifest: the command line prints YAML or JSON, and refuses bad flags naming them', () => {
  const box = sandbox();
  const y = runCli(box, ['fleet', 'manifest', '--pool', 'gp', '--selector', 'node.kubernetes.io/instance-type=m7i.large', '--nodes', '3']);
  assert.equal(y.code, 0, y.stderr);
  assert.equal(y.stdout, toYaml(fleetJob(base)));
  const j = runCli(box, ['fleet', 'manifest', '--pool', 'gp', '--selector', 'a=b,c=d', '--nodes', '2', '--seccomp', 'unconfined', '--json']);
  assert.equal(j.code, 0, j.stderr);
  assert.deepEqual(JSON.parse(j.stdout).spec.template.spec.nodeSelector, { a: 'b', c: 'd' });
  assert.match(j.stderr, /enforce=privileged/);
  for (const [args, msg] of [
    [['--pool', 'GP_1', '--selector', 'a=b', '--nodes', '1'], /--pool: "GP_1" must be lower-case/],
    [['--pool', 'gp', '--selector', 'a', '--nodes', '1'], /--selector: "a" is not label=value/],
    [['--pool', 'gp', '--selector', 'a=b', '--nodes', '0'], /--nodes: 0 is not a whole number of nodes/],
    [['--pool', 'gp', '--selector', 'a=b', '--nodes', '2', '--cpus', '1.5'], /--cpus: "1.5" is not a whole number/],
    [['--pool', 'gp', '--selector', 'a=b', '--nodes', '2', '--memory', '4GB'], /--memory: "4GB" is not a quantity/],
  ] as const) {
    const r = runCli(box, ['fleet', 'manifest', ...args]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, msg);
    assert.equal(r.stdout, '');
  }
});
