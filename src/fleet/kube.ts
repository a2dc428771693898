// What `forklab fleet collect` asks a Kubernetes cluster: the pods of a job, their logs, their nodes' labels.
// Two ways in, same JSON: the API with a bearer token (in a pod: the service account; outside: --server and
// --token-file), or kubectl with the user's own kubeconfig. Only GETs; nothing in the cluster is changed.

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ForklabError } from '../errors.js';

export interface PodInfo {
  name: string;
  node: string | null;
  /** status.phase: Pending, Running, Succeeded, Failed, Unknown. */
  phase: string;
  pool: string | null;
  /** The forklab container's exit code and termination message, when it terminated. */
  exitCode: number | null;
  terminationMessage: string | null;
}

export interface NodeInfo {
  name: string;
  labels: Record<string, string>;
}

export interface KubeSource {
  /** How the cluster was reached, for messages. */
  describe: string;
  pods(namespace: string, selector: string): Promise<PodInfo[]>;
  node(name: string): Promise<NodeInfo | null>;
  log(namespace: string, pod: string, container: string): Promise<string>;
}

export const POOL_LABEL = 'forklab.dev/pool';
export const CONTAINER_NAME = 'forklab';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** PodList JSON → what collect needs of each pod. */
function podsOf(list: unknown): PodInfo[] {
  const items = obj(list).items;
  if (!Array.isArray(items)) throw new ForklabError('file', 'the pod list has no items array (not a PodList?)');
  return items.map((it) => {
    const meta = obj(obj(it).metadata);
    const status = obj(obj(it).status);
    const cs = (Array.isArray(status.containerStatuses) ? status.containerStatuses : []).map(obj);
    const mine = cs.find((c) => c.name === CONTAINER_NAME) ?? cs[0] ?? {};
    const term = obj(obj(mine.state).terminated);
    return {
      name: str(meta.name) ?? '?',
      node: str(obj(obj(it).spec).nodeName),
      phase: str(status.phase) ?? 'Unknown',
      pool: str(obj(meta.labels)[POOL_LABEL]),
      exitCode: typeof term.exitCode === 'number' ? term.exitCode : null,
      terminationMessage: str(term.message),
    };
  });
}

/** Node JSON → its labels, with what status.nodeInfo says of the kernel, the OS image and the container runtime. */
function nodeOf(node: unknown): NodeInfo {
  const meta = obj(obj(node).metadata);
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj(meta.labels))) if (typeof v === 'string') labels[k] = v;
  const info = obj(obj(obj(node).status).nodeInfo);
  for (const [key, field] of [
    ['nodeInfo.kernelVersion', 'kernelVersion'],
    ['nodeInfo.osImage', 'osImage'],
    ['nodeInfo.containerRuntimeVersion', 'containerRuntimeVersion'],
    ['nodeInfo.kubeletVersion', 'kubeletVersion'],
  ] as const) {
    const v = str(info[field]);
    if (v !== null) labels[key] = v;
  }
  return { name: str(meta.name) ?? '?', labels };
}

const TIMEOUT_MS = 60_000;

/** The API server over HTTP(S) with a bearer token. */
export function apiSource(server: string, token: string | null, caFile: string | null): KubeSource {
  const base = new URL(server);
  const ca = caFile === null ? undefined : readFileSync(caFile);
  const get = (path: string): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const url = new URL(path, base);
      const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
        url,
        { method: 'GET', headers: { Accept: 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) }, ca, timeout: TIMEOUT_MS },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (c: Buffer) => parts.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer in ${TIMEOUT_MS / 1000} s`)));
      req.on('error', (e) => reject(new ForklabError('file', `${url.origin}${url.pathname}: ${e.message}`)));
      req.end();
    });
  const getOk = async (path: string): Promise<string> => {
    const r = await get(path);
    if (r.status !== 200) throw new ForklabError('file', `GET ${path}: HTTP ${r.status}${r.body ? `: ${r.body.slice(0, 200)}` : ''}`);
    return r.body;
  };
  const enc = encodeURIComponent;
  return {
    describe: `the API server ${base.origin}`,
    pods: async (ns, sel) => podsOf(JSON.parse(await getOk(`/api/v1/namespaces/${enc(ns)}/pods?labelSelector=${enc(sel)}`))),
    node: async (name) => {
      const r = await get(`/api/v1/nodes/${enc(name)}`);
      return r.status === 200 ? nodeOf(JSON.parse(r.body)) : null; // a token without node access still collects
    },
    log: (ns, pod, c) => getOk(`/api/v1/namespaces/${enc(ns)}/pods/${enc(pod)}/log?container=${enc(c)}`),
  };
}

/** kubectl with the user's kubeconfig (or the given --server/--token, passed through). */
export function kubectlSource(kubectl: string, extra: string[]): KubeSource {
  const run = (args: string[]): Promise<string> =>
    new Promise((resolve, reject) => {
      execFile(kubectl, [...extra, ...args], { timeout: TIMEOUT_MS, maxBuffer: 1024 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
        if (err) reject(new ForklabError('file', `${kubectl} ${args.join(' ')}: ${stderr.trim().split('\n').pop() || err.message}`));
        else resolve(stdout);
      });
    });
  return {
    describe: kubectl,
    pods: async (ns, sel) => podsOf(JSON.parse(await run(['get', 'pods', '-n', ns, '-l', sel, '-o', 'json']))),
    node: async (name) => {
      try {
        return nodeOf(JSON.parse(await run(['get', 'node', name, '-o', 'json'])));
      } catch {
        return null;
      }
    },
    log: (ns, pod, c) => run(['logs', '-n', ns, pod, '-c', c]),
  };
}
