// `forklab fleet slurm`: an sbatch job array, one task per node (--exclusive: nothing else runs on the node
// while it measures), each task's stdout a log file of framed documents in one directory that
// `forklab fleet collect --dir DIR --engine slurm` reads. Slurm writes --output on the node that runs the task:
// DIR must be on a filesystem the nodes share, or be gathered afterwards (rsync, scp) into one place.

import { isAbsolute } from 'node:path';
import { UsageError } from '../errors.js';

export interface SlurmOptions {
  nodes: number;
  partition: string | null;
  preset: 'quick' | 'full';
  only: string | null;
  /** Absolute directory for the tasks' output files. */
  outDir: string;
  /** How a node runs forklab: `forklab`, or a container runtime's command line ending in the image's entrypoint. */
  forklab: string;
  /** Wall-time limit of one task, minutes. */
  timeMinutes: number;
}

const SLURM_WORD = /^[A-Za-z0-9_.,-]+$/;

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=,@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function checkSlurmOptions(o: SlurmOptions): void {
  if (!Number.isSafeInteger(o.nodes) || o.nodes < 1 || o.nodes > 10000) throw new UsageError('--nodes', `${o.nodes} is not a whole number of nodes from 1 to 10000`);
  if (o.partition !== null && !SLURM_WORD.test(o.partition)) throw new UsageError('--partition', `${JSON.stringify(o.partition)} is not a partition name`);
  if (!isAbsolute(o.outDir) || /[\s%]/.test(o.outDir))
    throw new UsageError('--out', `${JSON.stringify(o.outDir)} must be an absolute path without spaces or % (Slurm expands % in --output)`);
  if (o.only !== null && !/^\d{3}(,\d{3})*$/.test(o.only)) throw new UsageError('--only', `${JSON.stringify(o.only)} is not a list of articles like 000,003`);
  if (!Number.isSafeInteger(o.timeMinutes) || o.timeMinutes < 1) throw new UsageError('--time', `${o.timeMinutes} is not a whole number of minutes`);
  if (o.forklab.trim() === '') throw new UsageError('--forklab', 'is empty');
}

/** The sbatch script. */
export function sbatchScript(o: SlurmOptions): string {
  checkSlurmOptions(o);
  const hh = String(Math.floor(o.timeMinutes / 60)).padStart(2, '0');
  const mm = String(o.timeMinutes % 60).padStart(2, '0');
  const args = ['fleet', 'run', '--preset', o.preset, ...(o.only ? ['--only', o.only] : [])].map(shellQuote).join(' ');
  return [
    '#!/bin/bash',
    `# forklab on ${o.nodes} node${o.nodes === 1 ? '' : 's'}: one array task per node, alone on it (--exclusive).`,
    `# Submit: sbatch THIS_FILE; then: forklab fleet collect --dir ${o.outDir} --engine slurm`,
    '#SBATCH --job-name=forklab',
    `#SBATCH --array=0-${o.nodes - 1}`,
    '#SBATCH --nodes=1',
    '#SBATCH --ntasks=1',
    '#SBATCH --exclusive',
    ...(o.partition ? [`#SBATCH --partition=${o.partition}`] : []),
    `#SBATCH --time=${hh}:${mm}:00`,
    `#SBATCH --output=${o.outDir}/forklab-%A_%a.out`,
    `#SBATCH --error=${o.outDir}/forklab-%A_%a.err`,
    'set -u',
    '# The node name goes into every frame (fleet run reads SLURMD_NODENAME); the job and task ids into the log.',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell expansions in the script
    'echo "forklab slurm job ${SLURM_ARRAY_JOB_ID:-?} task ${SLURM_ARRAY_TASK_ID:-?} on ${SLURMD_NODENAME:-?} partition ${SLURM_JOB_PARTITION:-?}"',
    `exec ${o.forklab} ${args}`,
    '',
  ].join('\n');
}
