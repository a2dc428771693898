// `forklab fleet manifest` and `forklab fleet slurm`: what to hand to an engine that exists. They print; they
// never submit (kubectl apply -f, sbatch FILE are the user's).
import { Option, type Command } from 'commander';
import { UsageError } from '../errors.js';
import { DEFAULT_IMAGE, fleetJob, parseSelector, type ManifestOptions } from '../fleet/manifest.js';
import { toYaml } from '../fleet/yaml.js';
import { planOutput, writeOutput } from './output.js';

interface ManifestFlags {
  pool: string;
  selector: string;
  nodes: string;
  preset: 'quick' | 'full';
  seccomp: 'runtime-default' | 'unconfined';
  image: string;
  namespace: string;
  cpus: string;
  memory: string;
  json?: boolean;
  out: string;
}

const whole = (flag: string, v: string): number => {
  if (!/^\d+$/.test(v)) throw new UsageError(flag, `${JSON.stringify(v)} is not a whole number`);
  return Number(v);
};

export function manifestText(f: ManifestFlags): string {
  const o: ManifestOptions = {
    pool: f.pool,
    selector: parseSelector(f.selector),
    nodes: whole('--nodes', f.nodes),
    preset: f.preset,
    seccomp: f.seccomp,
    image: f.image,
    namespace: f.namespace,
    cpus: whole('--cpus', f.cpus),
    memory: f.memory,
  };
  const job = fleetJob(o);
  return f.json ? `${JSON.stringify(job, null, 2)}\n` : toYaml(job);
}

export function registerFleetMakers(fleet: Command): void {
  fleet
    .command('manifest')
    .description('print one Indexed Job for a node pool: one pod per node, Guaranteed whole CPUs, restricted Pod Security (kubectl apply -f)')
    .requiredOption('--pool <name>', 'the pool’s name: names the Job and labels its pods (forklab.dev/pool)')
    .requiredOption('--selector <k=v>', 'the pool’s nodes: a nodeSelector, label=value[,label=value]')
    .requiredOption('--nodes <n>', 'how many nodes of the pool to measure (one pod each)')
    .addOption(new Option('--preset <name>', 'quick or full (the articles’ settings)').choices(['quick', 'full']).default('quick'))
    .addOption(
      new Option('--seccomp <profile>', 'the pods’ seccomp profile; unconfined needs a namespace at the privileged Pod Security level (baseline forbids Unconfined)')
        .choices(['runtime-default', 'unconfined'])
        .default('runtime-default'),
    )
    .option('--image <ref>', 'the forklab image (scripts/image/)', DEFAULT_IMAGE)
    .option('--namespace <ns>', 'the Job’s namespace', 'default')
    .option('--cpus <n>', 'whole CPUs per pod (requests = limits)', '2')
    .option('--memory <q>', 'memory per pod (requests = limits)', '4Gi')
    .option('--json', 'JSON instead of YAML')
    .option('--out <file>', 'where to write it (- for standard output)', '-')
    .action((f: ManifestFlags) => {
      const target = planOutput('--out', f.out);
      const text = manifestText(f);
      if (f.seccomp === 'unconfined')
        process.stderr.write(
          `forklab fleet manifest: seccomp Unconfined passes neither the restricted nor the baseline Pod Security level; run it in a namespace labelled pod-security.kubernetes.io/enforce=privileged\n`,
        );
      writeOutput('--out', target, text);
    });
}
