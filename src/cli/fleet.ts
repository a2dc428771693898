// `forklab fleet run|collect|manifest|slurm|report` (docs/fleet.md): the lab on many machines through engines that
// exist (Kubernetes Jobs, Slurm, ssh), results back as framed log lines, machines side by side.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { Command, Option } from 'commander';
import { UsageError } from '../errors.js';
import { collectDocument, collectStreams, directoryStreams, kubernetesStreams, type Collected, type LogStream } from '../fleet/collect.js';
import { apiSource, kubectlSource, type KubeSource } from '../fleet/kube.js';
import { fleetRun, nodeName, terminationLogPath } from '../fleet/run.js';
import { StoreError } from '../store/db.js';
import { openDatabase } from './database.js';
import { dbOption, emitTo, fileOption, onlyOption, planFileFlag, presetOption } from './options.js';
import { writeStdout } from './output.js';
import { registerFleetMakers } from './fleet-make.js';
import { registerFleetReport } from './fleet-report.js';
import { reproduceCommand } from './reproduce.js';
import { reportError } from './errors.js';

export interface CollectOptions {
  kubernetes?: boolean;
  dir?: string;
  namespace: string;
  selector: string;
  server?: string;
  tokenFile?: string;
  caFile?: string;
  kubectl?: string;
  engine: 'slurm' | 'logs';
  pool?: string;
  out: string;
  db?: string;
  import?: boolean;
  json?: string | boolean;
}

const SA = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The way into the cluster: --server (API, token), in a pod the service account, else kubectl. Checked before any request. */
function kubeSourceOf(o: CollectOptions): KubeSource {
  const token = (file: string, flag: string) => {
    try {
      return readFileSync(file, 'utf8').trim();
    } catch (e) {
      throw new UsageError(flag, `cannot read ${file}: ${(e as Error).message}`);
    }
  };
  if (o.caFile !== undefined && !existsSync(o.caFile)) throw new UsageError('--ca-file', `${o.caFile} does not exist`);
  if (o.server !== undefined) {
    let url: URL;
    try {
      url = new URL(o.server);
    } catch {
      throw new UsageError('--server', `${JSON.stringify(o.server)} is not a URL (https://host:6443)`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('--server', `${o.server}: only http:// and https:// servers`);
    const t = o.tokenFile === undefined ? null : token(o.tokenFile, '--token-file');
    if (o.kubectl !== undefined) return kubectlSource(o.kubectl, ['--server', o.server, ...(t ? ['--token', t] : []), ...(o.caFile ? ['--certificate-authority', o.caFile] : [])]);
    return apiSource(o.server, t, o.caFile ?? null);
  }
  if (o.tokenFile !== undefined) throw new UsageError('--token-file', 'needs --server (the API server it is a token for)');
  const host = process.env.KUBERNETES_SERVICE_HOST;
  if (o.kubectl === undefined && host && existsSync(`${SA}/token`)) {
    const port = process.env.KUBERNETES_SERVICE_PORT ?? '443';
    return apiSource(`https://${host.includes(':') ? `[${host}]` : host}:${port}`, token(`${SA}/token`, '(service account)'), `${SA}/ca.crt`);
  }
  return kubectlSource(o.kubectl ?? 'kubectl', []);
}

function importAll(c: Collected, db: string | undefined): { imported: number; already: number } {
  const { store } = openDatabase(db, { create: true, write: true });
  let imported = 0;
  let already = 0;
  try {
    for (const { doc } of c.documents) {
      const p = doc.machine.placement;
      doc.label ??= `fleet ${p?.pool ?? '-'}/${p?.node ?? doc.machine.hostname}`;
      try {
        store.importDocument(doc);
        imported++;
      } catch (e) {
        if (!(e instanceof StoreError) || !/already in/.test(e.message)) throw e;
        already++;
      }
    }
  } finally {
    store.close();
  }
  return { imported, already };
}

async function runCollect(o: CollectOptions): Promise<number> {
  if ((o.kubernetes === true) === (o.dir !== undefined))
    throw new UsageError('--kubernetes/--dir', 'give exactly one: --kubernetes (pods of a job) or --dir DIR (Slurm or ssh log files)');
  if (o.dir !== undefined && !(existsSync(o.dir) && statSync(o.dir).isDirectory())) throw new UsageError('--dir', `${o.dir} is not a directory`);
  if (existsSync(o.out) && !statSync(o.out).isDirectory()) throw new UsageError('--out', `${o.out} exists and is not a directory`);
  let streams: LogStream[];
  if (o.kubernetes) streams = await kubernetesStreams(kubeSourceOf(o), o.namespace, o.selector);
  else streams = directoryStreams(o.dir!, o.engine, o.pool ?? null);
  if (streams.length === 0)
    throw new UsageError(
      o.kubernetes ? '--selector' : '--dir',
      o.kubernetes ? `no pod in namespace ${o.namespace} matches ${o.selector}` : `${o.dir} has no .log, .out or .frames file`,
    );
  const json = planFileFlag('--json', o.json);
  const c = collectStreams(streams, o.out);
  const imp = o.import === false || c.documents.length === 0 ? null : importAll(c, o.db);
  if (json) {
    emitTo('--json', json, `${JSON.stringify(collectDocument(c, o.out, imp), null, 1)}\n`);
  } else {
    const lines: string[] = [];
    for (const s of c.outcomes) {
      lines.push(`${s.state.padEnd(9)} ${s.source}  node ${s.node ?? '?'}${s.pool ? `  pool ${s.pool}` : ''}  ${s.documents} document${s.documents === 1 ? '' : 's'}`);
      for (const p of s.problems) lines.push(`          ${p}`);
    }
    const complete = c.outcomes.filter((s) => s.state === 'complete').length;
    lines.push(`${complete} of ${c.outcomes.length} sources complete; ${c.documents.length} documents in ${o.out}/`);
    if (imp) lines.push(`imported ${imp.imported} into the history${imp.already ? ` (${imp.already} already there)` : ''}`);
    writeStdout(`${lines.join('\n')}\n`);
  }
  return c.outcomes.every((s) => s.state === 'complete') ? 0 : 1;
}

export function registerFleetCommand(program: Command): void {
  const fleet = new Command('fleet').description('the lab on many machines through Kubernetes, Slurm or ssh, and machines side by side (docs/fleet.md)').exitOverride();
  fleet
    .command('run')
    .description('what a pod or a task runs: a reproduction (nothing stored), then every run document as framed lines on stdout and a one-line status')
    .addOption(presetOption())
    .addOption(onlyOption())
    .action(async (opts: { preset: 'quick' | 'full'; only?: string }) => {
      // The reproduction runs here, in this process; its summary and its problems go to stderr, the frames to stdout.
      const reproduce = async () => {
        try {
          return await reproduceCommand({ quick: opts.preset === 'quick', only: opts.only, store: false, color: false }, { summaryTo: process.stderr });
        } catch (e) {
          return { status: reportError(e, 'reproduce'), docs: [] };
        }
      };
      process.exitCode = await fleetRun({ reproduce, terminationLog: terminationLogPath(process.env), node: nodeName(process.env), write: writeStdout });
    });
  fleet
    .command('collect')
    .description('reassemble and verify the documents in pods’ logs (--kubernetes) or log files (--dir), write OUT/<machine>/*.json, import them')
    .option('--kubernetes', 'read the pods of a job: the API (--server, or the service account in a pod) or kubectl')
    .option('--dir <dir>', 'read the .log/.out/.frames files of a directory (fleet slurm’s output, ssh sessions’ captured stdout)')
    .option('--namespace <ns>', 'the pods’ namespace', 'default')
    .option('--selector <labels>', 'the pods’ label selector', 'app.kubernetes.io/name=forklab')
    .option('--server <url>', 'the API server (https://host:6443); without it, kubectl and its kubeconfig')
    .option('--token-file <file>', 'a bearer token for --server')
    .option('--ca-file <file>', 'the CA certificate of --server')
    .option('--kubectl <path>', 'use this kubectl (with --server: passes --server and --token to it)')
    .addOption(new Option('--engine <name>', 'what wrote the --dir files').choices(['slurm', 'logs']).default('logs'))
    .option('--pool <name>', 'the pool of the --dir machines')
    .option('--out <dir>', 'where the verified documents go, one directory per machine', 'fleet')
    .addOption(dbOption())
    .option('--no-import', 'only write the files, do not import them into the history')
    .addOption(fileOption('--json', 'write what happened to each source as JSON'))
    .action(async (opts: CollectOptions) => {
      process.exitCode = await runCollect(opts);
    });
  registerFleetMakers(fleet);
  registerFleetReport(fleet);
  program.addCommand(fleet);
}
