// `forklab fleet manifest`: one Indexed Job per pool, one pod per node. Never a DaemonSet: a DaemonSet's pods
// restart forever and cannot run to completion. The pods are:
// - on different nodes: required anti-affinity on the hostname against every forklab pod (no two measurements
//   share a node, across pools too), and a topology spread over hostnames and zones;
// - Guaranteed with whole CPUs (requests = limits, integer cpu), so the static CPU manager gives them exclusive
//   cores and `--pin` means something;
// - at the "restricted" Pod Security level (non-root, no privilege escalation, every capability dropped,
//   RuntimeDefault seccomp) unless --seccomp unconfined asks for the comparison: Unconfined passes neither
//   "restricted" nor "baseline", so that Job needs a namespace at the "privileged" level;
// - told their node's name by the downward API (NODE_NAME), which `fleet run` puts in every frame.

import { UsageError } from '../errors.js';
import { POOL_LABEL } from './kube.js';

export interface ManifestOptions {
  pool: string;
  /** nodeSelector, from --selector k=v[,k=v]. */
  selector: Record<string, string>;
  nodes: number;
  preset: 'quick' | 'full';
  seccomp: 'runtime-default' | 'unconfined';
  image: string;
  namespace: string;
  cpus: number;
  memory: string;
}

const APP_LABEL = 'app.kubernetes.io/name';
export const DEFAULT_IMAGE = 'localhost/forklab:latest';
/** The image's user (scripts/image/ creates it): restricted pods must not run as root. */
export const IMAGE_UID = 10001;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,40}[a-z0-9])?$/;
const LABEL_KEY = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

/** --selector k=v[,k=v] → a nodeSelector; refused with the flag named. */
export function parseSelector(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (eq <= 0 || !LABEL_KEY.test(k) || !LABEL_VALUE.test(v))
      throw new UsageError('--selector', `${JSON.stringify(part)} is not label=value (e.g. node.kubernetes.io/instance-type=m7i.large)`);
    out[k] = v;
  }
  return out;
}

function checkManifestOptions(o: ManifestOptions): void {
  if (!DNS_LABEL.test(o.pool)) throw new UsageError('--pool', `${JSON.stringify(o.pool)} must be lower-case letters, digits and '-' (42 at most): it names the Job`);
  if (!Number.isSafeInteger(o.nodes) || o.nodes < 1 || o.nodes > 1000) throw new UsageError('--nodes', `${o.nodes} is not a whole number of nodes from 1 to 1000`);
  if (!Number.isSafeInteger(o.cpus) || o.cpus < 1)
    throw new UsageError('--cpus', `${o.cpus} is not a whole number of CPUs (the static CPU manager gives exclusive cores only to whole CPUs)`);
  if (!/^\d+(Mi|Gi)$/.test(o.memory)) throw new UsageError('--memory', `${JSON.stringify(o.memory)} is not a quantity like 4Gi or 3072Mi`);
  if (!DNS_LABEL.test(o.namespace)) throw new UsageError('--namespace', `${JSON.stringify(o.namespace)} is not a namespace name`);
}

/** The Job as a plain object (the YAML or JSON of it is what kubectl applies). */
export function fleetJob(o: ManifestOptions): Record<string, unknown> {
  checkManifestOptions(o);
  const labels = { [APP_LABEL]: 'forklab', [POOL_LABEL]: o.pool };
  const resources = { cpu: String(o.cpus), memory: o.memory };
  const seccompProfile = { type: o.seccomp === 'unconfined' ? 'Unconfined' : 'RuntimeDefault' };
  const deadlineS = o.preset === 'quick' ? 1800 : 6 * 3600;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: `forklab-${o.pool}`,
      namespace: o.namespace,
      labels,
      annotations: {
        'forklab.dev/preset': o.preset,
        'forklab.dev/seccomp': o.seccomp,
        'forklab.dev/pod-security': o.seccomp === 'unconfined' ? 'privileged' : 'restricted',
      },
    },
    spec: {
      completionMode: 'Indexed',
      completions: o.nodes,
      parallelism: o.nodes,
      // One failed measurement is that node's result: no retry, and the other nodes go on (Kubernetes 1.29+;
      // an older API server drops the field and retries up to the default backoffLimit).
      backoffLimitPerIndex: 0,
      activeDeadlineSeconds: deadlineS,
      // No ttlSecondsAfterFinished: the pods' logs are the results until `fleet collect` has read them.
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          nodeSelector: o.selector,
          affinity: {
            podAntiAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { [APP_LABEL]: 'forklab' } }, topologyKey: 'kubernetes.io/hostname' }],
            },
          },
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: labels } },
            { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: labels } },
          ],
          securityContext: { runAsNonRoot: true, runAsUser: IMAGE_UID, runAsGroup: IMAGE_UID, seccompProfile },
          containers: [
            {
              name: 'forklab',
              image: o.image,
              imagePullPolicy: 'IfNotPresent',
              args: ['fleet', 'run', '--preset', o.preset],
              env: [
                { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
                { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                { name: 'HOME', value: '/tmp' },
              ],
              resources: { requests: resources, limits: resources },
              securityContext: {
                allowPrivilegeEscalation: false,
                capabilities: { drop: ['ALL'] },
                runAsNonRoot: true,
                readOnlyRootFilesystem: true,
                seccompProfile,
              },
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
              volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
            },
          ],
          volumes: [{ name: 'tmp', emptyDir: { sizeLimit: '2Gi' } }],
        },
      },
    },
  };
}
