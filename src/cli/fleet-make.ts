// `forklab fleet manifest` and `forklab fleet slurm`: what to hand to an engine that exists. They print; they
// never submit (kubectl apply -f, sbatch FILE are the user's).
import { Option, type Command } from 'commander';
import { UsageError } from '../errors.js';
import { DEFAULT_IMAGE, fleetJob, parseSelector, type ManifestOptions } from '../fleet/manifest.js';
import { sbatchScript } from '../fleet/slurm.js';
import { toYaml } from '../fleet/yaml.js';
import { resolve } from 'node:path';
import { mkdirSync } from 'node:fs';
import { planOutput, writeOutput } from './output.js';
import { emitTo, fileOption, onlyOption, planFileFlag, presetOption } from './options.js';

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
  /** --json [file] or --yaml [file]: which format, and where (no FILE or -: standard output). YAML by default. */
  json?: string | boolean;
  yaml?: string | boolean;
}

const whole = (flag: string, v: string): number => {
  if (!/^\d+$/.test(v)) throw new UsageError(flag, `${JSON.stringify(v)} is not a whole number`);
  return Number(v);
};

function manifestText(f: ManifestFlags): string {
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
  return f.json !== undefined ? `${JSON.stringify(job, null, 2)}\n` : toYaml(job);
}

export function registerFleetMakers(fleet: Command): void {
  fleet
    .command('manifest')
    .description('print one Indexed Job for a node pool: one pod per node, Guaranteed whole CPUs, restricted Pod Security (kubectl apply -f)')
    .requiredOption('--pool <name>', 'the pool’s name: names the Job and labels its pods (forklab.dev/pool)')
    .requiredOption('--selector <labels>', 'the pool’s nodes: a nodeSelector, label=value[,label=value]')
    .requiredOption('--nodes <n>', 'how many nodes of the pool to measure (one pod each)')
    .addOption(presetOption())
    .addOption(
      new Option('--seccomp <profile>', 'the pods’ seccomp profile; unconfined needs a namespace at the privileged Pod Security level (baseline forbids Unconfined)')
        .choices(['runtime-default', 'unconfined'])
        .default('runtime-default'),
    )
    .option('--image <ref>', 'the forklab image (scripts/image/)', DEFAULT_IMAGE)
    .option('--namespace <ns>', 'the Job’s namespace', 'default')
    .option('--cpus <n>', 'whole CPUs per pod (requests = limits)', '2')
    .option('--memory <q>', 'memory per pod (requests = limits)', '4Gi')
    .addOption(fileOption('--yaml', 'write the Job as YAML (the default, on standard output)'))
    .addOption(fileOption('--json', 'write the Job as JSON instead of YAML'))
    .action((f: ManifestFlags) => {
      if (f.json !== undefined && f.yaml !== undefined) throw new UsageError('--json', 'give --json or --yaml, not both');
      const flag = f.json !== undefined ? '--json' : '--yaml';
      const target = planFileFlag(flag, f.json ?? f.yaml ?? true)!;
      const text = manifestText(f);
      if (f.seccomp === 'unconfined')
        process.stderr.write(
          `forklab fleet manifest: seccomp Unconfined passes neither the restricted nor the baseline Pod Security level; run it in a namespace labelled pod-security.kubernetes.io/enforce=privileged\n`,
        );
      emitTo(flag, target, text);
    });
  fleet
    .command('slurm')
    .description('print an sbatch job array: one task per node (--exclusive), each task’s framed documents in --out, which fleet collect --dir reads')
    .requiredOption('--nodes <n>', 'how many nodes (array tasks)')
    .option('--partition <name>', 'the Slurm partition')
    .addOption(presetOption())
    .addOption(onlyOption())
    .option('--out <dir>', 'where the tasks write their output files (on a filesystem the nodes share)', 'fleet-slurm')
    .option('--forklab <command>', 'how a node runs forklab (e.g. "podman run --rm localhost/forklab:latest")', 'forklab')
    .option('--time <minutes>', 'wall-time limit of one task', '60')
    .option('--script <file>', 'where to write the script (- for standard output)', '-')
    .action((f: { nodes: string; partition?: string; preset: 'quick' | 'full'; only?: string; out: string; forklab: string; time: string; script: string }) => {
      const target = planOutput('--script', f.script);
      const text = sbatchScript({
        nodes: whole('--nodes', f.nodes),
        partition: f.partition ?? null,
        preset: f.preset,
        only: f.only ?? null,
        outDir: resolve(f.out),
        forklab: f.forklab,
        timeMinutes: whole('--time', f.time),
      });
      // Slurm does not create the --output directory: make it here, where the job is submitted from.
      mkdirSync(resolve(f.out), { recursive: true });
      writeOutput('--script', target, text);
    });
}
